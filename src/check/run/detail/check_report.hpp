// What `solscope check` found (docs/accuracy.md "Running it"): per GPU and counter source, one row per
// figure a calibration phase must show (expected next to measured), and the sampling overhead. Plain data,
// filled by run_check() (check_run.hpp) and printed by check_render.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "check/kernels.hpp"
#include "core/metric_id.hpp"
#include "core/sol_terms.hpp"

namespace solscope::app {

/// The outcome of one row.
enum class CheckVerdict : std::uint8_t {
  Pass,    ///< check::passes(): |measured - expected| <= tolerance (or within the bound)
  Fail,    ///< outside the tolerance
  Fault,   ///< the phase's kernel faulted (illegal address, Xid): no figure; the other phases went on
  NoData,  ///< the source measures the metric but no sample fell inside the phase (counts as a failure)
};

/// "PASS", "FAIL", "FAULT", "NO DATA".
[[nodiscard]] auto to_string(CheckVerdict verdict) -> std::string_view;

/// One figure of one phase. For a Fault row only `phase`, `verdict` and `note` are set.
struct CheckRow {
  std::string phase;  ///< the kernel's name ("fma", "dram_copy"), "idle" for the idle phase
  core::MetricId metric = core::MetricId::SmActive;
  double expected_pct = 0.0;                 ///< from the kernel's work, time and clock, never from a counter
  double tolerance_pct = 0.0;                ///< ±points: 3 for compute pipes, 5 for DRAM and L2
  check::Bound bound = check::Bound::Point;  ///< a point, or a bound (launch-bound SM activity: at most)
  double measured_pct = 0.0;  ///< duration-weighted mean of the samples inside the phase (NaN: none)
  std::size_t samples = 0;    ///< samples in that mean
  CheckVerdict verdict = CheckVerdict::Pass;
  std::string note;  ///< the fault's message, or the basis of the expected figure
};

/// The rows of one GPU checked with one counter source.
struct SourceCheck {
  std::uint32_t device = 0;  ///< NVML index
  std::string device_name;
  core::SourceKind source = core::SourceKind::None;  ///< the source that produced the samples
  std::vector<CheckRow> rows;
  std::vector<std::string> notes;  ///< e.g. "not measured by gpm: alu_pipe, l2"
};

/// One kernel at one sampling setting, over every repetition.
struct OverheadRow {
  std::string kernel;            ///< "fma", "dram_copy"
  std::int64_t interval_ns = 0;  ///< 0 = sampling off
  int repetitions = 0;
  double launches_per_s = 0.0;  ///< mean over the repetitions of launches / GPU time (work per launch fixed)
  double ratio = 0.0;           ///< launches_per_s / the same kernel's unsampled launches_per_s
  double sm_clock_mhz = 0.0;    ///< mean NVML SM clock during the runs (NaN when unknown)
};

/// The overhead runs of one GPU.
struct OverheadCheck {
  std::uint32_t device = 0;
  core::SourceKind source = core::SourceKind::None;  ///< the source sampling in the sampled runs
  std::vector<OverheadRow> rows;                     ///< per kernel: off, 100 ms, 10 ms, 1 ms
};

/// Everything one `solscope check` found.
struct CheckReport {
  std::vector<SourceCheck> checks;
  std::vector<OverheadCheck> overhead;
  std::vector<std::string> notes;  ///< per-GPU notes: a source not available and what it needs, MIG, ...
  bool profiling_denied = false;   ///< the driver's profiling permission says no (PM checks need it)
};

/// True when at least one row was checked and every row passed.
[[nodiscard]] auto all_passed(const CheckReport& report) -> bool;

}  // namespace solscope::app
