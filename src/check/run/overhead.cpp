#include "check/run/detail/overhead.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "check/run/detail/sample_collector.hpp"
#include "core/units.hpp"

namespace solscope::app {
namespace {

/// Sums of one kernel at one setting.
struct Tally {
  int runs = 0;
  double launches_per_s = 0.0;
  int clock_runs = 0;
  double clock_mhz = 0.0;
};

/// The mean SM clock of the NVML reads taken during a run: NVML figures are read when a sample ends, so a
/// sample counts when its end lies inside the run (NaN when none does).
auto clock_during(std::span<const core::RawSample> samples, std::uint32_t device, const check::RunResult& run)
    -> double {
  double sum = 0.0;
  int reads = 0;
  for (const core::RawSample& s : samples) {
    const double mhz = s.value(core::MetricId::SmClockMhz);
    if (s.device_index != device || std::isnan(mhz) || s.t_end_ns < run.wall_start_ns ||
        s.t_end_ns > run.wall_end_ns) {
      continue;
    }
    sum += mhz;
    ++reads;
  }
  return reads > 0 ? sum / reads : core::kUnknown;
}

struct OneRun {
  double launches_per_s = 0.0;
  double clock_mhz = core::kUnknown;
  core::SourceKind source = core::SourceKind::None;
};

auto run_once(check::KernelRunner& runner, const PlannedPhase& phase, const core::DeviceInfo& device,
              const SourceStarter& start_source, std::int64_t interval_ns, const OverheadOptions& options,
              const std::atomic<bool>& stop) -> core::Result<OneRun> {
  sources::SourceConfig config;
  config.devices = {device.index};
  config.interval_ns =
      interval_ns == 0 ? std::max(options.run_ns / 2, core::kMinSampleIntervalNs) : interval_ns;
  config.best_source = interval_ns == 0 ? core::SourceKind::NvmlOnly : options.best_source;
  auto source = start_source(config);
  if (!source) return core::propagate(std::move(source));
  OneRun out;
  out.source = (*source)->status(device.index).source;
  SampleCollector collector(**source, std::max(config.interval_ns, options.poll_interval_floor_ns));
  collector.start();
  auto run = runner.run(*phase.kernel, phase.shape, options.run_ns, &stop);
  auto samples = collector.finish();
  (*source)->stop();
  if (!run) return core::propagate(std::move(run));
  if (run->launches == 0 || run->gpu_elapsed_ns <= 0) {
    return core::fail(core::ErrorCode::Internal, "the runner reported no launches or no GPU time");
  }
  out.launches_per_s = static_cast<double>(run->launches) / (static_cast<double>(run->gpu_elapsed_ns) * 1e-9);
  if (samples) out.clock_mhz = clock_during(*samples, device.index, *run);
  return out;
}

}  // namespace

auto overhead_setting_name(std::int64_t interval_ns) -> std::string {
  return interval_ns == 0 ? "off" : fmt::format("{} ms", interval_ns / 1'000'000);
}

auto measure_overhead(check::KernelRunner& runner, std::span<const PlannedPhase> phases,
                      const core::DeviceInfo& device, const SourceStarter& start_source,
                      const OverheadOptions& options, const std::atomic<bool>& stop,
                      std::vector<std::string>& notes) -> OverheadCheck {
  std::vector<const PlannedPhase*> kernels;
  for (const PlannedPhase& p : phases) {
    const auto kind = p.kernel->phase;
    if (kind == check::PhaseKind::Fma || kind == check::PhaseKind::DramCopy) kernels.push_back(&p);
  }
  OverheadCheck out{.device = device.index, .source = core::SourceKind::None, .rows = {}};
  std::map<std::pair<std::size_t, std::int64_t>, Tally> tallies;
  for (int rep = 0; rep < options.repetitions && !stop.load(); ++rep) {
    for (const std::int64_t interval : kOverheadIntervalsNs) {
      for (std::size_t k = 0; k < kernels.size() && !stop.load(); ++k) {
        auto one = run_once(runner, *kernels[k], device, start_source, interval, options, stop);
        if (!one) {
          notes.push_back(fmt::format("GPU {}: overhead run {} at sampling {} left out: {}", device.index,
                                      kernels[k]->kernel->name, overhead_setting_name(interval),
                                      one.error().describe()));
          continue;
        }
        if (interval != 0 && out.source == core::SourceKind::None) out.source = one->source;
        Tally& t = tallies[{k, interval}];
        ++t.runs;
        t.launches_per_s += one->launches_per_s;
        if (!std::isnan(one->clock_mhz)) {
          ++t.clock_runs;
          t.clock_mhz += one->clock_mhz;
        }
      }
    }
  }
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const auto off = tallies.find({k, 0});
    const double off_lps =
        off != tallies.end() && off->second.runs > 0 ? off->second.launches_per_s / off->second.runs : 0.0;
    for (const std::int64_t interval : kOverheadIntervalsNs) {
      const auto it = tallies.find({k, interval});
      if (it == tallies.end() || it->second.runs == 0) continue;
      const Tally& t = it->second;
      const double lps = t.launches_per_s / t.runs;
      out.rows.push_back(
          OverheadRow{.kernel = std::string(kernels[k]->kernel->name),
                      .interval_ns = interval,
                      .repetitions = t.runs,
                      .launches_per_s = lps,
                      .ratio = off_lps > 0.0 ? lps / off_lps : core::kUnknown,
                      .sm_clock_mhz = t.clock_runs > 0 ? t.clock_mhz / t.clock_runs : core::kUnknown});
    }
  }
  return out;
}

}  // namespace solscope::app
