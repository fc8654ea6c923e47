#include "core/metric_domain.hpp"

#include <cmath>

#include "core/metric_catalog.hpp"

namespace solscope::core {

auto DomainTally::total() const -> std::uint64_t {
  std::uint64_t sum = 0;
  for (const std::uint64_t c : counts_) sum += c;
  return sum;
}

auto DomainTally::describe() const -> std::string {
  std::string out;
  for (const MetricDef& def : metric_catalog()) {
    const std::uint64_t c = count(def.id);
    if (c == 0) continue;
    out += (out.empty() ? "" : ", ") + std::string(def.name) + " " + std::to_string(c);
  }
  return out;
}

auto DomainTally::operator+=(const DomainTally& other) -> DomainTally& {
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  return *this;
}

auto in_domain(MetricId id, double value) -> bool {
  const ValueRange& range = metric_def(id).valid;
  return value >= range.min && value <= range.max;  // false for NaN; the ranges are finite
}

auto domain_checked(MetricId id, double value, DomainTally& tally) -> double {
  if (std::isnan(value) || in_domain(id, value)) return value;
  tally.add(id);
  return kUnknown;
}

auto check_domain(RawSample& sample, DomainTally& tally) -> std::uint64_t {
  const std::uint64_t before = tally.total();
  for (std::size_t i = 0; i < sample.values.size(); ++i) {
    sample.values[i] = domain_checked(static_cast<MetricId>(i), sample.values[i], tally);
  }
  return tally.total() - before;
}

}  // namespace solscope::core
