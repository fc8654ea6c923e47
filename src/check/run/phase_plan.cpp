#include "check/run/phase_plan.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

namespace solscope::app {
namespace {

/// The longest single sleep of system_check_clock(): how soon a stop request is seen.
constexpr std::int64_t kSleepStepNs = 50'000'000;

auto realtime_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

auto skip_reason(const check::KernelSpec& kernel, const check::DeviceFacts& device) -> std::string {
  const int cc = device.compute_capability;
  if (cc < kernel.min_compute_capability || cc > kernel.max_compute_capability) {
    return fmt::format("{}: not run: needs compute capability {} to {} (this GPU: {})", kernel.name,
                       kernel.min_compute_capability, kernel.max_compute_capability, cc);
  }
  if (kernel.phase == check::PhaseKind::Fp64)
    return fmt::format("{}: not run: no fast FP64 pipe", kernel.name);
  return fmt::format("{}: not run on this GPU", kernel.name);
}

}  // namespace

auto system_check_clock() -> CheckClock {
  return CheckClock{.now_ns = realtime_ns, .sleep_ns = [](std::int64_t ns, const std::atomic<bool>& stop) {
                      const std::int64_t end = realtime_ns() + ns;
                      for (std::int64_t left = ns; left > 0 && !stop.load(); left = end - realtime_ns()) {
                        std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(left, kSleepStepNs)));
                      }
                    }};
}

auto plan_phases(const CheckCatalog& catalog, const check::DeviceFacts& device, std::int64_t launch_target_ns)
    -> PhasePlan {
  PhasePlan plan;
  if (catalog.idle != nullptr) plan.phases.push_back(PlannedPhase{.kernel = catalog.idle, .shape = {}});
  for (const check::KernelSpec& kernel : catalog.kernels) {
    if (!catalog.runs_on(kernel, device)) {
      plan.skipped.push_back(skip_reason(kernel, device));
      continue;
    }
    PlannedPhase phase{.kernel = &kernel, .shape = {}};
    if (kernel.phase != check::PhaseKind::Idle) phase.shape = catalog.shape(kernel, device, launch_target_ns);
    plan.phases.push_back(phase);
  }
  return plan;
}

auto run_phases(check::KernelRunner& runner, std::span<const PlannedPhase> phases, std::int64_t phase_ns,
                std::int64_t gap_ns, const CheckClock& clock, const std::atomic<bool>& stop)
    -> std::vector<PhaseRun> {
  std::vector<PhaseRun> runs;
  for (const PlannedPhase& phase : phases) {
    if (stop.load()) break;
    clock.sleep_ns(gap_ns, stop);
    if (phase.kernel->phase == check::PhaseKind::Idle) {
      check::RunResult idle;
      idle.wall_start_ns = clock.now_ns();
      clock.sleep_ns(phase_ns, stop);
      idle.wall_end_ns = clock.now_ns();
      idle.gpu_elapsed_ns = idle.wall_end_ns - idle.wall_start_ns;
      runs.push_back(PhaseRun{phase, idle});
      continue;
    }
    runs.push_back(PhaseRun{phase, runner.run(*phase.kernel, phase.shape, phase_ns, &stop)});
  }
  return runs;
}

}  // namespace solscope::app
