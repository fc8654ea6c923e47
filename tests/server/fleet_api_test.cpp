// The fleet endpoints (serve --prometheus): their JSON, the cache in front of the provider and the HTTP
// status of each provider error, against a fake FleetProvider holding SYNTHETIC figures (no Prometheus here).
#include <httplib.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/detail/fleet_api.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

constexpr std::int64_t kHourNs = 3'600'000'000'000;

auto row(std::string host, std::string gpu, double sol_mean, double busy_idle_h, bool straggler)
    -> fleet::FleetRow {
  fleet::FleetRow r;
  r.key = {.host = std::move(host),
           .gpu = std::move(gpu),
           .uuid = "GPU-SYNTHETIC",
           .model_name = "SYNTHETIC",
           .job = "ns/pod"};
  r.series = fleet::SeriesKind::Dcgm;
  r.compute_sol_pct = sol_mean + 1;
  r.memory_sol_pct = 30;
  r.gpu_util_pct = 90;
  r.compute_sol_mean_pct = sol_mean;
  r.memory_sol_mean_pct = 31;
  r.gpu_util_mean_pct = 88;
  r.busy_idle_gpu_hours = busy_idle_h;
  r.straggler_gap_pct = straggler ? -25 : 5;
  r.straggler = straggler;
  return r;
}

/// A SYNTHETIC fleet of three GPUs; counts the calls; fails with `error` when set.
class FakeFleet : public fleet::FleetProvider {
 public:
  auto snapshot() -> core::Result<fleet::FleetSnapshot> override {
    ++snapshots;
    std::this_thread::sleep_for(delay);
    if (error) return core::fail(*error);
    fleet::FleetSnapshot s;
    s.rows = {row("node-a", "0", 10, 0.5, true), row("node-a", "1", 40, 0, false),
              row("node-b", "0", 70, 0.25, false)};
    s.rows[1].memory_sol_pct = core::kUnknown;  // unknown stays unknown (null), never 0
    s.window_start_ns = testing::kT0;
    s.window_end_ns = testing::kT0 + kHourNs;
    s.step_ns = 15'000'000'000;
    s.source = "SYNTHETIC fake fleet";
    s.notes = {"series limit 3 reached: 1 GPU not shown"};
    return s;
  }
  auto history(const fleet::GpuKey& key) -> core::Result<fleet::GpuHistory> override {
    ++histories;
    fleet::GpuHistory h;
    h.key = key;
    h.series = fleet::SeriesKind::Dcgm;
    h.points = {{.t_ns = testing::kT0, .compute_sol_pct = 12.5, .memory_sol_pct = 30, .gpu_util_pct = 95},
                {.t_ns = testing::kT0 + 15'000'000'000, .compute_sol_pct = core::kUnknown}};
    return h;
  }
  [[nodiscard]] auto describe() const -> std::string override { return "SYNTHETIC fake fleet"; }

  std::atomic<int> snapshots{0};
  std::atomic<int> histories{0};
  std::optional<core::Error> error;
  std::chrono::milliseconds delay{0};
};

TEST(FleetJson, snapshot_has_every_row_figure_nulls_and_totals) {
  FakeFleet fake;
  const Json j = Json::parse(fleet_snapshot_json(*fake.snapshot(), 42, 15s));
  EXPECT_EQ(j["source"], "SYNTHETIC fake fleet");
  EXPECT_EQ(j["window_start_ns"], testing::kT0);
  EXPECT_EQ(j["window_end_ns"], testing::kT0 + kHourNs);
  EXPECT_EQ(j["step_ns"], 15'000'000'000);
  EXPECT_EQ(j["refreshed_ns"], 42);
  EXPECT_EQ(j["refresh_s"], 15);
  ASSERT_EQ(j["notes"].size(), 1U);
  EXPECT_EQ(j["notes"][0], "series limit 3 reached: 1 GPU not shown");
  ASSERT_EQ(j["rows"].size(), 3U);
  const Json& r0 = j["rows"][0];
  EXPECT_EQ(r0["host"], "node-a");
  EXPECT_EQ(r0["gpu"], "0");
  EXPECT_EQ(r0["uuid"], "GPU-SYNTHETIC");
  EXPECT_EQ(r0["model_name"], "SYNTHETIC");
  EXPECT_EQ(r0["job"], "ns/pod");
  EXPECT_EQ(r0["series"], "dcgm");
  EXPECT_DOUBLE_EQ(r0["compute_sol_pct"].get<double>(), 11.0);
  EXPECT_DOUBLE_EQ(r0["memory_sol_pct"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(r0["gpu_util_pct"].get<double>(), 90.0);
  EXPECT_DOUBLE_EQ(r0["compute_sol_mean_pct"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(r0["memory_sol_mean_pct"].get<double>(), 31.0);
  EXPECT_DOUBLE_EQ(r0["gpu_util_mean_pct"].get<double>(), 88.0);
  EXPECT_DOUBLE_EQ(r0["busy_idle_gpu_hours"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(r0["straggler_gap_pct"].get<double>(), -25.0);
  EXPECT_EQ(r0["straggler"], true);
  EXPECT_TRUE(j["rows"][1]["memory_sol_pct"].is_null());
  EXPECT_EQ(j["totals"]["gpus"], 3);
  EXPECT_DOUBLE_EQ(j["totals"]["compute_sol_mean_pct"].get<double>(), 40.0);  // (10 + 40 + 70) / 3
  EXPECT_DOUBLE_EQ(j["totals"]["busy_idle_gpu_hours"].get<double>(), 0.75);
  EXPECT_EQ(j["totals"]["stragglers"], 1);
}

TEST(FleetJson, empty_fleet_has_null_mean_and_history_nulls_unknown_points) {
  const Json j = Json::parse(fleet_snapshot_json({}, 0, 15s));
  EXPECT_EQ(j["totals"]["gpus"], 0);
  EXPECT_TRUE(j["totals"]["compute_sol_mean_pct"].is_null());
  EXPECT_EQ(j["rows"].size(), 0U);
  FakeFleet fake;
  const Json h = Json::parse(gpu_history_json(*fake.history({.host = "node-a", .gpu = "1"})));
  EXPECT_EQ(h["host"], "node-a");
  EXPECT_EQ(h["gpu"], "1");
  ASSERT_EQ(h["points"].size(), 2U);
  EXPECT_EQ(h["points"][0]["t_ns"], testing::kT0);
  EXPECT_DOUBLE_EQ(h["points"][0]["compute_sol_pct"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(h["points"][0]["gpu_util_pct"].get<double>(), 95.0);
  EXPECT_TRUE(h["points"][1]["compute_sol_pct"].is_null());
}

TEST(FleetJson, error_codes_map_to_http_statuses) {
  EXPECT_EQ(fleet_error_status({core::ErrorCode::Unavailable, "down", ""}), 503);
  EXPECT_EQ(fleet_error_status({core::ErrorCode::DataLoss, "not prometheus", ""}), 502);
  EXPECT_EQ(fleet_error_status({core::ErrorCode::PermissionDenied, "401", ""}), 502);
  EXPECT_EQ(fleet_error_status({core::ErrorCode::InvalidArgument, "bad selector", ""}), 502);
  EXPECT_EQ(fleet_error_status({core::ErrorCode::NotFound, "no such gpu", ""}), 404);
}

TEST(FleetCacheTest, asks_the_provider_once_per_refresh) {
  auto fake = std::make_shared<FakeFleet>();
  auto now = std::chrono::steady_clock::time_point{};
  FleetCache cache(fake, 15s, [&now] { return now; });
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(cache.snapshot_json());
  EXPECT_EQ(fake->snapshots, 1);
  now += 14s;
  ASSERT_TRUE(cache.snapshot_json());
  EXPECT_EQ(fake->snapshots, 1);
  now += 1s;
  ASSERT_TRUE(cache.snapshot_json());
  EXPECT_EQ(fake->snapshots, 2);
  // An error is kept as long as a snapshot: an unreachable Prometheus is not asked by every request.
  fake->error =
      core::Error{core::ErrorCode::Unavailable, "prometheus at http://127.0.0.1:1 is not reachable", ""};
  now += 15s;
  for (int i = 0; i < 5; ++i) {
    auto r = cache.snapshot_json();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, core::ErrorCode::Unavailable);
  }
  EXPECT_EQ(fake->snapshots, 3);
}

TEST(FleetCacheTest, concurrent_requests_share_one_query) {
  auto fake = std::make_shared<FakeFleet>();
  fake->delay = 200ms;  // the query is in flight while the others arrive
  FleetCache cache(fake, 15s);
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      if (auto r = cache.snapshot_json(); r && !(*r)->empty()) ++good;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good, 8);
  EXPECT_EQ(fake->snapshots, 1);
}

TEST(FleetCacheTest, history_of_an_unknown_gpu_is_not_found_without_a_query) {
  auto fake = std::make_shared<FakeFleet>();
  FleetCache cache(fake, 15s);
  auto missing = cache.history_json("node-z", "0");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(missing.error().message, "no GPU 0 on host node-z in the fleet");
  EXPECT_EQ(fake->histories, 0);
  auto found = cache.history_json("node-b", "0");
  ASSERT_TRUE(found) << found.error().describe();
  const Json h = Json::parse(*found);
  EXPECT_EQ(h["host"], "node-b");
  EXPECT_EQ(h["job"], "ns/pod");  // the key's other labels come from the snapshot's row
  EXPECT_EQ(h["points"].size(), 2U);
  EXPECT_EQ(fake->histories, 1);
  EXPECT_EQ(fake->snapshots, 1);
}

class FleetHttpTest : public testing::LiveServerTest {
 protected:
  void start_with(std::shared_ptr<FakeFleet> fake, std::string token = {}) {
    ServerOptions o;
    o.fleet = std::move(fake);
    o.token = std::move(token);
    start(std::move(o));
  }
  auto client() const -> httplib::Client {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(10, 0);
    return c;
  }
};

TEST_F(FleetHttpTest, fleet_and_history_answer_json) {
  auto fake = std::make_shared<FakeFleet>();
  start_with(fake);
  auto c = client();
  for (int i = 0; i < 5; ++i) {
    auto res = c.Get("/api/v1/fleet");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store");
    EXPECT_EQ(Json::parse(res->body)["rows"].size(), 3U);
  }
  EXPECT_EQ(fake->snapshots, 1);  // the default refresh (15 s) covers the five requests
  EXPECT_EQ(Json::parse(c.Get("/api/v1/devices")->body)["fleet"], true);  // the dashboard links the fleet
  auto h = c.Get("/api/v1/fleet/history?host=node-a&gpu=1");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_EQ(Json::parse(h->body)["points"].size(), 2U);
  auto missing = c.Get("/api/v1/fleet/history?host=node-a&gpu=7");
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(Json::parse(missing->body)["error"], "no GPU 7 on host node-a in the fleet");
  auto bad = c.Get("/api/v1/fleet/history?host=node-a");
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(Json::parse(bad->body)["error"], "query parameters host and gpu are required");
}

TEST_F(FleetHttpTest, provider_errors_answer_503_and_502) {
  auto fake = std::make_shared<FakeFleet>();
  fake->error = core::Error{core::ErrorCode::Unavailable, "prometheus at http://127.0.0.1:1 is not reachable",
                            "check --prometheus"};
  start_with(fake);
  auto c = client();
  auto res = c.Get("/api/v1/fleet");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(Json::parse(res->body)["error"], "prometheus at http://127.0.0.1:1 is not reachable");
  EXPECT_EQ(Json::parse(res->body)["hint"], "check --prometheus");
  EXPECT_EQ(c.Get("/api/v1/fleet/history?host=node-a&gpu=0")->status, 503);
  server_->stop();
  server_.reset();
  auto bad = std::make_shared<FakeFleet>();
  bad->error = core::Error{core::ErrorCode::DataLoss, "the answer is not Prometheus' API", ""};
  start_with(bad);
  auto c2 = client();
  EXPECT_EQ(c2.Get("/api/v1/fleet")->status, 502);
}

TEST_F(FleetHttpTest, a_fleet_only_daemon_is_ready_without_samples) {
  ServerOptions o;
  o.fleet = std::make_shared<FakeFleet>();
  o.fleet_only = true;
  start(std::move(o));
  auto res = client().Get("/readyz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "ready: fleet view only\n");
}

TEST_F(FleetHttpTest, a_daemon_with_gpus_and_a_fleet_waits_for_a_sample) {
  start_with(std::make_shared<FakeFleet>());
  EXPECT_EQ(client().Get("/readyz")->status, 503);
}

TEST_F(FleetHttpTest, without_a_provider_the_paths_say_how_to_get_one) {
  start();
  auto c = client();
  EXPECT_EQ(Json::parse(c.Get("/api/v1/devices")->body)["fleet"], false);
  for (const char* path : {"/api/v1/fleet", "/api/v1/fleet/history?host=a&gpu=0"}) {
    auto res = c.Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 404) << path;
    const Json body = Json::parse(res->body);
    EXPECT_EQ(body["error"], "this daemon shows no fleet");
    EXPECT_NE(body["hint"].get<std::string>().find("--prometheus URL"), std::string::npos);
  }
}

TEST_F(FleetHttpTest, fleet_needs_the_token_like_the_rest_of_the_api) {
  auto fake = std::make_shared<FakeFleet>();
  start_with(fake, "test-token-0123456789abcdef");
  auto c = client();
  EXPECT_EQ(c.Get("/api/v1/fleet")->status, 401);
  EXPECT_EQ(c.Get("/api/v1/fleet/history?host=node-a&gpu=0")->status, 401);
  EXPECT_EQ(fake->snapshots, 0);
  httplib::Headers auth{{"Authorization", "Bearer test-token-0123456789abcdef"}};
  EXPECT_EQ(c.Get("/api/v1/fleet", auth)->status, 200);
  EXPECT_EQ(fake->snapshots, 1);
}

}  // namespace
}  // namespace solscope::server
