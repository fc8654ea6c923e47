// The one domain check of a metric's value: inside the range its catalog row states (MetricDef::valid), or
// not a measurement. Every entry of figures from outside applies it (the importers of `solscope import`, the
// dcgm-exporter source): a value outside becomes unknown (NaN, never 0, never clamped) and is counted, so
// that the user is told how many were set aside and of which metric.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/metric_id.hpp"
#include "core/raw_sample.hpp"

namespace solscope::core {

/// How many values a domain check made unknown, per metric.
class DomainTally {
 public:
  void add(MetricId id, std::uint64_t count = 1) { counts_[index_of(id)] += count; }
  [[nodiscard]] auto count(MetricId id) const -> std::uint64_t { return counts_[index_of(id)]; }
  /// Every metric's count, summed.
  [[nodiscard]] auto total() const -> std::uint64_t;
  /// "tensor_pipe_pct 2, power_w 1": the metrics with a count, in catalog order; "" when none.
  [[nodiscard]] auto describe() const -> std::string;
  auto operator+=(const DomainTally& other) -> DomainTally&;

 private:
  std::array<std::uint64_t, kMetricCount> counts_{};
};

/// True when `value` is a number inside `id`'s range (MetricDef::valid, in the metric's unit); false for NaN,
/// +-Inf and any number outside.
[[nodiscard]] auto in_domain(MetricId id, double value) -> bool;

/// `value` when it is inside `id`'s range or NaN (already unknown, not counted); otherwise NaN, counted in
/// `tally`.
[[nodiscard]] auto domain_checked(MetricId id, double value, DomainTally& tally) -> double;

/// Applies domain_checked to every metric value of `sample`; returns how many it made unknown.
auto check_domain(RawSample& sample, DomainTally& tally) -> std::uint64_t;

}  // namespace solscope::core
