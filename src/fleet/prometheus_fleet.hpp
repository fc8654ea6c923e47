// The fleet reader over a Prometheus server (FleetProvider): PromQL over /api/v1/query (the window's figures,
// reduced by Prometheus) and /api/v1/query_range (one GPU's history), each a form-encoded POST, solscope's
// own series where present and dcgm-exporter's otherwise. Every query is bounded: a step (window / 240, at
// least 15 s), Prometheus' `timeout=` parameter, the client's body cap, and a GPU limit (counted first; past
// it, whole hosts are left out and a note says how many GPUs were not shown). Queries and definitions:
// docs/fleet.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.hpp"
#include "fleet/fleet_model.hpp"
#include "net/remote_http.hpp"

namespace solscope::fleet {

/// Seconds the client waits for an answer beyond the query's own `timeout=` (network and encoding slack).
inline constexpr double kReadTimeoutMarginS = 10.0;

/// Default of FleetQuery::gpu_limit.
inline constexpr std::size_t kDefaultGpuLimit = 10'000;

/// What to ask Prometheus.
struct FleetQuery {
  /// `{cluster="a"}` (or without braces), merged into every series selector; empty = every series.
  std::string selector;
  std::int64_t window_ns = 3'600'000'000'000;  ///< the window ending at end_ns, > 0
  std::int64_t end_ns = 0;                     ///< Unix ns; 0 = now at each snapshot()
  std::size_t gpu_limit = kDefaultGpuLimit;    ///< rows at most, >= 1
  double query_timeout_s = 20.0;               ///< Prometheus' `timeout=`, 1-600 s
  /// true: the window's figures are computed by Prometheus (subqueries: last, mean and busy-idle steps per
  /// GPU, one value each); false: every GPU's step series is fetched (query_range) and reduced here. The
  /// figures are the same (the integration test checks both); the first's answers are about 240 times
  /// smaller.
  bool aggregate_on_server = true;
  /// The label that groups GPUs into jobs for the iteration stragglers (fleet/detail/fleet_iteration.hpp;
  /// checked by check_job_label()); empty = straggler_group() (`namespace/pod`, else the host).
  std::string job_label;
};

/// A FleetProvider over the client `http` (tests pass a stub). describe_url names the server in messages.
[[nodiscard]] auto make_prometheus_fleet(std::unique_ptr<net::RemoteHttp> http, FleetQuery query)
    -> std::unique_ptr<FleetProvider>;

/// As above with the real client for `endpoint` (token, CA file, TLS, timeouts, stop flag; the read timeout
/// is raised to query.query_timeout_s + kReadTimeoutMarginS when shorter, and the total timeout to the read
/// timeout). Errors: those of
/// net::make_remote_http(); InvalidArgument for a window <= 0, a gpu_limit of 0 or a job_label that is not
/// a label name (check_job_label()), before any query.
[[nodiscard]] auto make_prometheus_fleet(const net::RemoteEndpoint& endpoint, FleetQuery query)
    -> core::Result<std::unique_ptr<FleetProvider>>;

}  // namespace solscope::fleet
