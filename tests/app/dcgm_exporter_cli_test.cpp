// End-to-end: the solscope binary with --dcgm-exporter against a local server replaying SYNTHETIC
// dcgm-exporter scrapes whose values change from one scrape to the next. Checks the trace's Compute and
// Memory SOL, the interval floor (exit 2) and the refusal of a page that is not dcgm-exporter's (exit 1).
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <httplib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
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
using test_support::dcgm_scrape;
using test_support::DcgmExporterStub;
namespace fs = std::filesystem;

auto solscope(std::vector<std::string> args) -> testing::ProcessResult {
  args.insert(args.begin(), SOLSCOPE_BINARY);
  return testing::run_process(args, 60s);
}

auto split(const std::string& line, char sep) -> std::vector<std::string> {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, sep);) out.push_back(cell);
  return out;
}

/// (compute_sol_pct, memory_sol_pct) of device 0 in `solscope export FILE --format csv`, in time order.
auto sol_of_gpu0(const std::string& file) -> std::vector<std::pair<double, double>> {
  const auto r = solscope({"export", file, "--format", "csv"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::stringstream in(r.out);
  std::string line;
  std::getline(in, line);
  const auto header = split(line, ',');
  const auto column = [&header](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::size_t device = column("device"), source = column("source"), compute = column("compute_sol_pct"),
                    memory = column("memory_sol_pct");
  std::vector<std::pair<double, double>> out;
  while (std::getline(in, line)) {
    const auto cells = split(line, ',');
    if (cells.size() <= memory || cells[device] != "0") continue;
    EXPECT_EQ(cells[source], "dcgm");
    out.emplace_back(std::stod(cells[compute]), std::stod(cells[memory]));
  }
  return out;
}

class DcgmExporterCliTest : public ::testing::Test {
 protected:
  testing::ScratchDir scratch_{"solscope-dcgm"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(DcgmExporterCliTest, record_writes_the_exporters_sol_to_the_trace) {
  // GPU 0: tensor / FP32 / DRAM ratios per scrape; Compute SOL = the busiest pipe, Memory SOL = DRAM active.
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0.05, 90}, {1, 0, 0, 0, 0}}),
                         dcgm_scrape({{0, 0.3, 0.4, 0.45, 91}, {1, 0, 0, 0, 0}}),
                         dcgm_scrape({{0, 0.253, 0.612, 0.05, 97}, {1, 0, 0, 0, 0}})});
  const std::string trace = (dir_ / "t.sqlite").string();
  const auto r = solscope({"record", "--dcgm-exporter", stub.url(), "-o", trace, "--duration", "2500ms"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::pair<double, double>> expected = {{10.0, 20.0}, {45.0, 40.0}, {25.3, 61.2}};
  const auto got = sol_of_gpu0(trace);
  ASSERT_GE(got.size(), 2u);  // the first scrape at start, then one per second
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto& want = expected[std::min(i, expected.size() - 1)];
    EXPECT_NEAR(got[i].first, want.first, 1e-9) << "sample " << i;
    EXPECT_NEAR(got[i].second, want.second, 1e-9) << "sample " << i;
  }
  const auto meta = solscope({"report", trace});
  EXPECT_NE(meta.out.find("source dcgm"), std::string::npos) << meta.out;
}

TEST_F(DcgmExporterCliTest, serve_exports_the_exporters_sol_on_its_metrics_page) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.253, 0.612, 0.312, 97}})});
  const std::string err_path = (dir_ / "err").string();
  testing::BackgroundProcess p(
      {SOLSCOPE_BINARY, "serve", "--dcgm-exporter", stub.url(), "--listen", "127.0.0.1:0", "--no-workloads"},
      (dir_ / "out").string(), err_path);
  const std::regex listening("solscope: listening on http://127\\.0\\.0\\.1:([0-9]+)");
  int port = 0;
  for (int i = 0; i < 300 && port == 0; ++i) {
    std::stringstream err;
    err << std::ifstream(err_path).rdbuf();
    const std::string text = err.str();
    std::smatch m;
    if (std::regex_search(text, m, listening)) port = std::stoi(m[1]);
    if (port == 0) std::this_thread::sleep_for(50ms);
  }
  ASSERT_GT(port, 0);
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(10, 0);
  std::string body;
  for (int i = 0; i < 100 && body.find("solscope_memory_sol_ratio{gpu=\"0\"") == std::string::npos; ++i) {
    const auto res = c.Get("/metrics");
    body = res ? res->body : std::string();
    std::this_thread::sleep_for(50ms);
  }
  // Compute SOL = FP32 0.312 (busier than tensor 0.253), Memory SOL = DRAM 0.612, as ratios.
  EXPECT_NE(body.find("pipe=\"fma\"} 0.312\n"), std::string::npos) << body;
  EXPECT_NE(body.find("path=\"dram\"} 0.612\n"), std::string::npos) << body;
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait(15s), 0);
}

TEST_F(DcgmExporterCliTest, an_interval_below_one_second_is_a_usage_error) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0, 1}})});
  const auto r = solscope({"--dcgm-exporter", stub.url(), "--interval", "100ms", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--interval 100ms is below 1s, the fastest --dcgm-exporter scrapes"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(stub.requests(), 0u);
}

TEST_F(DcgmExporterCliTest, a_page_that_is_not_dcgm_exporter_fails_at_start) {
  DcgmExporterStub stub({"# TYPE node_load1 gauge\nnode_load1 0.5\n"});
  const auto r = solscope(
      {"record", "--dcgm-exporter", stub.url(), "-o", (dir_ / "x.sqlite").string(), "--duration", "2s"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(stub.url() + " is not a dcgm-exporter page: no DCGM_FI_* series"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.sqlite"));
}

TEST_F(DcgmExporterCliTest, an_url_that_does_not_answer_fails_at_start) {
  int port = 0;
  {
    DcgmExporterStub gone({""});
    port = gone.port();
  }
  const auto r =
      solscope({"--dcgm-exporter", "http://127.0.0.1:" + std::to_string(port) + "/metrics", "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no answer from http://127.0.0.1:" + std::to_string(port) + "/metrics"),
            std::string::npos)
      << r.err;
}

TEST_F(DcgmExporterCliTest, replay_and_dcgm_exporter_exclude_each_other) {
  const auto r =
      solscope({"--dcgm-exporter", "http://127.0.0.1:9/metrics", "--replay", "x.sqlite", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--replay and --dcgm-exporter exclude each other"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace solscope::app
