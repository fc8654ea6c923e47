// Expected next to measured: turns the phases one counter source watched into the rows of its table.
#pragma once

#include <span>

#include "check/run/detail/check_report.hpp"
#include "check/run/phase_plan.hpp"
#include "core/device_info.hpp"
#include "core/raw_sample.hpp"

namespace solscope::app {

/// The rows of every phase in `runs` for one GPU and source:
/// - a phase whose run failed gives one Fault row with the runner's message;
/// - otherwise the catalog's expected figures, computed from the runner's launches and GPU time, the SM
///   clock's phase mean (NVML; the device's max clock when no sample has it) and the device's DRAM peak;
///   each compared with the metric's phase mean (phase_mean(), ramp edges left out): Pass when
///   check::passes() (within the tolerance, or the bound), else Fail; NoData when the source measures the
///   metric but no sample counted;
/// - a metric the source never measured in `samples` gets no row; notes name those metrics once
///   ("not measured by gpm: alu_pipe, l2").
/// An expected figure the catalog cannot give (say, no per-SM rate for the chip) becomes a note.
[[nodiscard]] auto check_phases(const CheckCatalog& catalog, const check::DeviceFacts& facts,
                                const core::DeviceInfo& info, core::SourceKind source,
                                std::span<const PhaseRun> runs, std::span<const core::RawSample> samples)
    -> SourceCheck;

/// "fma_pipe" for fma_pipe_pct: the catalog name without its unit suffix, for tables.
[[nodiscard]] auto short_metric_name(core::MetricId metric) -> std::string;

}  // namespace solscope::app
