// The fleet endpoints of `solscope serve --prometheus URL` (docs/http-api.md "/api/v1/fleet"): the JSON of a
// fleet::FleetSnapshot and of one GPU's fleet::GpuHistory, the HTTP status of a provider's error, and the
// cache that keeps Prometheus from being asked more than once per refresh interval however many dashboards
// poll. No HTTP here: detail/routes.cpp serves what this renders.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "fleet/fleet_model.hpp"

namespace solscope::server {

/// How long a fleet snapshot (or its error) is served before Prometheus is asked again: default and bounds.
inline constexpr std::chrono::seconds kDefaultFleetRefresh{15};
/// How long a fleet request waits for another request's query to Prometheus before a 503.
inline constexpr std::chrono::seconds kFleetQueryWait{30};

/// The body of GET /api/v1/fleet: fleet::snapshot_json (fleet_json.hpp, docs/fleet.md: source, window, step,
/// notes, thresholds, totals, rows with every FleetRow figure, NaN as null) with two more fields first:
/// "refreshed_ns" (Unix ns when the snapshot was read) and "refresh_s" (how long it is served).
[[nodiscard]] auto fleet_snapshot_json(const fleet::FleetSnapshot& snapshot, std::int64_t refreshed_ns,
                                       std::chrono::seconds refresh) -> std::string;

/// The body of GET /api/v1/fleet/history: fleet::history_json (fleet_json.hpp): the key's labels, series,
/// notes and points [{"t_ns", "compute_sol_pct", "memory_sol_pct", "gpu_util_pct"}] (NaN as null).
[[nodiscard]] auto gpu_history_json(const fleet::GpuHistory& history) -> std::string;

/// The HTTP status of a fleet provider's error: NotFound 404, Unavailable 503 (Prometheus not reachable);
/// anything else 502 (Prometheus answered, but not with usable data: a refused token, a bad selector, an
/// answer that is not its API).
[[nodiscard]] auto fleet_error_status(const core::Error& error) -> int;

/// A fleet provider behind a cache. snapshot() asks the provider at most once per `refresh` (errors are kept
/// as long as snapshots, so that an unreachable Prometheus is not asked by every waiting request); requests
/// arriving while a query runs wait for it and share its answer. history() looks the GPU up in the cached
/// snapshot (NotFound without asking Prometheus when it is not there) and asks the provider under the same
/// lock: one query to Prometheus at a time. Thread-safe.
class FleetCache {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  /// `provider` must outlive the cache. `clock` (tests) defaults to steady_clock::now.
  FleetCache(std::shared_ptr<fleet::FleetProvider> provider, std::chrono::seconds refresh, Clock clock = {});

  /// The snapshot's JSON (fleet_snapshot_json), fresh within `refresh`. Errors: the provider's; Unavailable
  /// "the fleet query is busy" after waiting kFleetQueryWait for another request's query.
  [[nodiscard]] auto snapshot_json() -> core::Result<std::shared_ptr<const std::string>>;
  /// One GPU's history as JSON (gpu_history_json). Errors: NotFound "no GPU G on host H in the fleet";
  /// the provider's; Unavailable when busy as above.
  [[nodiscard]] auto history_json(const std::string& host, const std::string& gpu)
      -> core::Result<std::string>;
  /// The provider's describe() (for the daemon's source line).
  [[nodiscard]] auto describe() const -> std::string;

 private:
  /// Refreshes the cache when stale; the lock must be held.
  void refresh_locked();

  std::shared_ptr<fleet::FleetProvider> provider_;
  std::chrono::seconds refresh_;
  Clock clock_;
  std::timed_mutex mutex_;
  std::optional<std::chrono::steady_clock::time_point> read_at_;  ///< when the cached answer was read
  std::shared_ptr<const std::string> json_;                       ///< the cached snapshot's JSON, or null
  std::optional<core::Error> error_;                              ///< the cached error, or none
  std::vector<fleet::GpuKey> keys_;                               ///< the cached snapshot's GPUs
};

}  // namespace solscope::server
