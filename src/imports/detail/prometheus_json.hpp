// A saved Prometheus `/api/v1/query_range` answer (JSON, resultType "matrix"), or an `/api/v1/query` answer
// (resultType "vector": one point per series), as solscope samples. Pure: no I/O.
//
// Series read: dcgm-exporter's `DCGM_FI_*` (through core/dcgm_fields.hpp; SourceKind::Dcgm) and solscope's
// own `solscope_*` (metric_catalog prom_name / prom_scale; the pipe and memory-path families by their
// `pipe` / `path` label; `solscope_gpu_info{source=...}` gives the source, else SourceKind::Replay). A GPU is
// one (Hostname or hostname or instance, gpu, GPU_I_ID) label set; its DeviceInfo is what
// net::dcgm_device_identity makes of the labels (a MIG instance: parent_uuid from UUID, gpu_index from gpu,
// profile shares), with namespace/pod/container as its attribution. The points of all series of a GPU at one
// timestamp make one sample, spanning from that GPU's previous timestamp. Other series are ignored (counted
// in `unmapped`).
#pragma once

#include <cstdint>
#include <string_view>

#include "core/result.hpp"
#include "imports/detail/recording.hpp"

namespace solscope::imports {

/// Parses a query_range answer (resultType "matrix"), or a query answer (resultType "vector": one sample per
/// GPU at the points' time, with a note in Recording::notes). `single_ns`: the span of the sample of a GPU
/// with one timestamp (every GPU of a vector), > 0. The answer is read by net::parse_prom_query_answer,
/// within its limits. Errors: DataLoss "line N, column M: ..." for invalid JSON; ResourceExhausted naming the
/// limit an answer is past (net/prom_query.hpp kMaxProm*); DataLoss naming the JSON path
/// ("data.result[2].values[7]", "data.result[2].value") for a point that is not [time, "value"];
/// InvalidArgument for an answer that is not status "success" with resultType "matrix" or "vector", or that
/// holds no series solscope reads.
[[nodiscard]] auto parse_prometheus_json(std::string_view text, std::int64_t single_ns)
    -> core::Result<Recording>;

}  // namespace solscope::imports
