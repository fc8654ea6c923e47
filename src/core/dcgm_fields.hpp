// DCGM fields as solscope reads them: the field ids, the names dcgm-exporter exports (`DCGM_FI_...`), the
// short column tags of `dcgmi dmon`, the MetricId each maps to and the factor to solscope's units, plus
// DCGM's placeholder values for "no value". One table, used by every DCGM reader (dcgm-exporter scrapes,
// Prometheus answers, `dcgmi dmon` logs) and by the live dcgm-exporter source.
//
// Sources: DCGM's public header dcgm_fields.h (field ids, DCGM_FT_*_BLANK / NOT_FOUND / NOT_SUPPORTED /
// NOT_PERMISSIONED values) and the DCGM user guide's profiling-metrics table (ratios 0-1 of the peak: GR
// engine active, SM active, SM occupancy, tensor/FP64/FP32/FP16 pipe active, DRAM active). SOL from these
// fields: docs/design/sol-metrics.md (Compute SOL = the busiest of tensor/FP64/FP32/FP16; Memory SOL = DRAM
// active; L2, L1 and issue are unknown, never 0).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "core/metric_id.hpp"

namespace solscope::core {

/// One DCGM field solscope understands.
struct DcgmField {
  std::uint16_t id = 0;   ///< DCGM field id, e.g. 1004
  std::string_view name;  ///< as dcgm-exporter names the series, e.g. "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"
  std::string_view tag;   ///< `dcgmi dmon` column header, e.g. "TENSO"
  MetricId metric{};      ///< where the value goes
  double scale = 1.0;     ///< value x scale = solscope's unit (ratio 0-1 -> %: 100; MiB -> bytes: 1048576)
};

/// The prefix of every dcgm-exporter series name.
inline constexpr std::string_view kDcgmSeriesPrefix = "DCGM_FI_";

/// Every DCGM field solscope maps, in id order.
[[nodiscard]] auto dcgm_fields() -> std::span<const DcgmField>;

/// The field with this id / series name / dmon tag (tags are matched case-sensitively, as dmon prints them);
/// nullopt for a field solscope does not map.
[[nodiscard]] auto dcgm_field_by_id(std::uint32_t id) -> std::optional<DcgmField>;
[[nodiscard]] auto dcgm_field_by_name(std::string_view name) -> std::optional<DcgmField>;
[[nodiscard]] auto dcgm_field_by_tag(std::string_view tag) -> std::optional<DcgmField>;
/// The field that fills `metric` (e.g. MetricId::TensorPipe -> DCGM_FI_PROF_PIPE_TENSOR_ACTIVE); nullopt when
/// no DCGM field does.
[[nodiscard]] auto dcgm_field_by_metric(MetricId metric) -> std::optional<DcgmField>;

/// True when `value` is one of DCGM's placeholders for "no value": the FP64 blank family (2^47 =
/// 140737488355328 and the next three: not found, not supported, not permissioned), the INT64 family
/// (0x7ffffffffffffff0-f3, e.g. 9223372036854775794 = not supported, as printed or as rounded to a double),
/// and the INT32 family (0x7ffffff0-f3). Also true for NaN. False for +-Inf: an infinity passes on as a value
/// outside its metric's range, which core::domain_checked (core/metric_domain.hpp) makes unknown and counts.
[[nodiscard]] auto is_dcgm_placeholder(double value) -> bool;

/// The value in solscope's unit (value x field.scale), or NaN for a placeholder. Not domain-checked: the
/// caller applies core::domain_checked, which counts what it sets aside.
[[nodiscard]] auto dcgm_value(const DcgmField& field, double value) -> double;

}  // namespace solscope::core
