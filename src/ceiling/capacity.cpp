#include "ceiling/capacity.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/units.hpp"

namespace solscope::ceiling {
namespace {

auto at(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch, const Workload& base,
        ServeTraffic traffic, std::int64_t concurrency) -> core::Result<ServeCeiling> {
  traffic.concurrency = concurrency;
  return evaluate_serving(db, gpu, arch, base, traffic);
}

auto limit_ok(double limit_s) -> bool {
  return std::isnan(limit_s) || (limit_s >= kMinLatencyLimitS && limit_s <= kMaxLatencyLimitS);
}

auto keeps(const ServeCeiling& s, const CapacityLimits& limits) -> bool {
  if (!s.fits) return false;
  if (!std::isnan(limits.max_tpot_s) && !(s.tpot_s <= limits.max_tpot_s)) return false;
  return std::isnan(limits.max_ttft_s) || s.ttft_s <= limits.max_ttft_s;
}

/// The NotFound of best_point(): why no point qualifies, with the tightest figures the sweep reached.
auto nothing_qualifies(std::span<const SweepPoint> sweep, const CapacityLimits& limits) -> core::Error {
  const SweepPoint* tpot = nullptr;
  const SweepPoint* ttft = nullptr;
  for (const SweepPoint& p : sweep) {
    if (!p.ceiling.fits) continue;
    if (tpot == nullptr || p.ceiling.tpot_s < tpot->ceiling.tpot_s) tpot = &p;
    if (ttft == nullptr || p.ceiling.ttft_s < ttft->ceiling.ttft_s) ttft = &p;
  }
  if (tpot == nullptr) {
    std::string why = "one request does not fit in memory";
    for (const std::string& note : sweep.front().ceiling.notes) {
      if (note.starts_with(kDoesNotFitNote)) why += " (" + note + ")";
    }
    return core::Error{core::ErrorCode::NotFound, "no concurrency fits: " + why,
                       "raise --tp, --ep or --pp, lower --isl/--osl, or pick a larger GPU"};
  }
  const std::string tpot_text = std::isfinite(tpot->ceiling.tpot_s)
                                    ? fmt::format("{:.2f} ms", tpot->ceiling.tpot_s * core::kKilo)
                                    : "n/a";
  return core::Error{
      core::ErrorCode::NotFound,
      fmt::format("no concurrency from 1 to {} keeps {}: the lowest TPOT is {} (concurrency {}), the lowest "
                  "TTFT {:.1f} ms (concurrency {})",
                  sweep.back().concurrency, limits_text(limits), tpot_text, tpot->concurrency,
                  ttft->ceiling.ttft_s * core::kKilo, ttft->concurrency),
      "relax --max-tpot-ms / --max-ttft-ms, or raise --tp"};
}

}  // namespace

auto limits_text(const CapacityLimits& limits) -> std::string {
  std::string out;
  if (!std::isnan(limits.max_tpot_s)) out = fmt::format("TPOT <= {:g} ms", limits.max_tpot_s * core::kKilo);
  if (!std::isnan(limits.max_ttft_s)) {
    out += fmt::format("{}TTFT <= {:g} ms", out.empty() ? "" : " and ", limits.max_ttft_s * core::kKilo);
  }
  return out;
}

auto output_tokens_per_s_per_gpu(const ServeCeiling& s) -> double {
  return s.output_tokens_per_s / std::max(1, s.prefill_step.gpus);
}

auto tokens_per_s_per_user(const ServeCeiling& s) -> double {
  return std::isfinite(s.tpot_s) && s.tpot_s > 0 ? 1.0 / s.tpot_s : std::numeric_limits<double>::quiet_NaN();
}

auto concurrency_grid(std::int64_t top, int points) -> std::vector<std::int64_t> {
  if (top <= 1) return {1};
  const auto n = static_cast<std::int64_t>(std::min<std::int64_t>(std::max(points, 2), top));
  std::vector<std::int64_t> values;
  values.reserve(static_cast<std::size_t>(n));
  const double log_top = std::log(static_cast<double>(top));
  for (std::int64_t i = 0; i < n; ++i) {
    const double share = static_cast<double>(i) / static_cast<double>(n - 1);
    const std::int64_t ideal = std::llround(std::exp(log_top * share));
    const std::int64_t lowest = values.empty() ? 1 : values.back() + 1;
    const std::int64_t highest = top - (n - 1 - i);  // room for the points after this one
    values.push_back(std::clamp(ideal, lowest, highest));
  }
  return values;
}

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
  if (points < kMinSweepPoints || points > kMaxSweepPoints) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      fmt::format("sweep points {} are out of range", points),
                      fmt::format("use {} to {}", kMinSweepPoints, kMaxSweepPoints));
  }
  if (!limit_ok(limits.max_tpot_s) || !limit_ok(limits.max_ttft_s)) {
    return core::fail(core::ErrorCode::InvalidArgument, "a latency limit is out of range",
                      fmt::format("give --max-tpot-ms and --max-ttft-ms from {:g} to {:g} ms",
                                  kMinLatencyLimitS * core::kKilo, kMaxLatencyLimitS * core::kKilo));
  }
  auto top = max_fitting_concurrency(db, gpu, arch, base, traffic);
  if (!top) return core::propagate(top);
  std::vector<SweepPoint> out;
  for (std::int64_t c : concurrency_grid(*top, points)) {
    auto s = at(db, gpu, arch, base, traffic, c);
    if (!s) return core::propagate(s);
    const bool ok = keeps(*s, limits);
    out.push_back(SweepPoint{c, std::move(*s), ok});
  }
  return out;
}

auto most_output_tokens_per_s(std::span<const SweepPoint> sweep) -> double {
  double most = -1;
  for (const SweepPoint& p : sweep) {
    if (p.within_limits) most = std::max(most, p.ceiling.output_tokens_per_s);
  }
  return most;
}

auto best_point(std::span<const SweepPoint> sweep, const CapacityLimits& limits)
    -> core::Result<std::size_t> {
  if (sweep.empty()) return core::fail(core::ErrorCode::InvalidArgument, "the sweep is empty");
  const double best = most_output_tokens_per_s(sweep);
  if (best < 0) return core::fail(nothing_qualifies(sweep, limits));
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    const SweepPoint& p = sweep[i];
    if (p.within_limits && p.ceiling.output_tokens_per_s >= best * (1 - kThroughputTieFraction)) return i;
  }
  return core::fail(core::ErrorCode::Internal, "the best sweep point vanished");
}

auto best_concurrency(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch, const Workload& base,
                      const ServeTraffic& traffic, const CapacityLimits& limits, int points)
    -> core::Result<SweepPoint> {
  auto sweep = sweep_concurrency(db, gpu, arch, base, traffic, limits, points);
  if (!sweep) return core::propagate(sweep);
  auto best = best_point(*sweep, limits);
  if (!best) return core::propagate(best);
  return std::move((*sweep)[*best]);
}

}  // namespace solscope::ceiling
