// A fake Prometheus for the fleet benchmarks: cpp-httplib on 127.0.0.1 (ephemeral port) answering the fleet
// reader's queries with canned API JSON for a SYNTHETIC fleet of `hosts` x 8 GPUs of dcgm-exporter series
// (no solscope series): 241 points per series for the 1 h window ending at kFakeEndNs (query_range), and the
// reductions Prometheus' subqueries would give (newest, mean, busy-idle steps: one value per GPU). Its own
// cost is not Prometheus': the subqueries' evaluation is not simulated. Nothing else is answered (404).
#pragma once

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace solscope::bench {

inline constexpr std::int64_t kFakeEndNs = 1'717'200'000'000'000'000;  // 2024-06-01T00:00:00Z
inline constexpr int kFakeSteps = 241;                                 // 1 h at 15 s, both ends
inline constexpr int kGpusPerHost = 8;

/// A matrix answer of one figure for every GPU; `value(host, gpu, step)`.
template <class F>
auto fake_matrix(int hosts, F value) -> std::string {
  std::string out = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  const std::int64_t start_s = kFakeEndNs / 1'000'000'000 - 3600;
  for (int h = 0; h < hosts; ++h) {
    for (int g = 0; g < kGpusPerHost; ++g) {
      if (h + g > 0) out += ',';
      out +=
          fmt::format(R"({{"metric":{{"host":"node{:04}","gpu":"{}","UUID":"GPU-{:04}-{}",)"
                      R"("modelName":"NVIDIA H100 80GB HBM3","namespace":"ml","pod":"job-{}"}},"values":[)",
                      h, g, h, g, h / 4);
      for (int s = 0; s < kFakeSteps; ++s) {
        out += fmt::format(R"({}[{},"{:.4g}"])", s == 0 ? "" : ",", start_s + 15 * s, value(h, g, s));
      }
      out += "]}";
    }
  }
  return out + "]}}";
}

/// A vector answer (one value per GPU) from `value(host, gpu)`.
template <class F>
auto fake_vector(int hosts, F value) -> std::string {
  std::string out = R"({"status":"success","data":{"resultType":"vector","result":[)";
  for (int h = 0; h < hosts; ++h) {
    for (int g = 0; g < kGpusPerHost; ++g) {
      out += fmt::format(R"({}{{"metric":{{"host":"node{:04}","gpu":"{}","UUID":"GPU-{:04}-{}",)"
                         R"("modelName":"NVIDIA H100 80GB HBM3","namespace":"ml","pod":"job-{}"}},)"
                         R"("value":[1717200000,"{:.6g}"]}})",
                         h + g > 0 ? "," : "", h, g, h, g, h / 4, value(h, g));
    }
  }
  return out + "]}}";
}

/// The newest and the mean of one figure's steps, as Prometheus' subqueries would give them.
template <class F>
void fake_reductions(int hosts, F value, std::string& last, std::string& mean) {
  last = fake_vector(hosts, [&](int h, int g) { return value(h, g, kFakeSteps - 1); });
  mean = fake_vector(hosts, [&](int h, int g) {
    double sum = 0;
    for (int s = 0; s < kFakeSteps; ++s) sum += value(h, g, s);
    return sum / kFakeSteps;
  });
}

/// The server and its canned answers.
class FakePrometheus {
 public:
  explicit FakePrometheus(int hosts) : gpus_(hosts * kGpusPerHost) {
    const auto compute = [](int h, int g, int s) { return 100.0 * (((h * 7 + g * 3 + s) % 97) / 97.0); };
    const auto memory = [](int h, int g, int s) { return 100.0 * (((h * 5 + g + s * 3) % 89) / 89.0); };
    const auto util = [](int h, int g, int s) { return static_cast<double>((h + g * 11 + s) % 101); };
    compute_ = fake_matrix(hosts, compute);
    memory_ = fake_matrix(hosts, memory);
    util_ = fake_matrix(hosts, util);
    fake_reductions(hosts, compute, compute_last_, compute_mean_);
    fake_reductions(hosts, memory, memory_last_, memory_mean_);
    fake_reductions(hosts, util, util_last_, util_mean_);
    busy_steps_ = fake_vector(hosts, [&](int h, int g) {
      int n = 0;
      for (int s = 0; s < kFakeSteps; ++s) n += util(h, g, s) > 80 && compute(h, g, s) < 20 ? 1 : 0;
      return static_cast<double>(n);
    });
    server_.Get("/api/v1/query", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string q = req.get_param_value("query");
      const bool dcgm = q.find("DCGM_") != std::string::npos;
      if (dcgm && q.rfind("count(", 0) != 0) {
        res.set_content(reduction(q), "application/json");
        return;
      }
      const std::string value =
          dcgm ? fmt::format(R"([{{"metric":{{}},"value":[1717200000,"{}"]}}])", gpus_) : "[]";
      res.set_content(R"({"status":"success","data":{"resultType":"vector","result":)" + value + "}}",
                      "application/json");
    });
    server_.Get("/api/v1/query_range", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string q = req.get_param_value("query");
      if (q.find("DCGM_") == std::string::npos) {
        res.set_content(R"({"status":"success","data":{"resultType":"matrix","result":[]}})",
                        "application/json");
      } else if (q.find("PIPE") != std::string::npos) {
        res.set_content(compute_, "application/json");
      } else if (q.find("DRAM") != std::string::npos) {
        res.set_content(memory_, "application/json");
      } else {
        res.set_content(util_, "application/json");
      }
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakePrometheus() {
    server_.stop();
    thread_.join();
  }
  FakePrometheus(const FakePrometheus&) = delete;
  auto operator=(const FakePrometheus&) -> FakePrometheus& = delete;

  /// The canned answer of a subquery: busy-idle steps, or the newest value or mean of the figure it names.
  [[nodiscard]] auto reduction(const std::string& q) const -> const std::string& {
    if (q.rfind("count_over_time", 0) == 0) return busy_steps_;
    const bool mean = q.rfind("avg_over_time", 0) == 0;
    if (q.find("PIPE") != std::string::npos) return mean ? compute_mean_ : compute_last_;
    if (q.find("DRAM") != std::string::npos) return mean ? memory_mean_ : memory_last_;
    return mean ? util_mean_ : util_last_;
  }
  [[nodiscard]] auto port() const -> int { return port_; }
  [[nodiscard]] auto url() const -> std::string { return fmt::format("http://127.0.0.1:{}", port_); }
  /// Bytes of the three range answers together.
  [[nodiscard]] auto range_bytes() const -> std::size_t {
    return compute_.size() + memory_.size() + util_.size();
  }
  [[nodiscard]] auto compute_body() const -> const std::string& { return compute_; }

 private:
  int gpus_;
  std::string compute_;
  std::string memory_;
  std::string util_;
  std::string compute_last_, compute_mean_, memory_last_, memory_mean_, util_last_, util_mean_, busy_steps_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace solscope::bench
