// A stand-in for NVIDIA dcgm-exporter in tests: a cpp-httplib server on 127.0.0.1 that answers GET /metrics
// with a list of scrapes in turn (the last one repeats), can go down (connection refused) and come back on
// the same port, or trickle (one byte every 0.3 s without end: no per-read timeout ever fires). It also
// stands in for a trickling Prometheus: /api/v1/query and /api/v1/query_range (GET and POST) always trickle.
// The scrapes the tests give it are SYNTHETIC (dcgm_scrape() below) or copied fixtures.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace solscope::test_support {

/// One GPU's line set in a SYNTHETIC dcgm-exporter scrape: ratios 0-1 as dcgm-exporter prints them.
struct StubGpu {
  int gpu = 0;
  double tensor = 0;
  double dram = 0;
  double fp32 = 0;
  double util_pct = 0;
};

/// A SYNTHETIC scrape in dcgm-exporter's format (labels gpu, UUID, device, modelName, Hostname).
inline auto dcgm_scrape(const std::vector<StubGpu>& gpus) -> std::string {
  std::string out = "# SYNTHETIC scrape for tests\n";
  const auto line = [&out](const char* name, const StubGpu& g, double v) {
    char buf[320];
    std::snprintf(
        buf, sizeof buf,
        "%s{gpu=\"%d\",UUID=\"GPU-0000000%d-test\",device=\"nvidia%d\",modelName=\"NVIDIA H100 80GB "
        "HBM3\",Hostname=\"stub-node\"} %.6f\n",
        name, g.gpu, g.gpu, g.gpu, v);
    out += buf;
  };
  for (const auto& g : gpus) {
    line("DCGM_FI_DEV_GPU_UTIL", g, g.util_pct);
    line("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", g, g.tensor);
    line("DCGM_FI_PROF_PIPE_FP32_ACTIVE", g, g.fp32);
    line("DCGM_FI_PROF_DRAM_ACTIVE", g, g.dram);
  }
  return out;
}

class DcgmExporterStub {
 public:
  /// Serves `scrapes` in turn at /metrics on an ephemeral port of 127.0.0.1.
  explicit DcgmExporterStub(std::vector<std::string> scrapes, int status = 200)
      : scrapes_(std::move(scrapes)), status_(status) {
    up(0);
  }
  ~DcgmExporterStub() { down(); }
  DcgmExporterStub(const DcgmExporterStub&) = delete;
  auto operator=(const DcgmExporterStub&) -> DcgmExporterStub& = delete;

  /// Stops answering: connections are refused until up().
  void down() {
    if (!server_) return;
    going_down_ = true;
    server_->stop();
    thread_.join();
    server_.reset();
  }
  /// Answers again on the same port.
  void up() { up(port_); }

  [[nodiscard]] auto port() const -> int { return port_; }
  [[nodiscard]] auto url() const -> std::string {
    return "http://127.0.0.1:" + std::to_string(port_) + "/metrics";
  }
  /// GET /metrics requests answered so far.
  [[nodiscard]] auto requests() -> std::size_t {
    const std::lock_guard lock(mutex_);
    return requests_;
  }
  /// Delays every answer by `ms` (a hung exporter, for the client's read timeout).
  void set_delay_ms(int ms) {
    const std::lock_guard lock(mutex_);
    delay_ms_ = ms;
  }

  /// From now on (true) every /metrics answer trickles, until set_trickle(false).
  void set_trickle(bool on) { trickle_ = on; }
  /// Answers that trickled (or trickle now) so far, on any path.
  [[nodiscard]] auto trickles() const -> int { return trickles_.load(); }

 private:
  /// An endless answer of one '#' every 0.3 s; it ends when the client goes or the stub goes down.
  void trickle_into(httplib::Response& response) {
    ++trickles_;
    response.set_chunked_content_provider("text/plain", [this](std::size_t, httplib::DataSink& sink) {
      for (int i = 0; i < 30 && !going_down_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return !going_down_ && sink.write("#", 1);
    });
  }

  void up(int port) {
    going_down_ = false;
    server_ = std::make_unique<httplib::Server>();
    for (const char* path : {"/api/v1/query", "/api/v1/query_range"}) {
      server_->Get(path,
                   [this](const httplib::Request&, httplib::Response& response) { trickle_into(response); });
      server_->Post(path,
                    [this](const httplib::Request&, httplib::Response& response) { trickle_into(response); });
    }
    server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
      std::string body;
      int delay = 0;
      {
        const std::lock_guard lock(mutex_);
        body = scrapes_.empty() ? std::string() : scrapes_[std::min(requests_, scrapes_.size() - 1)];
        ++requests_;
        delay = delay_ms_;
      }
      if (delay > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      if (trickle_) {
        trickle_into(response);
        return;
      }
      response.status = status_;
      response.set_content(body, "text/plain; version=0.0.4");
    });
    if (port == 0) {
      port_ = server_->bind_to_any_port("127.0.0.1");
    } else {
      for (int i = 0; i < 200 && !server_->bind_to_port("127.0.0.1", port); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    for (int i = 0; i < 5000 && !server_->is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  std::vector<std::string> scrapes_;
  int status_ = 200;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::size_t requests_ = 0;
  int delay_ms_ = 0;
  std::atomic<bool> trickle_{false};
  std::atomic<int> trickles_{0};
  std::atomic<bool> going_down_{false};
};

}  // namespace solscope::test_support
