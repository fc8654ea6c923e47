#include "check/run/detail/phase_checks.hpp"

#include <set>

#include <fmt/format.h>

#include "check/run/detail/phase_means.hpp"
#include "core/metric_catalog.hpp"

namespace solscope::app {
namespace {

auto window_of(std::uint32_t device, const check::RunResult& run) -> PhaseWindow {
  return PhaseWindow{.device = device, .wall_start_ns = run.wall_start_ns, .wall_end_ns = run.wall_end_ns};
}

/// The runner's and NVML's account of a phase (never a counter of the source under check).
auto measurement_of(const PhaseRun& phase, const check::RunResult& run, const core::DeviceInfo& info,
                    std::span<const core::RawSample> samples) -> check::PhaseMeasurement {
  const PhaseMean clock = phase_mean(samples, window_of(info.index, run), core::MetricId::SmClockMhz);
  return check::PhaseMeasurement{.shape = phase.planned.shape,
                                 .launches = run.launches,
                                 .gpu_elapsed_ns = run.gpu_elapsed_ns,
                                 .sm_clock_mhz = clock.samples > 0 ? clock.value : info.max_sm_clock_mhz,
                                 .dram_peak_bytes_per_s = info.dram_peak_bytes_per_s};
}

auto compare(std::string phase, const check::ExpectedFigure& figure, const PhaseMean& measured) -> CheckRow {
  CheckRow row{.phase = std::move(phase),
               .metric = figure.metric,
               .expected_pct = figure.expected_pct,
               .tolerance_pct = figure.tolerance_pct,
               .bound = figure.bound,
               .measured_pct = measured.value,
               .samples = measured.samples,
               .verdict = CheckVerdict::Pass,
               .note = std::string(figure.basis)};
  if (measured.samples == 0) {
    row.verdict = CheckVerdict::NoData;
  } else if (!check::passes(figure, measured.value)) {
    row.verdict = CheckVerdict::Fail;
  }
  return row;
}

}  // namespace

auto short_metric_name(core::MetricId metric) -> std::string {
  std::string name(core::metric_def(metric).name);
  if (name.ends_with("_pct")) name.resize(name.size() - 4);
  return name;
}

auto check_phases(const CheckCatalog& catalog, const check::DeviceFacts& facts, const core::DeviceInfo& info,
                  core::SourceKind source, std::span<const PhaseRun> runs,
                  std::span<const core::RawSample> samples) -> SourceCheck {
  SourceCheck out{.device = info.index, .device_name = info.name, .source = source, .rows = {}, .notes = {}};
  std::set<std::string> unmeasured;
  for (const PhaseRun& phase : runs) {
    std::string name(phase.planned.kernel->name);
    if (!phase.run) {
      out.rows.push_back(
          CheckRow{.phase = name, .verdict = CheckVerdict::Fault, .note = phase.run.error().describe()});
      continue;
    }
    const check::PhaseMeasurement measured = measurement_of(phase, *phase.run, info, samples);
    auto figures = catalog.expected(*phase.planned.kernel, facts, measured);
    if (!figures) {
      out.notes.push_back(fmt::format("{}: no expected figures: {}", name, figures.error().describe()));
      continue;
    }
    for (const check::ExpectedFigure& figure : *figures) {
      if (!source_measures(samples, info.index, figure.metric)) {
        unmeasured.insert(short_metric_name(figure.metric));
        continue;
      }
      out.rows.push_back(
          compare(name, figure, phase_mean(samples, window_of(info.index, *phase.run), figure.metric)));
    }
  }
  if (!unmeasured.empty()) {
    std::string list;
    for (const auto& m : unmeasured) list += (list.empty() ? "" : ", ") + m;
    out.notes.push_back(fmt::format("not measured by {}: {}", core::to_string(source), list));
  }
  return out;
}

}  // namespace solscope::app
