// The PromQL the fleet reader sends, one function per query, so that tests and docs/fleet.md can state them.
// Every expression copies the host name into `host` (prom_api.hpp with_host_label) and keeps kKeyLabels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/workload.hpp"
#include "fleet/fleet_model.hpp"

namespace solscope::fleet {

/// The three figures of a row.
enum class Figure : std::uint8_t { ComputeSol, MemorySol, GpuUtil };

/// "Compute SOL", "Memory SOL", "utilization" for messages.
[[nodiscard]] auto figure_name(Figure figure) -> std::string;

/// One figure in percent (0-100) per GPU: solscope's `solscope_compute_sol_ratio`,
/// `solscope_memory_sol_ratio`, `solscope_gpu_utilization_ratio` x 100; dcgm-exporter's busiest of
/// DCGM_FI_PROF_PIPE_{TENSOR,FP64,FP32,FP16} _ACTIVE x 100, DCGM_FI_PROF_DRAM_ACTIVE x 100,
/// DCGM_FI_DEV_GPU_UTIL. `inner` is the user's selector (selector_inner()), `restriction` more matchers
/// (host_matchers(), gpu_restriction()); either may be empty.
[[nodiscard]] auto figure_expr(SeriesKind kind, Figure figure, std::string_view inner,
                               std::string_view restriction) -> std::string;

/// The newest step value of a figure in the window: `last_over_time((EXPR)[Ws:STEPs])` (a subquery evaluated
/// at the multiples of the step in [end - window, end]).
[[nodiscard]] auto last_expr(std::string_view figure, std::int64_t window_ns, std::int64_t step_ns)
    -> std::string;

/// The mean of a figure over the window's steps: `avg_over_time((EXPR)[Ws:STEPs])` (unknown steps left out).
[[nodiscard]] auto mean_expr(std::string_view figure, std::int64_t window_ns, std::int64_t step_ns)
    -> std::string;

/// The number of the window's steps where utilization > kBusyUtilPct and Compute SOL < kIdleComputeSolPct
/// (fleet_math.hpp): `count_over_time(((UTIL > 80) and (COMPUTE < 20))[Ws:STEPs])`; GPUs with none are
/// absent.
[[nodiscard]] auto busy_idle_steps_expr(std::string_view util, std::string_view compute,
                                        std::int64_t window_ns, std::int64_t step_ns) -> std::string;

/// The number of GPUs with a series of `kind` in the window ending at the query's time (an instant query).
[[nodiscard]] auto count_expr(SeriesKind kind, std::string_view inner, std::int64_t window_ns) -> std::string;

/// GPUs per host (label `host`) of `kind` in the window (an instant query).
[[nodiscard]] auto host_count_expr(SeriesKind kind, std::string_view inner, std::int64_t window_ns)
    -> std::string;

/// Matchers keeping only these hosts, whichever of `Hostname`/`hostname` names them (an absent label
/// matches): `Hostname=~"a|b|",hostname=~"a|b|"`. Series named by `instance` alone are not narrowed.
[[nodiscard]] auto host_matchers(const std::vector<std::string>& hosts) -> std::string;

/// Matchers narrowing to one GPU (host as host_matchers(), gpu index); the caller still checks the host.
[[nodiscard]] auto gpu_restriction(const GpuKey& key) -> std::string;

/// The mean of one of solscope's per-GPU iteration series (core/iteration.hpp kPromIterationSecondsName,
/// kPromIterationComputeName, kPromIterationExposedName; docs/http-api.md; exported only while the GPU's
/// activity is periodic) over the window's steps, one value per GPU (steps where the series is
/// absent, the GPU not periodic, left out): `avg_over_time((max by (KEY[, JOB]) (NAME{inner,restriction}
/// with the host label))[Ws:STEPs])`, KEY = kKeyLabels, JOB = `job_label` when not empty (so that its value
/// comes back with each GPU).
[[nodiscard]] auto iteration_expr(std::string_view metric, std::string_view inner,
                                  std::string_view restriction, std::string_view job_label,
                                  std::int64_t window_ns, std::int64_t step_ns) -> std::string;

/// solscope's counter of GPU-seconds per workload and bound class (docs/http-api.md): labels `gpu`, `UUID`,
/// `modelName`, `hostname`, `pod`, `namespace`, `container`, `hpc_job`, `sharing`, `bound`.
inline constexpr std::string_view kWorkloadSecondsMetric = core::kPromWorkloadGpuSecondsName;

/// The instant queries of a workload roll-up (`fleet --by`), one value per group each; `L` below is
/// group_labels(), `M` the user's selector with the group's label required non-empty, `GPU` the labels that
/// name one GPU (`hostname, gpu, UUID, GPU_I_PROFILE, GPU_I_ID`).
enum class WorkloadQuery : std::uint8_t {
  Gpus,              ///< `count by (L) (sum by (L, GPU) (increase(SECONDS{M}[W])) > 0)`
  AllocatedSeconds,  ///< `sum by (L) (increase(SECONDS{M}[W]))`
  IdleSeconds,       ///< as AllocatedSeconds with `bound="idle"`
  BusyIdleSteps,     ///< `sum by (L) (` busy_idle_steps_expr() over solscope's per-GPU series by (L, GPU) `)`
  ComputeSolSum,     ///< `sum by (L) (sum_over_time((COMPUTE)[W:STEP]))`, COMPUTE in percent by (L, GPU)
  ComputeSolSteps,   ///< `sum by (L) (count_over_time((COMPUTE)[W:STEP]))`
};
inline constexpr std::size_t kWorkloadQueryCount = 6;

/// "GPUs", "allocated GPU-seconds", ... for messages.
[[nodiscard]] auto workload_query_name(WorkloadQuery query) -> std::string;

/// The labels a group is made of: "namespace"; "namespace, pod"; "hpc_job".
[[nodiscard]] auto group_labels(GroupBy by) -> std::string;

/// The PromQL of one roll-up query over the window ending at the query's time; `inner` is the user's
/// selector (selector_inner()).
[[nodiscard]] auto workload_expr(WorkloadQuery query, GroupBy by, std::string_view inner,
                                 std::int64_t window_ns, std::int64_t step_ns) -> std::string;

/// The group an answer's series belongs to, from its labels: the namespace, "namespace/pod" (the pod alone
/// when the namespace is empty), or the job; empty when the group's label is missing.
[[nodiscard]] auto group_of(GroupBy by, const std::map<std::string, std::string>& labels) -> std::string;

/// One call of Prometheus' query API: the path and its parameters, form-encoded. They are sent as the body of
/// a POST (Prometheus accepts POST on both endpoints), so that a query of any length (a host list past
/// --gpu-limit) fits: a proxy with default buffers refuses a GET URL of about 8 KiB with 414.
struct PromCall {
  std::string path;  ///< "/api/v1/query" or "/api/v1/query_range"
  std::string form;  ///< "query=..&time=.." (application/x-www-form-urlencoded)
};

/// `/api/v1/query` with `query=..&time=..&timeout=..s`.
[[nodiscard]] auto instant_call(std::string_view expr, std::int64_t time_ns, double timeout_s) -> PromCall;

/// `/api/v1/query_range` with `query=..&start=..&end=..&step=..s&timeout=..s`.
[[nodiscard]] auto range_call(std::string_view expr, std::int64_t start_ns, std::int64_t end_ns,
                              std::int64_t step_ns, double timeout_s) -> PromCall;

/// A PromQL double-quoted string literal's body for a regex matching `text` literally.
[[nodiscard]] auto regex_literal(std::string_view text) -> std::string;

}  // namespace solscope::fleet
