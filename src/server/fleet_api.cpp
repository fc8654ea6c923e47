#include "server/fleet_api.hpp"

#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

namespace solscope::server {
namespace {

using Json = nlohmann::ordered_json;

auto number(double v) -> Json {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

auto series_name(fleet::SeriesKind kind) -> const char* {
  return kind == fleet::SeriesKind::Dcgm ? "dcgm" : "solscope";
}

void put_key(Json& out, const fleet::GpuKey& key, fleet::SeriesKind series) {
  out["host"] = key.host;
  out["gpu"] = key.gpu;
  out["uuid"] = key.uuid;
  out["model_name"] = key.model_name;
  out["job"] = key.job;
  out["series"] = series_name(series);
}

auto row_json(const fleet::FleetRow& r) -> Json {
  Json out = Json::object();
  put_key(out, r.key, r.series);
  out["compute_sol_pct"] = number(r.compute_sol_pct);
  out["memory_sol_pct"] = number(r.memory_sol_pct);
  out["gpu_util_pct"] = number(r.gpu_util_pct);
  out["compute_sol_mean_pct"] = number(r.compute_sol_mean_pct);
  out["memory_sol_mean_pct"] = number(r.memory_sol_mean_pct);
  out["gpu_util_mean_pct"] = number(r.gpu_util_mean_pct);
  out["busy_idle_gpu_hours"] = number(r.busy_idle_gpu_hours);
  out["straggler_gap_pct"] = number(r.straggler_gap_pct);
  out["straggler"] = r.straggler;
  return out;
}

auto totals_json(const fleet::FleetSnapshot& s) -> Json {
  double sol_sum = 0;
  std::size_t sol_known = 0;
  double busy_idle_h = 0;
  std::size_t stragglers = 0;
  for (const auto& r : s.rows) {
    if (std::isfinite(r.compute_sol_mean_pct)) {
      sol_sum += r.compute_sol_mean_pct;
      ++sol_known;
    }
    if (std::isfinite(r.busy_idle_gpu_hours)) busy_idle_h += r.busy_idle_gpu_hours;
    if (r.straggler) ++stragglers;
  }
  Json out = Json::object();
  out["gpus"] = s.rows.size();
  out["compute_sol_mean_pct"] =
      sol_known > 0 ? Json(sol_sum / static_cast<double>(sol_known)) : Json(nullptr);
  out["busy_idle_gpu_hours"] = busy_idle_h;
  out["stragglers"] = stragglers;
  return out;
}

/// Lenient dump: invalid UTF-8 in a label value is replaced, never thrown.
auto dump(const Json& json) -> std::string {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

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
  Json out = Json::object();
  out["source"] = snapshot.source;
  out["window_start_ns"] = snapshot.window_start_ns;
  out["window_end_ns"] = snapshot.window_end_ns;
  out["step_ns"] = snapshot.step_ns;
  out["refreshed_ns"] = refreshed_ns;
  out["refresh_s"] = refresh.count();
  out["notes"] = snapshot.notes;
  out["totals"] = totals_json(snapshot);
  Json rows = Json::array();
  for (const auto& r : snapshot.rows) rows.push_back(row_json(r));
  out["rows"] = std::move(rows);
  return dump(out);
}

auto gpu_history_json(const fleet::GpuHistory& history) -> std::string {
  Json out = Json::object();
  put_key(out, history.key, history.series);
  out["notes"] = history.notes;
  Json points = Json::array();
  for (const auto& p : history.points) {
    points.push_back(Json{{"t_ns", p.t_ns},
                          {"compute_sol_pct", number(p.compute_sol_pct)},
                          {"memory_sol_pct", number(p.memory_sol_pct)},
                          {"gpu_util_pct", number(p.gpu_util_pct)}});
  }
  out["points"] = std::move(points);
  return dump(out);
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
