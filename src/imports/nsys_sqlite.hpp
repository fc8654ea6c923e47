// An Nsight Systems SQLite export (`nsys export --type sqlite`, or `nsys stats` beside a report) with GPU
// metrics sampling (`nsys profile --gpu-metrics-devices ...`) as solscope samples (SourceKind::Nsys).
//
// Tables read (Nsight Systems "SQLite Schema Reference"): TARGET_INFO_GPU_METRICS(typeId, sourceId,
// typeName, metricId, metricName) names each metric of each GPU metric set (typeId: one per GPU); GPU_METRICS
// (timestamp ns, typeId, metricId, value) holds the samples; TARGET_INFO_SESSION_START_TIME(utcEpochNs), when
// present, places them in wall-clock time. Metric names differ by chip and release ("SMs Active [Throughput
// %]", "SM Active", "Tensor Active", "DRAM Read Bandwidth [Throughput %]"...): they are matched without the
// bracketed unit and case, and only percent metrics are read. DRAM read + write = DRAM throughput.
//
// SOL definition: Compute SOL = the busiest of tensor active and SM issue; Memory SOL = DRAM read + write
// bandwidth, percent of peak; L2 and L1 unknown. The file is opened read-only and never changed.
#pragma once

#include <filesystem>
#include <string_view>

#include "core/result.hpp"
#include "imports/detail/recording.hpp"

namespace solscope::imports {

/// Reads the GPU metrics of an nsys SQLite export. A value that is NULL, text or outside its metric's range
/// (+-Inf included) is unknown, never 0, and counted in tally.out_of_domain; the samples then go through the
/// shared ordering rule and domain check (span_from_previous, check_domains). Errors: InvalidArgument when
/// the file is not SQLite or lacks the GPU_METRICS / TARGET_INFO_GPU_METRICS tables (no GPU metrics sampling
/// in the report) or holds no sample of a metric solscope maps; DataLoss for a damaged database, with
/// SQLite's message.
[[nodiscard]] auto read_nsys_sqlite(const std::filesystem::path& path) -> core::Result<Recording>;

/// The SOL definition of nsys samples, for meta sol_definition.
inline constexpr std::string_view kNsysSolDefinition =
    "nsys: Compute SOL = max(tensor active, SM issue); Memory SOL = DRAM read + write bandwidth; L2 and L1 "
    "unknown";

/// The metric a GPU_METRICS name maps to, or MetricId::kCount. `dram_part` is set for the DRAM read and write
/// bandwidth metrics (their sum is DRAM throughput).
[[nodiscard]] auto nsys_metric(std::string_view metric_name, bool& dram_part) -> core::MetricId;

}  // namespace solscope::imports
