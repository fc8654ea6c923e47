// End-to-end: every command that reads another service stops within a second of SIGTERM or SIGINT while a
// request to it is in flight and the server trickles (one byte every 0.3 s, so that no per-read timeout ever
// fires), and a first scrape that trickles ends at the scrape's total deadline (3 s) instead of never. The
// server is tests/support/dcgm_exporter_stub.hpp (its /metrics trickles when asked; its Prometheus paths
// always do).
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/dcgm_exporter_stub.hpp"
#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using test_support::dcgm_scrape;
using test_support::DcgmExporterStub;

/// Signal to exit, in seconds.
constexpr double kStopWithinS = 1.0;

auto eventually(const std::function<bool()>& done) -> bool {
  for (int i = 0; i < 400; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(25ms);
  }
  return false;
}

auto read_file(const std::string& path) -> std::string {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

class StopCliTest : public ::testing::Test {
 protected:
  [[nodiscard]] auto out_path() const -> std::string { return (dir_ / "out").string(); }
  [[nodiscard]] auto err_path() const -> std::string { return (dir_ / "err").string(); }

  /// The port `serve` says it listens on (0 when it did not say so in 10 s).
  [[nodiscard]] auto served_port() const -> int {
    const std::regex listening("solscope: listening on http://127\\.0\\.0\\.1:([0-9]+)");
    int port = 0;
    (void)eventually([&] {
      const std::string text = read_file(err_path());
      std::smatch m;
      if (std::regex_search(text, m, listening)) port = std::stoi(m[1]);
      return port != 0;
    });
    return port;
  }

  /// Sends `signo` and waits for the exit: (exit code, seconds it took).
  static auto stop(testing::BackgroundProcess& p, int signo) -> std::pair<int, double> {
    const auto t0 = Clock::now();
    p.signal(signo);
    const int code = p.wait(15s);
    return {code, std::chrono::duration<double>(Clock::now() - t0).count()};
  }

  /// Makes the stub's scrapes trickle and waits until one is in flight.
  static void trickle_from_now(DcgmExporterStub& stub) {
    stub.set_trickle(true);
    const std::size_t before = stub.requests();
    ASSERT_TRUE(eventually([&] { return stub.requests() > before; }));
    std::this_thread::sleep_for(300ms);  // some bytes came: the scrape is reading
  }

  testing::ScratchDir scratch_{"solscope-stop"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(StopCliTest, json_view_stops_on_sigterm_during_a_trickling_scrape) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0, 1}})});
  testing::BackgroundProcess p({SOLSCOPE_BINARY, "--dcgm-exporter", stub.url(), "--json"}, out_path(),
                               err_path());
  ASSERT_TRUE(eventually([&] { return !read_file(out_path()).empty(); })) << read_file(err_path());
  trickle_from_now(stub);
  const auto [code, took_s] = stop(p, SIGTERM);
  EXPECT_EQ(code, 0) << read_file(err_path());
  EXPECT_LT(took_s, kStopWithinS);
}

TEST_F(StopCliTest, record_against_an_exporter_that_trickles_from_the_start_ends_at_the_scrape_deadline) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0, 1}})});
  stub.set_trickle(true);
  const auto t0 = Clock::now();
  const auto r = testing::run_process({SOLSCOPE_BINARY, "record", "--dcgm-exporter", stub.url(), "-o",
                                       (dir_ / "t.sqlite").string(), "--duration", "3s"},
                                      30s);
  const double took_s = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no complete answer from " + stub.url() + " within 3 s"), std::string::npos) << r.err;
  EXPECT_LT(took_s, 6.0);
}

TEST_F(StopCliTest, serve_dcgm_exporter_stops_on_sigterm_during_a_trickling_scrape) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0, 1}})});
  testing::BackgroundProcess p(
      {SOLSCOPE_BINARY, "serve", "--dcgm-exporter", stub.url(), "--listen", "127.0.0.1:0", "--no-workloads"},
      out_path(), err_path());
  ASSERT_GT(served_port(), 0) << read_file(err_path());
  trickle_from_now(stub);
  const auto [code, took_s] = stop(p, SIGTERM);
  EXPECT_EQ(code, 0) << read_file(err_path());
  EXPECT_LT(took_s, kStopWithinS);
}

TEST_F(StopCliTest, serve_prometheus_stops_on_sigterm_while_a_fleet_query_trickles) {
  DcgmExporterStub prometheus({""});
  const std::string origin = "http://127.0.0.1:" + std::to_string(prometheus.port());
  testing::BackgroundProcess p(
      {SOLSCOPE_BINARY, "serve", "--prometheus", origin, "--replay",
       SOLSCOPE_SOURCE_DIR "/tests/data/demo-trace.sqlite", "--listen", "127.0.0.1:0", "--no-workloads"},
      out_path(), err_path());
  const int port = served_port();
  ASSERT_GT(port, 0) << read_file(err_path());
  std::thread viewer([port] {  // a dashboard asking for the fleet: its query to Prometheus trickles
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(20, 0);
    (void)c.Get("/api/v1/fleet");
  });
  EXPECT_TRUE(eventually([&] { return prometheus.trickles() > 0; }));
  std::this_thread::sleep_for(300ms);
  const auto [code, took_s] = stop(p, SIGTERM);
  viewer.join();
  EXPECT_EQ(code, 0) << read_file(err_path());
  EXPECT_LT(took_s, kStopWithinS);
}

TEST_F(StopCliTest, fleet_stops_on_sigint_while_its_query_trickles) {
  DcgmExporterStub prometheus({""});
  const std::string origin = "http://127.0.0.1:" + std::to_string(prometheus.port());
  testing::BackgroundProcess p({SOLSCOPE_BINARY, "fleet", "--prometheus", origin, "--json"}, out_path(),
                               err_path());
  ASSERT_TRUE(eventually([&] { return prometheus.trickles() > 0; }));  // the first query is in flight
  std::this_thread::sleep_for(300ms);
  const auto [code, took_s] = stop(p, SIGINT);
  EXPECT_EQ(code, 1) << read_file(err_path());
  EXPECT_NE(read_file(err_path()).find("cancelled"), std::string::npos) << read_file(err_path());
  EXPECT_LT(took_s, kStopWithinS);
}

}  // namespace
}  // namespace solscope::app
