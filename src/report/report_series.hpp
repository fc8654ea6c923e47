// A GPU's figures over time, bounded, for the charts of the HTML report (`solscope report --html`). Pure.
// Kept out of `--json` (docs/report.md): the page inlines the report's JSON plus each GPU's "series".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <nlohmann/json.hpp>

#include "report/detail/sample_bins.hpp"
#include "report/report.hpp"

namespace solscope::report {

/// Buckets per GPU: the series has at most 2 x kSeriesBuckets points (a bucket, and a break where the samples
/// stop for longer than a bucket), whatever the trace's length or rate: an hour at 10 ms (360,000 samples)
/// charts as 1,000 points.
inline constexpr std::size_t kSeriesBuckets = 1000;

/// The series of `points` (one GPU, in time order): the span from the first sample's start to the last one's
/// end cut into `buckets` equal buckets (at least 1 ns each); each bucket that holds sample starts becomes
/// one point at its first sample's start, with the duration-weighted means (a sample of zero or negative
/// duration weighs 1 ns) of the known Compute SOL, Memory SOL and utilization (NaN when no sample knew it).
/// Where the next sample starts more than a bucket after the previous one ends, a point of NaN at that end
/// breaks the line. Empty input or `buckets` == 0: an empty series.
[[nodiscard]] auto downsample_series(std::span<const PhasePoint> points, std::size_t buckets = kSeriesBuckets)
    -> Series;

/// The series of a GPU's bins (sample_bins.hpp), in time order: as above, with each bin in the place of its
/// samples (it falls into the bucket of its first sample's start; breaks are seen between bins). A bin of one
/// sample is that sample, so a GPU with at most kMaxSampleBins samples charts exactly as above.
[[nodiscard]] auto downsample_bins(std::span<const SampleBin> bins, std::size_t buckets = kSeriesBuckets)
    -> Series;

/// The series as JSON: {"t_ns": [...], "compute_sol_pct": [...], "memory_sol_pct": [...], "gpu_util_pct":
/// [...]}, arrays of one length, unknown figures null.
[[nodiscard]] auto series_json(const Series& series) -> nlohmann::ordered_json;

/// What the HTML report inlines: to_json(report) (report_json.hpp) with each GPU's "series" added.
[[nodiscard]] auto to_json_with_series(const Report& report) -> nlohmann::ordered_json;

}  // namespace solscope::report
