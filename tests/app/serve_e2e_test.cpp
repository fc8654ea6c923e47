// End-to-end runs of `solscope serve` on the bundled SYNTHETIC demo trace: the port it prints, the endpoints
// over real HTTP, the token rule, and a clean exit on SIGTERM.
#include <signal.h>

#include <httplib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "support/process.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;

const std::string kBinary = SOLSCOPE_BINARY;
const std::string kDemo = std::string(SOLSCOPE_TEST_DATA_DIR) + "/demo-trace.sqlite";

class ServeE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("solscope-serve-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  auto path(const std::string& name) const -> std::string { return (dir_ / name).string(); }
  auto read(const std::string& name) const -> std::string {
    std::stringstream s;
    s << std::ifstream(path(name)).rdbuf();
    return s.str();
  }
  /// Waits for "solscope: listening on http://127.0.0.1:PORT" on stderr; 0 when it never comes.
  auto wait_for_port() const -> int {
    const std::regex listening("solscope: listening on http://127\\.0\\.0\\.1:([0-9]+)");
    for (int i = 0; i < 300; ++i) {
      std::smatch m;
      const std::string err = read("err");
      if (std::regex_search(err, m, listening)) return std::stoi(m[1]);
      std::this_thread::sleep_for(50ms);
    }
    return 0;
  }
  std::filesystem::path dir_;
};

TEST_F(ServeE2eTest, a_replay_at_speed_0_serves_every_sample_of_the_trace) {
  // A replay as fast as possible used to go through the daemon's live-view queue with drop-oldest: a poll
  // returns thousands of samples at once, so about a third of these 40,000 never reached /metrics.
  const auto made = testing::run_process({SOLSCOPE_MAKE_TRACE, "-o", path("dense.sqlite"), "--devices", "8",
                                          "--hz", "1000", "--seconds", "5", "--profile", "phases"},
                                         60s);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  testing::BackgroundProcess p(
      {kBinary, "serve", "--replay", path("dense.sqlite"), "--speed", "0", "--listen", "127.0.0.1:0"},
      path("out"), path("err"));
  const int port = wait_for_port();
  ASSERT_GT(port, 0) << read("err");
  for (int i = 0; i < 600 && read("err").find("the replay ended") == std::string::npos; ++i) {
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_NE(read("err").find("the replay ended"), std::string::npos) << read("err");
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(10, 0);
  const auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics);
  const std::regex total(R"(\nsolscope_samples_total\{[^}]*\} ([0-9.e+]+))");
  double samples = 0;
  for (std::sregex_iterator it(metrics->body.begin(), metrics->body.end(), total), end; it != end; ++it) {
    samples += std::stod((*it)[1]);
  }
  EXPECT_EQ(samples, 40000.0) << "every sample of the 8-GPU trace";
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait(10s), 0) << read("err");
}

TEST_F(ServeE2eTest, replay_serves_metrics_api_and_stream_then_exits_0_on_sigterm) {
  testing::BackgroundProcess p({kBinary, "serve", "--replay", kDemo, "--listen", "127.0.0.1:0", "--loop"},
                               path("out"), path("err"));
  const int port = wait_for_port();
  ASSERT_GT(port, 0) << read("err");
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(10, 0);
  int ready = 0;
  for (int i = 0; i < 100 && ready != 200; ++i) {
    const auto res = c.Get("/readyz");
    ready = res ? res->status : 0;
    if (ready != 200) std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(ready, 200);
  const auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("solscope_compute_sol_ratio{gpu=\"0\""), std::string::npos);
  EXPECT_NE(metrics->body.find("solscope_build_info{version=\""), std::string::npos);
  const auto devices = c.Get("/api/v1/devices");
  ASSERT_TRUE(devices);
  EXPECT_NE(devices->body.find("\"synthetic\":true"), std::string::npos);
  EXPECT_EQ(c.Get("/api/v1/samples?device=0&since=-10s")->status, 200);
  std::string stream;
  c.Get("/api/v1/stream", [&stream](const char* data, std::size_t n) {
    stream.append(data, n);
    return stream.find("event: sample") == std::string::npos;
  });
  EXPECT_TRUE(stream.starts_with("event: hello")) << stream;
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait(15s), 0) << read("err");
}

TEST_F(ServeE2eTest, non_loopback_listen_without_token_is_a_usage_error) {
  const auto r = testing::run_process({kBinary, "serve", "--replay", kDemo, "--listen", "0.0.0.0:0"}, 30s);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("solscope: error: --listen 0.0.0.0:0 is not a loopback address"), std::string::npos)
      << r.err;
}

TEST_F(ServeE2eTest, bad_listen_value_and_half_tls_are_usage_errors) {
  EXPECT_EQ(testing::run_process({kBinary, "serve", "--replay", kDemo, "--listen", "127.0.0.1:99999"}, 30s)
                .exit_code,
            2);
  const auto half = testing::run_process({kBinary, "serve", "--replay", kDemo, "--tls-cert", "x.pem"}, 30s);
  EXPECT_EQ(half.exit_code, 2);
  EXPECT_NE(half.err.find("--tls-cert and --tls-key go together"), std::string::npos) << half.err;
}

TEST_F(ServeE2eTest, a_missing_trace_exits_5) {
  const auto r = testing::run_process(
      {kBinary, "serve", "--replay", path("none.sqlite"), "--listen", "127.0.0.1:0"}, 30s);
  EXPECT_EQ(r.exit_code, 5) << r.err;
}

/// Port 1 on loopback: nothing listens there (connection refused at once).
constexpr const char* kDeadPrometheus = "http://127.0.0.1:1";

TEST_F(ServeE2eTest, prometheus_adds_the_fleet_endpoints_beside_the_gpus) {
  testing::BackgroundProcess p({kBinary, "serve", "--replay", kDemo, "--loop", "--listen", "127.0.0.1:0",
                                "--prometheus", kDeadPrometheus, "--since", "30m"},
                               path("out"), path("err"));
  const int port = wait_for_port();
  ASSERT_GT(port, 0) << read("err");
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(30, 0);
  const auto devices = c.Get("/api/v1/devices");
  ASSERT_TRUE(devices);
  EXPECT_NE(devices->body.find("\"index\":3"), std::string::npos) << "the demo trace's 4 GPUs are served too";
  const auto fleet = c.Get("/api/v1/fleet");
  ASSERT_TRUE(fleet);
  EXPECT_EQ(fleet->status, 503) << fleet->body;  // Prometheus does not answer
  EXPECT_NE(fleet->body.find("127.0.0.1:1"), std::string::npos) << fleet->body;
  EXPECT_EQ(c.Get("/fleet.html")->status, 200);
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait(15s), 0) << read("err");
}

TEST_F(ServeE2eTest, prometheus_without_a_gpu_serves_the_fleet_view_alone) {
  testing::BackgroundProcess p({kBinary, "serve", "--listen", "127.0.0.1:0", "--prometheus", kDeadPrometheus},
                               path("out"), path("err"));
  const int port = wait_for_port();
  ASSERT_GT(port, 0) << read("err");
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(30, 0);
  const auto fleet = c.Get("/api/v1/fleet");
  ASSERT_TRUE(fleet);
  EXPECT_EQ(fleet->status, 503) << fleet->body;
  if (read("err").find("fleet view only") !=
      std::string::npos) {  // no GPU here (a GPU machine samples it too)
    const auto devices = c.Get("/api/v1/devices");
    ASSERT_TRUE(devices);
    EXPECT_NE(devices->body.find("\"devices\":[]"), std::string::npos) << devices->body;
    EXPECT_EQ(c.Get("/readyz")->status, 200);
  }
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait(15s), 0) << read("err");
}

TEST_F(ServeE2eTest, bad_prometheus_options_are_usage_errors) {
  const auto since = testing::run_process(
      {kBinary, "serve", "--replay", kDemo, "--prometheus", kDeadPrometheus, "--since", "5s"}, 30s);
  EXPECT_EQ(since.exit_code, 2);
  EXPECT_NE(since.err.find("--since"), std::string::npos) << since.err;
  const auto url =
      testing::run_process({kBinary, "serve", "--replay", kDemo, "--prometheus", "ftp://prom"}, 30s);
  EXPECT_EQ(url.exit_code, 2);
  EXPECT_NE(url.err.find("ftp://prom"), std::string::npos) << url.err;
  const auto token = testing::run_process({kBinary, "serve", "--replay", kDemo, "--prometheus",
                                           kDeadPrometheus, "--prometheus-token-file", path("missing-token")},
                                          30s);
  EXPECT_EQ(token.exit_code, 2);
  EXPECT_NE(token.err.find("missing-token"), std::string::npos) << token.err;
}

}  // namespace
}  // namespace solscope::app
