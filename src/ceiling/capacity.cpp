#include "ceiling/capacity.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace solscope::ceiling {
namespace {

/// Points within this fraction of the best throughput count as equal (the lower concurrency wins).
constexpr double kThroughputTie = 0.005;

auto at(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch, const Workload& base,
        ServeTraffic traffic, std::int64_t concurrency) -> core::Result<ServeCeiling> {
  traffic.concurrency = concurrency;
  return evaluate_serving(db, gpu, arch, base, traffic);
}

auto limit_ok(double limit) -> bool {
  return std::isnan(limit) || (std::isfinite(limit) && limit > 0);
}

auto keeps(const ServeCeiling& s, const CapacityLimits& limits) -> bool {
  if (!s.fits) return false;
  if (!std::isnan(limits.max_tpot_s) && !(s.tpot_s <= limits.max_tpot_s)) return false;
  return std::isnan(limits.max_ttft_s) || s.ttft_s <= limits.max_ttft_s;
}

/// Geometric grid 1 .. top with `points` values, rounded and deduplicated, both ends kept.
auto grid(std::int64_t top, int points) -> std::vector<std::int64_t> {
  std::vector<std::int64_t> values;
  const double ratio = top > 1 ? std::pow(static_cast<double>(top), 1.0 / (points - 1)) : 1.0;
  for (int i = 0; i < points; ++i) {
    const auto v = std::clamp<std::int64_t>(std::llround(std::pow(ratio, i)), 1, top);
    if (values.empty() || v > values.back()) values.push_back(v);
  }
  if (values.back() != top) values.push_back(top);
  return values;
}

}  // namespace

auto max_fitting_concurrency(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch,
                             const Workload& base, const ServeTraffic& traffic)
    -> core::Result<std::int64_t> {
  auto one = at(db, gpu, arch, base, traffic, 1);
  if (!one) return core::propagate(one);
  if (!one->fits) return std::int64_t{0};
  std::int64_t lo = 1;  // fits
  std::int64_t hi = kMaxBatch;
  auto top = at(db, gpu, arch, base, traffic, hi);
  if (!top) return core::propagate(top);
  if (top->fits) return hi;
  while (hi - lo > 1) {  // lo fits, hi does not
    const std::int64_t mid = lo + (hi - lo) / 2;
    auto s = at(db, gpu, arch, base, traffic, mid);
    if (!s) return core::propagate(s);
    (s->fits ? lo : hi) = mid;
  }
  return lo;
}

auto sweep_concurrency(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch, const Workload& base,
                       const ServeTraffic& traffic, const CapacityLimits& limits, int points)
    -> core::Result<std::vector<SweepPoint>> {
  if (points < 2 || points > kMaxSweepPoints) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "sweep points " + std::to_string(points) + " are out of range",
                      "use 2 to " + std::to_string(kMaxSweepPoints));
  }
  if (!limit_ok(limits.max_tpot_s) || !limit_ok(limits.max_ttft_s)) {
    return core::fail(core::ErrorCode::InvalidArgument, "a latency limit is not a positive number",
                      "give --max-tpot-ms and --max-ttft-ms in milliseconds above 0");
  }
  auto top = max_fitting_concurrency(db, gpu, arch, base, traffic);
  if (!top) return core::propagate(top);
  std::vector<SweepPoint> out;
  for (std::int64_t c : grid(std::max<std::int64_t>(*top, 1), points)) {
    auto s = at(db, gpu, arch, base, traffic, c);
    if (!s) return core::propagate(s);
    const bool ok = keeps(*s, limits);
    out.push_back(SweepPoint{c, std::move(*s), ok});
  }
  return out;
}

auto best_concurrency(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch, const Workload& base,
                      const ServeTraffic& traffic, const CapacityLimits& limits, int points)
    -> core::Result<SweepPoint> {
  auto sweep = sweep_concurrency(db, gpu, arch, base, traffic, limits, points);
  if (!sweep) return core::propagate(sweep);
  double best = -1;
  for (const SweepPoint& p : *sweep) {
    if (p.within_limits) best = std::max(best, p.ceiling.output_tokens_per_s);
  }
  if (best < 0) {
    const SweepPoint& first = sweep->front();
    return core::fail(core::ErrorCode::NotFound,
                      "no concurrency keeps the limits: at 1 request TPOT is " +
                          std::to_string(first.ceiling.tpot_s * 1e3) + " ms and TTFT " +
                          std::to_string(first.ceiling.ttft_s * 1e3) + " ms" +
                          (first.ceiling.fits ? "" : ", and one request does not fit in memory"),
                      "relax --max-tpot-ms / --max-ttft-ms, or raise --tp");
  }
  for (SweepPoint& p : *sweep) {
    if (p.within_limits && p.ceiling.output_tokens_per_s >= best * (1 - kThroughputTie)) return std::move(p);
  }
  return core::fail(core::ErrorCode::Internal, "the best sweep point vanished", "");
}

}  // namespace solscope::ceiling
