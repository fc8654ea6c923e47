// The orchestration of `solscope check` (issue 11; docs/accuracy.md "Running it"): per GPU, load the
// calibration kernels, then per counter source run every phase while a sampling thread records, compare
// expected with measured, and measure the sampling overhead. The GPU, the sources and the clock are
// injected, so that the whole of it runs in tests against fakes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string_view>
#include <vector>

#include "check/kernel_runner.hpp"
#include "check/run/detail/check_report.hpp"
#include "check/run/detail/overhead.hpp"
#include "check/run/phase_plan.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/gpu_backend.hpp"

namespace solscope::trace {
class Writer;
}  // namespace solscope::trace

namespace solscope::app {

/// Makes the KernelRunner of one GPU as the probe found it (its index, PCI bus id and chip name): the shape
/// of the vendor glue's make_kernel_runner(). Errors: the driver's (Unavailable without one).
using KernelRunnerFactory =
    std::function<core::Result<std::unique_ptr<check::KernelRunner>>(const core::DeviceInfo& gpu)>;

/// How a check runs.
struct CheckOptions {
  std::int64_t phase_ns = 2'000'000'000;        ///< each phase (--seconds)
  std::int64_t gap_ns = 500'000'000;            ///< idle before each phase
  std::int64_t interval_ns = 10'000'000;        ///< sampling interval of the checks
  std::int64_t launch_target_ns = 10'000'000;   ///< one launch of a calibration kernel
  std::int64_t poll_interval_ns = 100'000'000;  ///< the sampling thread's polls
  /// The sources to check, in order (--source all: PM sampling, GPM, NVML).
  std::vector<core::SourceKind> sources{core::SourceKind::PmSampling, core::SourceKind::Gpm,
                                        core::SourceKind::NvmlOnly};
  /// --source names one source: when the GPU cannot give it, check with the source it falls back to (what
  /// GPM and NVML allow). With several, a source the GPU cannot give is skipped (its fallback has a turn).
  bool single_source = false;
  std::vector<std::uint32_t> devices;  ///< NVML indices; empty = every GPU
  bool overhead = true;                ///< --no-overhead turns it off
  OverheadOptions overhead_options;
};

/// What a check uses from its surroundings.
struct CheckDeps {
  std::function<core::Result<GpuProbe>()> probe;  ///< probe_gpus()
  KernelRunnerFactory make_runner;                ///< null: this build cannot run kernels
  SourceStarter start_source;                     ///< start_gpu_source()
  CheckCatalog catalog;                           ///< default_check_catalog()
  CheckClock clock;                               ///< system_check_clock()
  trace::Writer* writer = nullptr;                ///< -o: every sample goes to this trace
};

/// Runs the check on every selected GPU and says how far it got on `err` (one line per GPU and source).
/// Errors (Failure with its exit code): the probe's (no driver: kExitNoGpu), a --devices index the machine
/// lacks (kExitUsage), no kernel runner in this build (kExitNoGpu), and, when no GPU could be checked at
/// all, the first reason (the runner's or source's error and its exit code). A kernel fault is not an error:
/// its phase becomes a Fault row.
[[nodiscard]] auto run_check(const CheckOptions& options, const CheckDeps& deps,
                             const std::atomic<bool>& stop, std::ostream& err) -> Outcome<CheckReport>;

/// The exit code of a finished check: kExitOk when every row passed; kExitCheckFailed when a row failed,
/// faulted or had no data, or when nothing could be checked (kExitPermission then, when the counters are
/// not permitted).
[[nodiscard]] auto check_exit_code(const CheckReport& report) -> int;

}  // namespace solscope::app
