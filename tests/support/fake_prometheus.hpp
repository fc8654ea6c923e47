// A fake Prometheus for the fleet tests and benchmarks: cpp-httplib on 127.0.0.1 (ephemeral port) answering
// the fleet reader's queries with canned API JSON for a SYNTHETIC fleet of `hosts` x 8 GPUs of dcgm-exporter
// series (no solscope series): 241 points per series for the 1 h window ending at kFakeEndNs (query_range),
// and the reductions Prometheus' subqueries would give (newest, mean, busy-idle steps: one value per GPU).
// Its own cost is not Prometheus': the subqueries' evaluation is not simulated. Nothing else is answered
// (404). Like Prometheus it takes both GET (parameters in the URL) and form-encoded POST (parameters in the
// body, of any length); like a Prometheus behind a proxy with default buffers it answers 414 to a request
// line over 8 KiB (cpp-httplib's CPPHTTPLIB_REQUEST_URI_MAX_LENGTH).
#pragma once

#include <fmt/format.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
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

/// A form body's parameters ("a=1&b=x%20y"), '+' and %XX decoded.
inline auto fake_form_params(const std::string& body) -> std::map<std::string, std::string> {
  std::map<std::string, std::string> out;
  const auto decode = [](std::string_view s) {
    std::string text;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%' && i + 2 < s.size()) {
        text += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        text += s[i] == '+' ? ' ' : s[i];
      }
    }
    return text;
  };
  std::size_t at = 0;
  while (at <= body.size()) {
    const std::size_t end = std::min(body.find('&', at), body.size());
    const std::string_view pair = std::string_view(body).substr(at, end - at);
    const std::size_t eq = pair.find('=');
    if (eq != std::string_view::npos) out[decode(pair.substr(0, eq))] = decode(pair.substr(eq + 1));
    at = end + 1;
  }
  return out;
}

/// The server and its canned answers.
class FakePrometheus {
 public:
  /// `with_series` false: no range answers are built (query_range answers empty matrices), for tests of many
  /// GPUs that read only the reductions.
  explicit FakePrometheus(int hosts, bool with_series = true) : gpus_(hosts * kGpusPerHost) {
    const auto compute = [](int h, int g, int s) { return 100.0 * (((h * 7 + g * 3 + s) % 97) / 97.0); };
    const auto memory = [](int h, int g, int s) { return 100.0 * (((h * 5 + g + s * 3) % 89) / 89.0); };
    const auto util = [](int h, int g, int s) { return static_cast<double>((h + g * 11 + s) % 101); };
    if (with_series) {
      compute_ = fake_matrix(hosts, compute);
      memory_ = fake_matrix(hosts, memory);
      util_ = fake_matrix(hosts, util);
    }
    fake_reductions(hosts, compute, compute_last_, compute_mean_);
    fake_reductions(hosts, memory, memory_last_, memory_mean_);
    fake_reductions(hosts, util, util_last_, util_mean_);
    busy_steps_ = fake_vector(hosts, [&](int h, int g) {
      int n = 0;
      for (int s = 0; s < kFakeSteps; ++s) n += util(h, g, s) > 80 && compute(h, g, s) < 20 ? 1 : 0;
      return static_cast<double>(n);
    });
    server_.Get("/api/v1/query", [this](const httplib::Request& req, httplib::Response& res) {
      ++gets_;
      answer_query(req.get_param_value("query"), res);
    });
    server_.Get("/api/v1/query_range", [this](const httplib::Request& req, httplib::Response& res) {
      ++gets_;
      answer_range(req.get_param_value("query"), res);
    });
    // With a content reader cpp-httplib leaves the form to the handler (its own form parsing refuses bodies
    // over 8 KiB with 413; Prometheus takes them).
    server_.Post("/api/v1/query",
                 [this](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& read) {
                   answer_query(post_param(read, "query"), res);
                 });
    server_.Post("/api/v1/query_range",
                 [this](const httplib::Request&, httplib::Response& res, const httplib::ContentReader& read) {
                   answer_range(post_param(read, "query"), res);
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

  /// Answers the instant queries that `answer` returns a `data.result` array for (JSON text) before any
  /// canned answer, e.g. the workload roll-up's queries of `fleet --by`; nullopt leaves a query to the canned
  /// answers. Set it before the first query.
  void answer_instant_with(std::function<std::optional<std::string>(const std::string& query)> answer) {
    instant_hook_ = std::move(answer);
  }

  /// GET requests answered so far.
  [[nodiscard]] auto gets() const -> int { return gets_.load(); }
  /// POST requests answered so far, and the largest form body among them in bytes.
  [[nodiscard]] auto posts() const -> int { return posts_.load(); }
  [[nodiscard]] auto largest_form_bytes() const -> std::size_t { return largest_form_.load(); }

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
  auto post_param(const httplib::ContentReader& read, const std::string& name) -> std::string {
    std::string body;
    read([&](const char* data, std::size_t n) {
      body.append(data, n);
      return true;
    });
    ++posts_;
    if (body.size() > largest_form_.load()) largest_form_ = body.size();
    return fake_form_params(body)[name];
  }

  void answer_query(const std::string& q, httplib::Response& res) const {
    if (instant_hook_) {
      if (auto result = instant_hook_(q)) {
        res.set_content(R"({"status":"success","data":{"resultType":"vector","result":)" + *result + "}}",
                        "application/json");
        return;
      }
    }
    const bool dcgm = q.find("DCGM_") != std::string::npos;
    if (dcgm && q.rfind("count(", 0) != 0 && q.rfind("count by", 0) != 0) {
      res.set_content(reduction(q), "application/json");
      return;
    }
    const std::string value = dcgm && q.rfind("count(", 0) == 0
                                  ? fmt::format(R"([{{"metric":{{}},"value":[1717200000,"{}"]}}])", gpus_)
                              : dcgm ? hosts_answer()
                                     : "[]";
    res.set_content(R"({"status":"success","data":{"resultType":"vector","result":)" + value + "}}",
                    "application/json");
  }

  void answer_range(const std::string& q, httplib::Response& res) const {
    if (q.find("DCGM_") == std::string::npos || compute_.empty()) {
      res.set_content(R"({"status":"success","data":{"resultType":"matrix","result":[]}})",
                      "application/json");
    } else if (q.find("PIPE") != std::string::npos) {
      res.set_content(compute_, "application/json");
    } else if (q.find("DRAM") != std::string::npos) {
      res.set_content(memory_, "application/json");
    } else {
      res.set_content(util_, "application/json");
    }
  }

  /// `count by (host)`: kGpusPerHost GPUs on every host.
  [[nodiscard]] auto hosts_answer() const -> std::string {
    std::string out = "[";
    for (int h = 0; h < gpus_ / kGpusPerHost; ++h) {
      out += fmt::format(R"({}{{"metric":{{"host":"node{:04}"}},"value":[1717200000,"{}"]}})",
                         h == 0 ? "" : ",", h, kGpusPerHost);
    }
    return out + "]";
  }

  int gpus_;
  std::atomic<int> gets_{0};
  std::atomic<int> posts_{0};
  std::atomic<std::size_t> largest_form_{0};
  std::string compute_;
  std::string memory_;
  std::string util_;
  std::string compute_last_, compute_mean_, memory_last_, memory_mean_, util_last_, util_mean_, busy_steps_;
  std::function<std::optional<std::string>(const std::string&)> instant_hook_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace solscope::bench
