// The PM pause over real HTTP (issue 23, part 1): GET /api/v1/profiling, POST /api/v1/profiling/pause and
// /resume on a live server with a fixed clock: shapes, the default and explicit lengths, expiry, the strict
// reading of the body, and the checks that keep the writes safe (token, loopback, Host, Origin, media type,
// length).
#include <httplib.h>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include <nlohmann/json.hpp>

#include "raw_http.hpp"
#include "server/detail/profiling_api.hpp"
#include "server/detail/routes.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using namespace std::chrono_literals;
using testing::RawConnection;

constexpr const char* kToken = "test-token-0123456789abcdef";
constexpr std::int64_t kS = 1'000'000'000;
/// The fixed clock: 2025-01-01T00:00:00Z plus the test's steps.
constexpr std::int64_t kNow = testing::kT0;

class ProfilingApiTest : public testing::LiveServerTest {
 protected:
  void SetUp() override {
    LiveServerTest::SetUp();
    testing::fill(state_, 2, 1);
  }
  void start_with_board(ServerOptions options = {}) {
    options.pm_yield = board_;
    options.realtime_ns = [now = now_] { return now->load(); };
    start(std::move(options));
  }
  auto client() const -> httplib::Client {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(10, 0);
    return c;
  }
  /// POSTs `body` as JSON to `path`; the status and the parsed answer.
  auto post(const std::string& path, const std::string& body, const httplib::Headers& headers = {})
      -> std::pair<int, nlohmann::json> {
    auto c = client();
    auto res = c.Post(path.c_str(), headers, body, "application/json");
    if (!res) return {0, nullptr};
    return {res->status, nlohmann::json::parse(res->body, nullptr, false)};
  }
  auto status() -> nlohmann::json {
    auto c = client();
    auto res = c.Get("/api/v1/profiling");
    EXPECT_TRUE(res);
    if (!res) return nullptr;
    EXPECT_EQ(res->status, 200);
    return nlohmann::json::parse(res->body, nullptr, false);
  }
  /// A raw request's whole answer.
  auto raw(const std::string& request) const -> std::string {
    RawConnection c(server_->port());
    EXPECT_TRUE(c.connected());
    c.send(request);
    return c.read_all(10s);
  }
  std::shared_ptr<core::PmYieldBoard> board_ = std::make_shared<core::PmYieldBoard>();
  std::shared_ptr<std::atomic<std::int64_t>> now_ = std::make_shared<std::atomic<std::int64_t>>(kNow);
};

/// A raw POST of `body` as `type` to a loopback server, with `extra` header lines.
auto raw_post(const std::string& path, const std::string& body, const std::string& extra = {},
              const std::string& type = "application/json") -> std::string {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + type + "\r\n" + extra +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

auto status_of(const std::string& answer) -> int {
  return answer.starts_with("HTTP/1.1 ") && answer.size() >= 12 ? std::stoi(answer.substr(9, 3)) : 0;
}

TEST_F(ProfilingApiTest, status_before_any_pause_lists_every_device_sampling) {
  start_with_board();
  const auto json = status();
  EXPECT_EQ(json["policy"], "yield");
  EXPECT_EQ(json["now"], "2025-01-01T00:00:00Z");
  EXPECT_EQ(json["now_ns"], kNow);
  EXPECT_TRUE(json["manual"].is_null());
  ASSERT_EQ(json["devices"].size(), 2U);
  for (int i = 0; i < 2; ++i) {
    const auto& d = json["devices"][static_cast<std::size_t>(i)];
    EXPECT_EQ(d["index"], i);
    EXPECT_EQ(d["paused"], false);
    EXPECT_EQ(d["reason"], "none");
    EXPECT_TRUE(d["until"].is_null());
    EXPECT_TRUE(d["until_ns"].is_null());
  }
  EXPECT_TRUE(json["profilers"].is_array());
  EXPECT_TRUE(json["profilers"].empty());
}

TEST_F(ProfilingApiTest, a_pause_without_for_s_lasts_30_minutes_and_names_the_client) {
  start_with_board();
  const auto [code, json] = post("/api/v1/profiling/pause", "{}");
  ASSERT_EQ(code, 200) << json;
  const auto& m = json["manual"];
  EXPECT_EQ(m["by"], "127.0.0.1");
  EXPECT_EQ(m["since"], "2025-01-01T00:00:00Z");
  EXPECT_EQ(m["since_ns"], kNow);
  EXPECT_EQ(m["until"], "2025-01-01T00:30:00Z");
  EXPECT_EQ(m["until_ns"], kNow + core::kDefaultPmPauseNs);
  EXPECT_TRUE(m["devices"].empty());
  for (const auto& d : json["devices"]) {
    EXPECT_EQ(d["paused"], true);
    EXPECT_EQ(d["reason"], "manual");
    EXPECT_EQ(d["detail"], "by 127.0.0.1");
    EXPECT_EQ(d["until_ns"], kNow + core::kDefaultPmPauseNs);
  }
  EXPECT_EQ(status()["manual"], m);  // GET shows the same pause
}

TEST_F(ProfilingApiTest, a_pause_of_some_devices_ends_by_itself_after_for_s) {
  start_with_board();
  const auto [code, json] =
      post("/api/v1/profiling/pause", R"({"for_s": 120, "devices": [1, 1], "by": "alice@n1"})");
  ASSERT_EQ(code, 200) << json;
  EXPECT_EQ(json["manual"]["devices"], nlohmann::json::array({1}));
  EXPECT_EQ(json["manual"]["until"], "2025-01-01T00:02:00Z");
  EXPECT_EQ(json["devices"][0]["paused"], false);
  EXPECT_EQ(json["devices"][1]["paused"], true);
  EXPECT_EQ(json["devices"][1]["detail"], "by alice@n1");
  EXPECT_EQ(json["devices"][1]["until"], "2025-01-01T00:02:00Z");
  now_->store(kNow + 120 * kS - 1);
  EXPECT_EQ(status()["devices"][1]["paused"], true);
  now_->store(kNow + 120 * kS);  // the pause ends at until_ns, whoever forgot it
  const auto after = status();
  EXPECT_TRUE(after["manual"].is_null());
  EXPECT_EQ(after["devices"][1]["paused"], false);
  EXPECT_EQ(board_->decide(1, now_->load()).paused, false);
}

TEST_F(ProfilingApiTest, resume_ends_the_pause_and_says_whether_one_was_active) {
  start_with_board();
  ASSERT_EQ(post("/api/v1/profiling/pause", R"({"for_s": 600})").first, 200);
  now_->store(kNow + 10 * kS);
  const auto [code, json] = post("/api/v1/profiling/resume", "{}");
  ASSERT_EQ(code, 200) << json;
  EXPECT_EQ(json["resumed"], true);
  EXPECT_TRUE(json["manual"].is_null());
  EXPECT_EQ(json["devices"][0]["paused"], false);
  const auto [again, second] = post("/api/v1/profiling/resume", "");
  EXPECT_EQ(again, 200);
  EXPECT_EQ(second["resumed"], false);
}

TEST_F(ProfilingApiTest, profilers_the_watch_saw_are_listed) {
  start_with_board();
  board_->observe(kNow,
                  {core::ProfilerSighting{
                      .reason = core::PmPauseReason::kProfiler, .what = "ncu (pid 4242)", .devices = {0}}});
  const auto json = status();
  ASSERT_EQ(json["profilers"].size(), 1U);
  EXPECT_EQ(json["profilers"][0]["what"], "ncu (pid 4242)");
  EXPECT_EQ(json["profilers"][0]["reason"], "profiler");
  EXPECT_EQ(json["profilers"][0]["devices"], nlohmann::json::array({0}));
  EXPECT_EQ(json["devices"][0]["reason"], "profiler");
  EXPECT_EQ(json["devices"][1]["paused"], false);
}

TEST_F(ProfilingApiTest, bad_bodies_are_400_naming_the_field) {
  start_with_board();
  const std::pair<const char*, const char*> cases[] = {
      {"{", "the body is not JSON"},
      {"[1]", "the body must be a JSON object"},
      {R"({"for": 60})", "unknown field 'for'"},
      {R"({"for_s": "60"})", "field for_s"},
      {R"({"for_s": 0.5})", "field for_s"},
      {R"({"for_s": 86401})", "field for_s"},
      {R"({"for_s": -5})", "field for_s"},
      {R"({"devices": []})", "field devices"},
      {R"({"devices": [-1]})", "field devices"},
      {R"({"devices": [0.5]})", "field devices"},
      {R"({"devices": "0"})", "field devices"},
      {R"({"devices": [7]})", "field devices: no GPU 7 here"},
      {R"({"by": ""})", "field by"},
      {R"({"by": 5})", "field by"},
      {R"({"by": "a\u001b[2Jb"})", "field by must not hold control characters"},
  };
  for (const auto& [body, error] : cases) {
    const auto [code, json] = post("/api/v1/profiling/pause", body);
    EXPECT_EQ(code, 400) << body;
    EXPECT_NE(json.value("error", std::string()).find(error), std::string::npos) << body << ": " << json;
  }
  const auto [code, json] = post("/api/v1/profiling/resume", R"({"x": 1})");
  EXPECT_EQ(code, 400);
  EXPECT_EQ(json["error"], "unknown field 'x'");
  EXPECT_TRUE(board_->manual(kNow) == std::nullopt);  // nothing was paused by any of them
  EXPECT_EQ(post("/api/v1/profiling/pause", R"({"for_s": 86400})").first, 200);  // 24 h is the most
}

TEST_F(ProfilingApiTest, a_write_needs_json_a_length_and_a_small_body) {
  start_with_board();
  const std::string body = R"({"for_s": 60})";
  EXPECT_EQ(status_of(raw("POST /api/v1/profiling/pause HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                          "text/plain\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body)),
            415);
  EXPECT_EQ(status_of(raw("POST /api/v1/profiling/pause HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body)),
            415);  // a form or text/plain is what a cross-site page could send without a preflight
  EXPECT_EQ(status_of(raw(raw_post("/api/v1/profiling/pause", body, "Content-Encoding: gzip\r\n"))), 415);
  EXPECT_EQ(status_of(raw(
                raw_post("/api/v1/profiling/pause", "for_s=60", {}, "application/x-www-form-urlencoded"))),
            415);
  EXPECT_EQ(status_of(raw("POST /api/v1/profiling/pause HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                          "application/json\r\nTransfer-Encoding: chunked\r\n\r\nd\r\n" +
                          body + "\r\n0\r\n\r\n")),
            411);
  // Over the cap: refused from its Content-Length, before a byte of it is read (none is sent here).
  const std::string over =
      "POST /api/v1/profiling/pause HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
      "application/json\r\nContent-Length: " +
      std::to_string(detail::kMaxWriteBodyBytes + 1) + "\r\n\r\n";
  EXPECT_EQ(status_of(raw(over)), 413);
  EXPECT_FALSE(board_->manual(kNow).has_value());
  const std::string at_cap = R"({"by": ")" + std::string(detail::kMaxWriteBodyBytes - 10, 'a') + R"("})";
  ASSERT_EQ(at_cap.size(), detail::kMaxWriteBodyBytes);
  EXPECT_EQ(status_of(raw(raw_post("/api/v1/profiling/pause", at_cap))), 400);  // read: by is too long
  EXPECT_EQ(status_of(raw(raw_post("/api/v1/profiling/pause", body, {}, "Application/JSON; charset=utf-8"))),
            200);  // the media type is case-insensitive; a parameter is fine
  EXPECT_TRUE(board_->manual(kNow).has_value());
}

TEST_F(ProfilingApiTest, get_on_a_write_path_is_405_and_post_elsewhere_stays_405) {
  start_with_board();
  const std::string get = raw("GET /api/v1/profiling/pause HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(status_of(get), 405);
  EXPECT_NE(get.find("Allow: POST\r\n"), std::string::npos);
  const std::string post_status = raw(raw_post("/api/v1/profiling", "{}"));
  EXPECT_EQ(status_of(post_status), 405);
  EXPECT_NE(post_status.find("Allow: GET, HEAD\r\n"), std::string::npos);
  EXPECT_EQ(status_of(raw(raw_post("/metrics", "{}"))), 405);
  EXPECT_EQ(status_of(raw("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")), 413);
}

TEST_F(ProfilingApiTest, writes_need_the_token_when_the_server_has_one) {
  start_with_board({.token = kToken});
  EXPECT_EQ(post("/api/v1/profiling/pause", "{}").first, 401);
  EXPECT_EQ(post("/api/v1/profiling/pause", "{}", {{"Authorization", "Bearer wrong-token-0123456789"}}).first,
            403);
  EXPECT_FALSE(board_->manual(kNow).has_value());
  auto c = client();
  EXPECT_EQ(c.Get("/api/v1/profiling")->status, 401);
  const httplib::Headers auth{{"Authorization", std::string("Bearer ") + kToken}};
  EXPECT_EQ(post("/api/v1/profiling/pause", "{}", auth).first, 200);
  EXPECT_TRUE(board_->manual(kNow).has_value());
  EXPECT_EQ(post("/api/v1/profiling/resume", "{}", auth).first, 200);
}

TEST_F(ProfilingApiTest, without_a_token_writes_must_name_a_loopback_host_and_come_from_no_other_origin) {
  start_with_board();
  const std::string body = "{}";
  // DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends its own name as Host.
  const std::string rebound =
      raw("POST /api/v1/profiling/pause HTTP/1.1\r\nHost: evil.example:9741\r\n"
          "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
  EXPECT_EQ(status_of(rebound), 403) << rebound;
  EXPECT_EQ(status_of(raw(raw_post("/api/v1/profiling/pause", body, "Origin: http://evil.example\r\n"))),
            403);
  EXPECT_FALSE(board_->manual(kNow).has_value());
  for (const char* host : {"127.0.0.1:9741", "localhost", "[::1]:9741"}) {
    const std::string answer = raw(std::string("POST /api/v1/profiling/resume HTTP/1.1\r\nHost: ") + host +
                                   "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
    EXPECT_EQ(status_of(answer), 200) << host;
  }
  EXPECT_EQ(status_of(raw(raw_post("/api/v1/profiling/resume", body, "Origin: http://127.0.0.1\r\n"))), 200);
}

TEST_F(ProfilingApiTest, a_server_without_a_board_answers_404_with_why) {
  start();
  auto c = client();
  auto res = c.Get("/api/v1/profiling");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_NE(res->body.find("offers no PM pause"), std::string::npos) << res->body;
  EXPECT_EQ(post("/api/v1/profiling/pause", "{}").first, 404);
  EXPECT_EQ(post("/api/v1/profiling/resume", "{}").first, 404);
}

TEST(ProfilingApi, rfc3339_is_utc_to_the_second) {
  EXPECT_EQ(rfc3339_utc(kNow), "2025-01-01T00:00:00Z");
  EXPECT_EQ(rfc3339_utc(kNow + 3723 * kS + 999'999'999), "2025-01-01T01:02:03Z");
  EXPECT_EQ(rfc3339_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(rfc3339_utc(-1), "");
}

}  // namespace
}  // namespace solscope::server
