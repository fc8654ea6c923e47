// The fleet view's arithmetic, pure (no I/O): per-GPU window figures from a GPU's step series, the
// "busy but doing little" GPU-hours, stragglers against their group's median, and the sort and filter of
// the table. Definitions and thresholds: docs/fleet.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/fleet_model.hpp"

namespace solscope::fleet {

/// Classic utilization above this (percent, exclusive) counts as "busy" for busy-idle GPU-hours.
inline constexpr double kBusyUtilPct = 80.0;
/// Compute SOL below this (percent, exclusive) counts as "doing little" for busy-idle GPU-hours.
inline constexpr double kIdleComputeSolPct = 20.0;
/// A GPU is a straggler when its Compute SOL mean is more than this many percentage points below the median
/// of its group (same job when known, else same host).
inline constexpr double kStragglerGapPct = 10.0;
/// Steps per window of a range query; the step is window / kStepsPerWindow, at least kMinStepNs.
inline constexpr std::int64_t kStepsPerWindow = 240;
inline constexpr std::int64_t kMinStepNs = 15'000'000'000;

/// The query_range step for a window: window_ns / 240, at least 15 s, rounded up to whole seconds.
/// window_ns <= 0 gives 15 s.
[[nodiscard]] auto step_for_window_ns(std::int64_t window_ns) -> std::int64_t;

/// Window figures of one GPU from its step series (points in time order, one per step, NaN = unknown).
/// step_ns > 0.
[[nodiscard]] auto window_figures(const std::vector<HistoryPoint>& points, std::int64_t step_ns)
    -> WindowFigures;

/// Copies the figures into a row (its WindowFigures part).
void apply_figures(const WindowFigures& figures, FleetRow& row);

/// The straggler group of a row: "job:NAME" when the job is known, else "host:NAME".
[[nodiscard]] auto straggler_group(const GpuKey& key) -> std::string;

/// Sets straggler_gap_pct (Compute SOL mean minus its group's median; NaN when the row's mean is unknown or
/// it has no other member with a known mean) and straggler (gap below -kStragglerGapPct) on every row.
void mark_stragglers(std::vector<FleetRow>& rows);

/// Table sort keys, in the order the `s` key cycles through them.
enum class SortKey : std::uint8_t {
  Host,            ///< host, then GPU (natural order: "2" before "10")
  ComputeSolMean,  ///< lowest first
  ComputeSolNow,   ///< lowest first
  MemorySolMean,   ///< lowest first
  GpuUtilMean,     ///< highest first
  BusyIdle,        ///< most GPU-hours first
  StragglerGap,    ///< most negative first
};
inline constexpr std::size_t kSortKeyCount = 7;

/// "host", "compute mean", ... for the view's header.
[[nodiscard]] auto sort_key_name(SortKey key) -> std::string_view;
/// The next key of the cycle (after the last: Host).
[[nodiscard]] auto next_sort_key(SortKey key) -> SortKey;
/// Parses sort_key_name() spellings ("host", "compute-mean", ...); nullopt for any other text.
[[nodiscard]] auto parse_sort_key(std::string_view text) -> std::optional<SortKey>;

/// Sorts rows by a key; unknown (NaN) figures last, ties by (host, GPU). Stable.
void sort_rows(std::vector<FleetRow>& rows, SortKey key);

/// Indices of the rows whose host, GPU, model, job or UUID contains `text` (ASCII case-insensitive); all rows
/// for an empty text. In row order.
[[nodiscard]] auto filter_rows(const std::vector<FleetRow>& rows, std::string_view text)
    -> std::vector<std::size_t>;

/// Natural order of GPU labels and host names: digit runs compare as numbers ("gpu2" < "gpu10").
[[nodiscard]] auto natural_less(std::string_view a, std::string_view b) -> bool;

/// Fleet totals for the view's header.
struct FleetTotals {
  std::size_t gpus = 0;
  std::size_t stragglers = 0;
  double busy_idle_gpu_hours = 0;
  double compute_sol_mean_pct = core::kUnknown;  ///< mean of the rows' known means
};
[[nodiscard]] auto fleet_totals(const std::vector<FleetRow>& rows) -> FleetTotals;

/// The ways of GroupBy, in order.
inline constexpr std::size_t kGroupByCount = 3;
/// "namespace", "pod", "job": the values of `--by`.
[[nodiscard]] auto group_by_name(GroupBy by) -> std::string_view;
/// Parses a group_by_name() spelling; nullopt for any other text (case-sensitive).
[[nodiscard]] auto parse_group_by(std::string_view text) -> std::optional<GroupBy>;
/// Every group_by_name(), in order, for messages ("namespace, pod or job") and "did you mean".
[[nodiscard]] auto group_by_names() -> std::vector<std::string>;

/// What Prometheus answered for one workload group (fleet_queries.hpp WorkloadQuery): NaN or negative values
/// count as 0, except the Compute SOL sum, whose mean is unknown without steps.
struct WorkloadSums {
  double gpus = 0;               ///< distinct GPUs
  double allocated_seconds = 0;  ///< GPU-seconds of every bound class
  double idle_seconds = 0;       ///< GPU-seconds of bound class "idle"
  double busy_idle_steps = 0;  ///< steps with utilization > kBusyUtilPct and Compute SOL < kIdleComputeSolPct
  double compute_sol_sum_pct = 0;  ///< sum of the known Compute SOL steps, percent
  double compute_sol_steps = 0;    ///< how many steps that sum holds
};

/// A group's row: seconds / 3600 as GPU-hours, busy-idle steps x step_ns in hours, wasted = idle + busy-idle
/// (disjoint: idle needs engine activity below 5 %, busy-idle classic utilization above 80 %), the Compute
/// SOL mean as sum / steps (NaN with no step). step_ns > 0.
[[nodiscard]] auto workload_row(std::string group, const WorkloadSums& sums, std::int64_t step_ns)
    -> WorkloadRow;

/// Sorts rows by wasted GPU-hours, most first; ties by group (natural order). Stable.
void sort_workloads(std::vector<WorkloadRow>& rows);

/// The sum of every row's GPU-hours (`gpus` is the sum of the rows' GPUs: a GPU shared by groups counts in
/// each), and the mean of the rows' known Compute SOL means.
[[nodiscard]] auto workload_totals(const std::vector<WorkloadRow>& rows) -> WorkloadRow;

}  // namespace solscope::fleet
