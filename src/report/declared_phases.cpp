// PhaseJudge (declared_phases.hpp): the figures of each declared phase and the comparisons it asks for.
#include "report/declared_phases.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/enum_table.hpp"
#include "core/metric_id.hpp"
#include "core/units.hpp"

namespace solscope::report {
namespace {

auto figure_of(const core::SolSample& means, PhaseFigure figure) -> double {
  switch (figure) {
    case PhaseFigure::ComputeSol:
      return means.compute_sol_pct;
    case PhaseFigure::MemorySol:
      return means.memory_sol_pct;
    case PhaseFigure::GpuUtil:
      return means.gpu_util_pct();
    case PhaseFigure::SmActive:
      return means.sm_active_pct();
    case PhaseFigure::kCount:
      break;
  }
  return core::kUnknown;
}

auto pct_text(double v) -> std::string {
  return std::isnan(v) ? "n/a" : fmt::format("{:.1f}%", v);
}
auto rate_text(double v) -> std::string {
  return std::isnan(v) ? "n/a" : fmt::format("{:.3g}", v);
}

/// A name check: the expected name against the measured one (unknown = no data).
template <typename T>
auto name_check(std::string what, T expected, T measured, T unknown) -> PhaseCheck {
  PhaseCheck check{std::move(what), std::string(core::to_string(expected)), "n/a", Verdict::NoData};
  if (measured == unknown) return check;
  check.measured = std::string(core::to_string(measured));
  check.result = measured == expected ? Verdict::Pass : Verdict::Fail;
  return check;
}

auto limit_check(const FigureLimit& limit, const core::SolSample& means) -> PhaseCheck {
  const double measured = figure_of(means, limit.figure);
  PhaseCheck check{std::string(to_string(limit.figure)),
                   fmt::format("{} {:.1f}%", limit.is_min ? ">=" : "<=", limit.limit_pct), pct_text(measured),
                   Verdict::NoData};
  if (std::isnan(measured)) return check;
  const bool inside = limit.is_min ? measured >= limit.limit_pct : measured <= limit.limit_pct;
  check.result = inside ? Verdict::Pass : Verdict::Fail;
  return check;
}

/// solscope's figure of a rate against the workload's own: within tolerance_pct of the achieved figure.
auto rate_check(std::string what, double achieved, double measured, double tolerance_pct, bool can_measure,
                const std::string& why_not) -> PhaseCheck {
  PhaseCheck check{std::move(what), fmt::format("{} ±{:.0f}%", rate_text(achieved), tolerance_pct),
                   rate_text(measured), Verdict::NoData};
  if (!can_measure) {
    check.measured = why_not;
    check.result = Verdict::Skip;
    return check;
  }
  if (std::isnan(measured)) return check;
  const double off_pct = std::abs(measured / achieved - 1.0) * core::kPercent;
  check.measured += fmt::format(" ({:+.1f}%)", (measured / achieved - 1.0) * core::kPercent);
  check.result = off_pct <= tolerance_pct ? Verdict::Pass : Verdict::Fail;
  return check;
}

/// The worst verdict of a phase's checks: Fail > NoData > Pass; Info when nothing was checked.
auto worst_of(const std::vector<PhaseCheck>& checks) -> Verdict {
  Verdict worst = Verdict::Info;
  for (const auto& check : checks) {
    if (check.result == Verdict::Skip) continue;
    if (worst == Verdict::Info || static_cast<int>(check.result) > static_cast<int>(worst))
      worst = check.result;
  }
  return worst;
}

}  // namespace

constexpr core::EnumNames<Verdict, 5> kVerdictNames({"PASS", "INFO", "SKIP", "NO DATA", "FAIL"}, "FAIL");

auto to_string(Verdict verdict) -> std::string_view {
  return kVerdictNames(verdict);
}

PhaseJudge::PhaseJudge(DeclaredPhases declared, std::uint32_t device, TensorPeak tensor_peak,
                       std::int64_t edge_ns)
    : declared_(std::move(declared)),
      device_(device),
      tensor_peak_(std::move(tensor_peak)),
      edge_ns_(edge_ns),
      lanes_(declared_.phases.size()) {}

void PhaseJudge::add(const core::SolSample& sample) {
  if (sample.device_index != device_) return;
  for (std::size_t i = 0; i < declared_.phases.size(); ++i) {
    const DeclaredPhase& phase = declared_.phases[i];
    if (sample.t_start_ns < phase.start_ns + edge_ns_ || sample.t_end_ns > phase.end_ns - edge_ns_) continue;
    lanes_[i].means.add(sample);
    lanes_[i].bound_ns[bound_slot(sample.bound)] += std::max<std::int64_t>(sample.duration_ns(), 1);
  }
}

void PhaseJudge::add(const core::KernelRecord& kernel) {
  if (kernel.device != device_) return;
  for (std::size_t i = 0; i < declared_.phases.size(); ++i) {
    const DeclaredPhase& phase = declared_.phases[i];
    const std::int64_t inside =
        std::min(phase.end_ns, kernel.end_ns) - std::max(phase.start_ns, kernel.start_ns);
    if (inside <= 0) continue;
    auto& time = lanes_[i].kernels[kernel.name];
    time.inside_ns += inside;
    if (kernel.start_ns >= phase.start_ns && kernel.start_ns < phase.end_ns) ++time.calls;
  }
}

auto PhaseJudge::judge(const DeclaredPhase& phase, const Lane& lane) const -> PhaseOutcome {
  PhaseOutcome out{.phase = phase, .samples = lane.means.count(), .means = lane.means.result()};
  const auto longest = std::max_element(lane.bound_ns.begin(), lane.bound_ns.end());
  if (*longest > 0) out.bound = kBoundOrder[static_cast<std::size_t>(longest - lane.bound_ns.begin())];
  const double tensor_pct = out.means.pipe_pct[static_cast<std::size_t>(core::Pipe::Tensor)];
  const double clock_mhz = out.means.metric(core::MetricId::SmClockMhz);
  const double peak = tensor_peak_ ? tensor_peak_(clock_mhz) : core::kUnknown;
  out.implied_flop_per_s = tensor_pct / core::kPercent * peak;
  const auto top =
      std::max_element(lane.kernels.begin(), lane.kernels.end(),
                       [](const auto& a, const auto& b) { return a.second.inside_ns < b.second.inside_ns; });
  if (top != lane.kernels.end()) {
    const double length_ns = static_cast<double>(phase.end_ns - phase.start_ns);
    out.kernel =
        PhaseKernel{.name = top->first,
                    .calls = top->second.calls,
                    .busy_pct = static_cast<double>(top->second.inside_ns) / length_ns * core::kPercent};
  }
  if (phase.bound) out.checks.push_back(name_check("bound", *phase.bound, out.bound, core::Bound::Unknown));
  if (phase.compute_pipe) {
    out.checks.push_back(
        name_check("compute_pipe", *phase.compute_pipe, out.means.compute_pipe, core::Pipe::kCount));
  }
  if (phase.memory_path) {
    out.checks.push_back(
        name_check("memory_path", *phase.memory_path, out.means.memory_path, core::MemPath::kCount));
  }
  for (const auto& limit : phase.limits) out.checks.push_back(limit_check(limit, out.means));
  if (!std::isnan(phase.achieved.flop_per_s)) {
    const bool known_peak = !std::isnan(peak) && peak > 0.0;
    out.checks.push_back(rate_check("flop_per_s", phase.achieved.flop_per_s, out.implied_flop_per_s,
                                    phase.achieved.tolerance_pct, known_peak || std::isnan(clock_mhz),
                                    "no BF16 peak known for this GPU"));
  }
  if (!std::isnan(phase.achieved.dram_bytes_per_s)) {
    out.checks.push_back(rate_check("dram_bytes_per_s", phase.achieved.dram_bytes_per_s,
                                    out.means.dram_bytes_per_s, phase.achieved.tolerance_pct, true, ""));
  }
  if (out.samples == 0) {
    for (auto& check : out.checks) {
      if (check.result != Verdict::Skip) check.result = Verdict::NoData;
    }
  }
  out.result = worst_of(out.checks);
  return out;
}

auto PhaseJudge::finish(std::string file) const -> DeclaredPhaseReport {
  DeclaredPhaseReport report{.file = std::move(file), .device = device_};
  for (std::size_t i = 0; i < declared_.phases.size(); ++i) {
    report.phases.push_back(judge(declared_.phases[i], lanes_[i]));
    const Verdict v = report.phases.back().result;
    if (v == Verdict::Fail || v == Verdict::NoData) report.result = Verdict::Fail;
  }
  return report;
}

}  // namespace solscope::report
