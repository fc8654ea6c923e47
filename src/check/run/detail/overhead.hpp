// solscope's own cost on the GPU (issue 11, item 4): the FMA and DRAM copy kernels' throughput with sampling
// off and at 100 ms, 10 ms and 1 ms, interleaved, each a ratio to the unsampled runs of the same run.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "check/run/detail/check_report.hpp"
#include "check/run/phase_plan.hpp"
#include "core/device_info.hpp"
#include "sources/counter_source.hpp"

namespace solscope::app {

/// Opens and starts a counter source (start_gpu_source(), or a test's fake).
using SourceStarter =
    std::function<core::Result<std::unique_ptr<sources::CounterSource>>(const sources::SourceConfig&)>;

/// The sampling settings compared, in run order within each repetition: off, 100 ms, 10 ms, 1 ms.
inline constexpr std::int64_t kOverheadIntervalsNs[] = {0, 100'000'000, 10'000'000, 1'000'000};

/// A sampling setting as the table and notes name it: "off" for 0, else whole milliseconds ("10 ms").
[[nodiscard]] auto overhead_setting_name(std::int64_t interval_ns) -> std::string;

/// How the overhead runs go.
struct OverheadOptions {
  std::int64_t run_ns = 1'000'000'000;                          ///< each kernel run
  int repetitions = 5;                                          ///< of the whole interleaved sequence
  core::SourceKind best_source = core::SourceKind::PmSampling;  ///< the sampled runs' source
  std::int64_t poll_interval_floor_ns = 100'000'000;  ///< the sampling thread polls no more often than this
};

/// Runs, `repetitions` times, every setting of kOverheadIntervalsNs, and within it the Fma and DramCopy
/// phases of `phases` (those present). A sampled run starts a source at that interval on the device
/// (`best_source`); an unsampled run starts no counter source, only NVML at half the run's length, so that
/// the NVML read in the middle of the run gives the SM clock "without sampling". The SM clock of a run is the
/// mean of the NVML reads that ended inside it (NaN when none did). Throughput is launches per second of GPU
/// time (the work per launch is fixed by the shape, so the ratio is the work ratio). A run or source that
/// fails is left out and noted in `notes`.
[[nodiscard]] auto measure_overhead(check::KernelRunner& runner, std::span<const PlannedPhase> phases,
                                    const core::DeviceInfo& device, const SourceStarter& start_source,
                                    const OverheadOptions& options, const std::atomic<bool>& stop,
                                    std::vector<std::string>& notes) -> OverheadCheck;

}  // namespace solscope::app
