// Phases of one GPU's sample series: change points between idle, compute-bound, memory-bound and launch-bound
// (latency) stretches. Pure and deterministic.
//
// Method (docs/report.md, "Phases"): every sample carries its bound class (core::classify_bound). Runs of
// consecutive samples of one class are the first candidates. While some run is shorter than the minimum phase
// length (sampled time), the shortest one (the earliest on a tie) merges into its longer neighbour (the
// earlier one on a tie); a merged run takes the class that holds most of its sampled time (the absorbing
// run's class on a tie), and neighbours of one class merge. What remains are the phases: each at least the
// minimum long, unless the whole series is shorter. Gaps between samples belong to the phase around them. O(n
// log n) in samples; ReportBuilder runs it on a GPU's SampleBins (at most kMaxSampleBins).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "core/sol_terms.hpp"
#include "core/units.hpp"
#include "core/window.hpp"
#include "report/detail/sample_bins.hpp"
#include "report/report.hpp"

namespace solscope::report {

/// The minimum phase length is max(kMinPhaseNs, kMinPhaseShare x the GPU's sampled time): 1 s, and 1 % of a
/// long trace, so a GPU has at most about 100 phases.
inline constexpr std::int64_t kMinPhaseNs = core::kNsPerS;
inline constexpr double kMinPhaseShare = 0.01;

/// The minimum phase length for a GPU with `sampled_ns` of samples.
[[nodiscard]] auto min_phase_ns(std::int64_t sampled_ns) -> std::int64_t;

/// The phases of `points` (one GPU, in time order), each with its figures: duration-weighted means of the
/// known values (a sample of zero or negative duration weighs 1 ns, as in core::WindowAccumulator), energy as
/// the sum of power x duration, and the pipe (path) that set the samples' Compute (Memory) SOL for the
/// longest time. `min_phase_ns` <= 0 keeps every run. Empty input: no phase.
[[nodiscard]] auto detect_phases(std::span<const PhasePoint> points, std::int64_t min_phase_ns)
    -> std::vector<Phase>;

/// The phases of a GPU's bins (sample_bins.hpp), in time order: as above, with each bin in the place of its
/// samples (a bin of one sample is that sample), so phase boundaries fall on bin edges.
[[nodiscard]] auto detect_bin_phases(std::span<const SampleBin> bins, std::int64_t min_phase_ns)
    -> std::vector<Phase>;

/// The figures of `bins` as detect_phases computes them for a phase.
[[nodiscard]] auto bin_figures(std::span<const SampleBin> bins) -> Figures;

}  // namespace solscope::report
