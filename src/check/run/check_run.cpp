#include "check/run/check_run.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "check/run/detail/phase_checks.hpp"
#include "check/run/detail/sample_collector.hpp"
#include "core/derive.hpp"
#include "runtime/messages.hpp"
#include "trace/writer.hpp"

namespace solscope::app {
namespace {

/// The GPUs to check: the probe's, or the --devices ones (each must exist).
auto select_devices(const GpuProbe& probe, const std::vector<std::uint32_t>& wanted)
    -> Outcome<std::vector<GpuProbeDevice>> {
  if (wanted.empty()) return probe.devices;
  std::vector<GpuProbeDevice> out;
  for (const std::uint32_t index : wanted) {
    const auto it = std::find_if(probe.devices.begin(), probe.devices.end(),
                                 [index](const GpuProbeDevice& d) { return d.info.index == index; });
    if (it == probe.devices.end()) {
      return core::fail(Failure{
          core::Error{core::ErrorCode::InvalidArgument, fmt::format("GPU {} does not exist", index),
                      fmt::format("this machine has {} GPU(s); pick with --devices", probe.devices.size())},
          kExitUsage});
    }
    out.push_back(*it);
  }
  return out;
}

/// Writes one pass's samples to the -o trace; the first error stops the writing (noted once).
class TraceKeeper {
 public:
  explicit TraceKeeper(trace::Writer* writer) : writer_(writer) {}
  void keep(const core::DeviceInfo& info, std::span<const core::RawSample> samples,
            std::vector<std::string>& notes) {
    if (writer_ == nullptr || failed_) return;
    auto ok = writer_->write_devices(std::span<const core::DeviceInfo>(&info, 1));
    for (std::size_t i = 0; ok && i < samples.size(); ++i)
      ok = writer_->append(samples[i], core::derive(samples[i], info));
    if (!ok) {
      failed_ = true;
      notes.push_back("the trace stopped: " + ok.error().describe());
    }
  }

 private:
  trace::Writer* writer_;
  bool failed_ = false;
};

struct Session {
  const CheckOptions& options;
  const CheckDeps& deps;
  const std::atomic<bool>& stop;
  std::ostream& err;
  CheckReport report;
  TraceKeeper trace;
  std::optional<Failure> first_failure;

  void remember(const core::Error& error, int exit_code) {
    if (!first_failure) first_failure = Failure{error, exit_code};
  }
  void note(std::string text) {
    print_note(err, text);
    report.notes.push_back(std::move(text));
  }

  /// One source's pass over every phase; nullopt when the source could not be had (noted).
  /// `chip` and `facts.chip` (a view of it) take the chip name a source reports (PM sampling names it), so
  /// that later passes have it too.
  auto run_pass(check::KernelRunner& runner, check::DeviceFacts& facts, std::string& chip,
                const PhasePlan& plan, const GpuProbeDevice& device, core::SourceKind kind)
      -> std::optional<SourceCheck> {
    const std::uint32_t index = device.info.index;
    sources::SourceConfig config;
    config.interval_ns = options.interval_ns;
    config.devices = {index};
    config.best_source = kind;
    auto source = deps.start_source(config);
    if (!source) {
      note(fmt::format("GPU {}: {} checks not run: {}", index, core::to_string(kind),
                       source.error().describe()));
      remember(source.error(), exit_code_for_source_error(source.error()));
      return std::nullopt;
    }
    const sources::DeviceStatus status = (*source)->status(index);
    if (status.source != kind) {
      std::string why = status.reason.empty() ? "" : ": " + status.reason;
      if (!status.hint.empty()) why += ". Needs: " + status.hint;
      note(fmt::format("GPU {}: {} checks not run{}", index, core::to_string(kind), why));
      if (!options.single_source || status.source == core::SourceKind::None) {
        (*source)->stop();
        return std::nullopt;
      }
    }
    core::DeviceInfo info = device.info;
    for (const auto& d : (*source)->devices()) {
      if (d.index == index) info = d;
    }
    if (!info.chip.empty() && info.chip != chip) {
      chip = info.chip;
      facts.chip = chip;
    }
    print_note(err, fmt::format("GPU {}: checking {} phase(s) with {} ...", index, plan.phases.size(),
                                core::to_string(status.source)));
    SampleCollector collector(**source, options.poll_interval_ns);
    collector.start();
    const auto runs = run_phases(runner, plan.phases, options.phase_ns, options.gap_ns, deps.clock, stop);
    auto samples = collector.finish();
    (*source)->stop();
    if (!samples) {
      note(fmt::format("GPU {}: sampling with {} failed: {}", index, core::to_string(status.source),
                       samples.error().describe()));
      remember(samples.error(), kExitFailure);
      return std::nullopt;
    }
    trace.keep(info, *samples, report.notes);
    return check_phases(deps.catalog, facts, info, status.source, runs, *samples);
  }

  void check_device(const GpuProbeDevice& device) {
    const std::uint32_t index = device.info.index;
    if (device.mig_enabled) {
      note(
          fmt::format("GPU {}: not checked: MIG is enabled, so kernels run only inside an instance while the "
                      "counter sources read the whole GPU, and PM sampling is off. Needs: disable MIG (sudo "
                      "nvidia-smi -i {} -mig 0), or check a GPU without MIG",
                      index, index));
      return;
    }
    std::string chip = device.info.chip;
    auto runner = deps.make_runner(device.info);
    if (runner) {
      if (auto loaded = (*runner)->load(deps.catalog.kernels); !loaded)
        runner = core::propagate(std::move(loaded));
    }
    if (!runner) {
      note(fmt::format("GPU {}: not checked: {}", index, runner.error().describe()));
      remember(runner.error(), exit_code_for_source_error(runner.error()));
      return;
    }
    check::DeviceFacts facts = (*runner)->device();
    // What the runner leaves unknown comes from NVML (the probe); the strings live here, facts views them.
    if (!facts.chip.empty()) chip = std::string(facts.chip);
    facts.chip = chip;
    const std::string name = facts.name.empty() ? device.info.name : std::string(facts.name);
    facts.name = name;
    if (!(facts.max_sm_clock_mhz > 0.0) && device.info.max_sm_clock_mhz > 0.0) {
      facts.max_sm_clock_mhz = device.info.max_sm_clock_mhz;
    }
    if (!(facts.dram_peak_bytes_per_s > 0.0) && device.info.dram_peak_bytes_per_s > 0.0) {
      facts.dram_peak_bytes_per_s = device.info.dram_peak_bytes_per_s;
    }
    const PhasePlan plan = plan_phases(deps.catalog, facts, options.launch_target_ns);
    for (const auto& skipped : plan.skipped)
      report.notes.push_back(fmt::format("GPU {}: {}", index, skipped));
    for (const core::SourceKind kind : options.sources) {
      if (stop.load()) return;
      if (auto pass = run_pass(**runner, facts, chip, plan, device, kind))
        report.checks.push_back(std::move(*pass));
    }
    if (options.overhead && !stop.load()) {
      print_note(err, fmt::format("GPU {}: measuring the sampling overhead ...", index));
      OverheadOptions overhead = options.overhead_options;
      overhead.best_source = options.single_source ? options.sources.front() : core::SourceKind::PmSampling;
      report.overhead.push_back(measure_overhead(**runner, plan.phases, device.info, deps.start_source,
                                                 overhead, stop, report.notes));
    }
  }
};

}  // namespace

auto run_check(const CheckOptions& options, const CheckDeps& deps, const std::atomic<bool>& stop,
               std::ostream& err) -> Outcome<CheckReport> {
  auto probe = deps.probe();
  if (!probe) return core::fail(Failure{probe.error(), exit_code_for_source_error(probe.error())});
  auto devices = select_devices(*probe, options.devices);
  if (!devices) return core::fail(std::move(devices.error()));
  if (!deps.make_runner) {
    return core::fail(Failure{
        core::Error{core::ErrorCode::Unimplemented, "this solscope build cannot run the calibration kernels",
                    "use a build with the NVIDIA backend"},
        kExitNoGpu});
  }
  Session session{options, deps, stop, err, {}, TraceKeeper(deps.writer), std::nullopt};
  session.report.profiling_denied = probe->profiling_allowed == "no";
  for (const GpuProbeDevice& device : *devices) {
    if (stop.load()) break;
    session.check_device(device);
  }
  if (session.report.checks.empty() && !stop.load()) {
    if (session.first_failure) return core::fail(*session.first_failure);
    return core::fail(Failure{
        core::Error{core::ErrorCode::FailedPrecondition, "no GPU could be checked", "see the notes above"},
        kExitFailure});
  }
  return std::move(session.report);
}

auto check_exit_code(const CheckReport& report) -> int {
  if (all_passed(report)) return kExitOk;
  const bool any_row = std::any_of(report.checks.begin(), report.checks.end(),
                                   [](const SourceCheck& c) { return !c.rows.empty(); });
  if (!any_row && report.profiling_denied) return kExitPermission;
  return kExitCheckFailed;
}

}  // namespace solscope::app
