// The JSON and text forms of a DeclaredPhaseReport (declared_phases_present.hpp; docs/report.md).
#include "report/declared_phases_present.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/metric_id.hpp"
#include "wire/json_number.hpp"

namespace solscope::report {
namespace {

using nlohmann::ordered_json;

template <typename T>
auto name_or_null(T value, T unknown) -> ordered_json {
  return value == unknown ? ordered_json(nullptr) : ordered_json(std::string(core::to_string(value)));
}

auto figures_json(const PhaseOutcome& p) -> ordered_json {
  const core::SolSample& m = p.means;
  auto pipe = [&m](core::Pipe id) { return wire::number_or_null(m.pipe_pct[static_cast<std::size_t>(id)]); };
  auto path = [&m](core::MemPath id) {
    return wire::number_or_null(m.path_pct[static_cast<std::size_t>(id)]);
  };
  return ordered_json{{"compute_sol_pct", wire::number_or_null(m.compute_sol_pct)},
                      {"compute_pipe", name_or_null(m.compute_pipe, core::Pipe::kCount)},
                      {"memory_sol_pct", wire::number_or_null(m.memory_sol_pct)},
                      {"memory_path", name_or_null(m.memory_path, core::MemPath::kCount)},
                      {"bound", name_or_null(p.bound, core::Bound::Unknown)},
                      {"gpu_util_pct", wire::number_or_null(m.gpu_util_pct())},
                      {"sm_active_pct", wire::number_or_null(m.sm_active_pct())},
                      {"tensor_pipe_pct", pipe(core::Pipe::Tensor)},
                      {"fma_pipe_pct", pipe(core::Pipe::Fma)},
                      {"dram_pct", path(core::MemPath::Dram)},
                      {"l2_pct", path(core::MemPath::L2)},
                      {"dram_bytes_per_s", wire::number_or_null(m.dram_bytes_per_s)},
                      {"sm_clock_mhz", wire::number_or_null(m.metric(core::MetricId::SmClockMhz))},
                      {"implied_flop_per_s", wire::number_or_null(p.implied_flop_per_s)}};
}

auto kernel_json(const PhaseOutcome& p) -> ordered_json {
  if (!p.kernel) return nullptr;
  const PhaseKernel& k = *p.kernel;
  return ordered_json{{"name", k.name},
                      {"calls", k.calls},
                      {"busy_pct", wire::number_or_null(k.busy_pct)},
                      {"compute_sol_pct", wire::number_or_null(k.compute_sol_pct)},
                      {"compute_pipe", name_or_null(k.compute_pipe, core::Pipe::kCount)},
                      {"memory_sol_pct", wire::number_or_null(k.memory_sol_pct)},
                      {"memory_path", name_or_null(k.memory_path, core::MemPath::kCount)}};
}

auto phase_json(const PhaseOutcome& p) -> ordered_json {
  ordered_json checks = ordered_json::array();
  for (const auto& c : p.checks) {
    checks.push_back({{"what", c.what},
                      {"expected", c.expected},
                      {"measured", c.measured},
                      {"result", std::string(to_string(c.result))}});
  }
  return ordered_json{{"name", p.phase.name},
                      {"start_ns", p.phase.start_ns},
                      {"end_ns", p.phase.end_ns},
                      {"samples", p.samples},
                      {"result", std::string(to_string(p.result))},
                      {"figures", figures_json(p)},
                      {"kernel", kernel_json(p)},
                      {"checks", std::move(checks)}};
}

}  // namespace

auto declared_phases_json(const DeclaredPhaseReport& report) -> nlohmann::ordered_json {
  ordered_json phases = ordered_json::array();
  for (const auto& p : report.phases) phases.push_back(phase_json(p));
  return ordered_json{{"file", report.file},
                      {"device", report.device},
                      {"result", std::string(to_string(report.result))},
                      {"phases", std::move(phases)}};
}

auto render_declared_phases(const DeclaredPhaseReport& report) -> std::string {
  std::string out = fmt::format("\nDeclared phases ({}) on GPU {}: {}\n", report.file, report.device,
                                to_string(report.result));
  out += fmt::format("  {:<24} {:>7} {:>8} {:>8} {:<8}  {}\n", "phase", "samples", "compute", "memory",
                     "bound", "checks");
  for (const auto& p : report.phases) {
    auto pct = [](double v) { return std::isnan(v) ? std::string("n/a") : fmt::format("{:.1f}%", v); };
    out += fmt::format("  {:<24} {:>7} {:>8} {:>8} {:<8}  {}\n", p.phase.name, p.samples,
                       pct(p.means.compute_sol_pct), pct(p.means.memory_sol_pct), core::to_string(p.bound),
                       to_string(p.result));
    for (const auto& c : p.checks) {
      out += fmt::format("      {:<7} {:<18} expected {:<16} measured {}\n", to_string(c.result), c.what,
                         c.expected, c.measured);
    }
    if (p.kernel) {
      out += fmt::format("      kernel  {} ({} calls, {:.0f}% of the phase)\n", p.kernel->name.substr(0, 60),
                         p.kernel->calls, p.kernel->busy_pct);
    }
  }
  return out;
}

}  // namespace solscope::report
