// `solscope devices`' hint to use --dcgm-exporter, with a fake loopback client (no network) and probes shaped
// as the NVIDIA backend fills them. Scrapes are SYNTHETIC.
#include <gtest/gtest.h>

#include <map>

#include "runtime/dcgm_suggestion.hpp"

namespace solscope::app {
namespace {

/// Answers GET host:port/path from a table; Unavailable (connection refused) otherwise.
class FakeLoopback final : public net::HttpClient {
 public:
  void set(std::string key, int status, std::string body) {
    answers_[std::move(key)] = {status, std::move(body)};
  }
  auto get(std::string_view host, std::uint16_t port, std::string_view path)
      -> core::Result<net::HttpResponse> override {
    const std::string key = std::string(host) + ":" + std::to_string(port) + std::string(path);
    asked.push_back(key);
    const auto it = answers_.find(key);
    if (it == answers_.end()) return core::fail(core::ErrorCode::Unavailable, "connection refused: " + key);
    return net::HttpResponse{it->second.first, it->second.second};
  }
  std::vector<std::string> asked;

 private:
  std::map<std::string, std::pair<int, std::string>> answers_;
};

auto probe_with_reason(const std::string& reason) -> GpuProbe {
  GpuProbe p;
  p.vendor = "NVIDIA";
  GpuProbeDevice d;
  d.status.reason = reason;
  p.devices.push_back(d);
  return p;
}

const std::string kProfiling =
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n\"} 0.25\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n\"} 90\n";
const std::string kDefaultCountersOnly = "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n\"} 90\n";
const std::string kExpected =
    "DCGM profiling holds the GPU counters here; dcgm-exporter answers at http://127.0.0.1:9400/metrics: run "
    "`solscope --dcgm-exporter http://127.0.0.1:9400/metrics` (tensor/FP pipes and DRAM; L2/L1/issue "
    "unknown)";

TEST(DcgmSuggestion, profiling_figures_on_the_local_exporter_give_the_hint) {
  FakeLoopback client;
  client.set("127.0.0.1:9400/metrics", 200, kProfiling);
  EXPECT_EQ(dcgm_exporter_suggestion(probe_with_reason(""), client), kExpected);
  EXPECT_EQ(client.asked, std::vector<std::string>{"127.0.0.1:9400/metrics"});
}

TEST(DcgmSuggestion, counters_held_and_an_exporter_without_profiling_give_the_hint) {
  FakeLoopback client;
  client.set("127.0.0.1:9400/metrics", 200, kDefaultCountersOnly);
  EXPECT_EQ(dcgm_exporter_suggestion(
                probe_with_reason("PM sampling unavailable: counters held by another profiler (DCGM, Nsight, "
                                  "another solscope)"),
                client),
            kExpected);
  // Not held, and no profiling figures: DCGM does not hold the counters, no hint.
  EXPECT_EQ(dcgm_exporter_suggestion(probe_with_reason(""), client), "");
}

TEST(DcgmSuggestion, no_hint_without_a_dcgm_exporter) {
  const GpuProbe held = probe_with_reason("PM sampling unavailable: counters held by another profiler");
  FakeLoopback nothing;  // connection refused
  EXPECT_EQ(dcgm_exporter_suggestion(held, nothing), "");
  FakeLoopback other;  // something else on :9400
  other.set("127.0.0.1:9400/metrics", 200, "# TYPE node_load1 gauge\nnode_load1 0.5\n");
  EXPECT_EQ(dcgm_exporter_suggestion(held, other), "");
  FakeLoopback html;
  html.set("127.0.0.1:9400/metrics", 200, "<html></html>\n");
  EXPECT_EQ(dcgm_exporter_suggestion(held, html), "");
  FakeLoopback error;
  error.set("127.0.0.1:9400/metrics", 503, kProfiling);
  EXPECT_EQ(dcgm_exporter_suggestion(held, error), "");
}

TEST(DcgmSuggestion, placeholder_profiling_values_are_not_profiling) {
  FakeLoopback client;
  client.set("127.0.0.1:9400/metrics", 200,
             "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\",UUID=\"GPU-a\"} 140737488355330\n");
  EXPECT_EQ(dcgm_exporter_suggestion(probe_with_reason(""), client), "");
}

}  // namespace
}  // namespace solscope::app
