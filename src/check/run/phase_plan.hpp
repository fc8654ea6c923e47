// The calibration phases of `solscope check` on one GPU, in kernel_specs() order, and the loop that runs
// them with an idle gap between phases.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "check/kernel_runner.hpp"
#include "check/kernels.hpp"
#include "core/result.hpp"

namespace solscope::app {

/// The kernel catalog the check uses: src/check's (default_check_catalog()) or a test's.
struct CheckCatalog {
  std::span<const check::KernelSpec> kernels;  ///< every kernel, in phase order (idle not among them)
  const check::KernelSpec* idle = nullptr;     ///< the idle phase, run first; null: none
  std::function<bool(const check::KernelSpec&, const check::DeviceFacts&)> runs_on;
  std::function<check::LaunchShape(const check::KernelSpec&, const check::DeviceFacts&, std::int64_t)> shape;
  std::function<core::Result<std::vector<check::ExpectedFigure>>(
      const check::KernelSpec&, const check::DeviceFacts&, const check::PhaseMeasurement&)>
      expected;
};

/// src/check's kernel_specs(), launch_shape() and expected_figures().
[[nodiscard]] auto default_check_catalog() -> CheckCatalog;

/// The wall clock of the check: CLOCK_REALTIME ns (the samples' clock) and a sleep that a stop request
/// cuts short. Tests give a fake one.
struct CheckClock {
  std::function<std::int64_t()> now_ns;
  std::function<void(std::int64_t ns, const std::atomic<bool>& stop)> sleep_ns;
};

/// CLOCK_REALTIME and a sleep in steps of at most 50 ms that returns early once `stop` is set.
[[nodiscard]] auto system_check_clock() -> CheckClock;

/// One phase to run.
struct PlannedPhase {
  const check::KernelSpec* kernel = nullptr;
  check::LaunchShape shape;  ///< none for Idle
};

/// The phases `device` can run, in catalog order, and the kernels it cannot (with why).
struct PhasePlan {
  std::vector<PlannedPhase> phases;
  std::vector<std::string> skipped;  ///< "wgmma: not run: needs compute capability 90 to 90 (this GPU: 80)"
};

/// Plans the phases: idle first, then every kernel that runs on the device (catalog.runs_on), shaped for
/// launches of about `launch_target_ns`.
[[nodiscard]] auto plan_phases(const CheckCatalog& catalog, const check::DeviceFacts& device,
                               std::int64_t launch_target_ns) -> PhasePlan;

/// What one phase did: the runner's result (Idle: no launches, the wall times of the wait), or its error.
struct PhaseRun {
  PlannedPhase planned;
  core::Result<check::RunResult> run;
};

/// Runs every phase for about `phase_ns`, waiting `gap_ns` before each (idle between phases), until `stop`.
/// A phase whose runner call fails (Aborted: a kernel fault) keeps its error; the next phases still run.
[[nodiscard]] auto run_phases(check::KernelRunner& runner, std::span<const PlannedPhase> phases,
                              std::int64_t phase_ns, std::int64_t gap_ns, const CheckClock& clock,
                              const std::atomic<bool>& stop) -> std::vector<PhaseRun>;

}  // namespace solscope::app
