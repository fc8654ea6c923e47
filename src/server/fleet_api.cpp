#include "server/detail/fleet_api.hpp"

#include <utility>

#include "fleet/fleet_json.hpp"

namespace solscope::server {
namespace {

auto wall_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

auto busy() -> core::Error {
  return core::Error{core::ErrorCode::Unavailable, "the fleet query is busy",
                     "another request has been waiting on Prometheus for " +
                         std::to_string(kFleetQueryWait.count()) + " s: retry later"};
}

}  // namespace

auto fleet_snapshot_json(const fleet::FleetSnapshot& snapshot, std::int64_t refreshed_ns,
                         std::chrono::seconds refresh) -> std::string {
  // fleet::snapshot_json (the one JSON form, also `solscope fleet --json`) is a compact object: the server's
  // two fields go first.
  const std::string body = fleet::snapshot_json(snapshot);
  return "{\"refreshed_ns\":" + std::to_string(refreshed_ns) +
         ",\"refresh_s\":" + std::to_string(refresh.count()) + "," + body.substr(1);
}

auto gpu_history_json(const fleet::GpuHistory& history) -> std::string {
  return fleet::history_json(history);
}

auto fleet_error_status(const core::Error& error) -> int {
  switch (error.code) {
    case core::ErrorCode::NotFound:
      return 404;
    case core::ErrorCode::Unavailable:
      return 503;
    default:
      return 502;
  }
}

FleetCache::FleetCache(std::shared_ptr<fleet::FleetProvider> provider, std::chrono::seconds refresh,
                       Clock clock)
    : provider_(std::move(provider)),
      refresh_(refresh),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })) {}

void FleetCache::refresh_locked() {
  const auto now = clock_();
  if (read_at_ && now - *read_at_ < refresh_) return;
  auto snapshot = provider_->snapshot();
  read_at_ = clock_();
  if (!snapshot) {
    error_ = snapshot.error();
    json_.reset();
    keys_.clear();
    return;
  }
  error_.reset();
  json_ = std::make_shared<const std::string>(fleet_snapshot_json(*snapshot, wall_ns(), refresh_));
  keys_.clear();
  keys_.reserve(snapshot->rows.size());
  for (auto& r : snapshot->rows) keys_.push_back(std::move(r.key));
}

auto FleetCache::snapshot_json() -> core::Result<std::shared_ptr<const std::string>> {
  const std::unique_lock lock(mutex_, kFleetQueryWait);
  if (!lock.owns_lock()) return core::fail(busy());
  refresh_locked();
  if (error_) return core::fail(*error_);
  return json_;
}

auto FleetCache::history_json(const std::string& host, const std::string& gpu) -> core::Result<std::string> {
  const std::unique_lock lock(mutex_, kFleetQueryWait);
  if (!lock.owns_lock()) return core::fail(busy());
  refresh_locked();
  if (error_) return core::fail(*error_);
  const fleet::GpuKey* key = nullptr;
  for (const auto& k : keys_) {
    if (k.host == host && k.gpu == gpu) key = &k;
  }
  if (key == nullptr) {
    return core::fail(core::ErrorCode::NotFound, "no GPU " + gpu + " on host " + host + " in the fleet",
                      "GET /api/v1/fleet lists the fleet's hosts and GPUs");
  }
  auto history = provider_->history(*key);
  if (!history) return core::propagate(std::move(history));
  return gpu_history_json(*history);
}

auto FleetCache::describe() const -> std::string {
  return provider_->describe();
}

}  // namespace solscope::server
