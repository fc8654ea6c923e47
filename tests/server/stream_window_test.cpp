// The live stream's `window` events (docs/http-api.md "/api/v1/stream"): each GPU's window, sent once as it
// completes, with the figures of core::WindowAccumulator and the bound class core::classify_bound gives its
// means. SYNTHETIC samples; a live server on an ephemeral loopback port.
#include <httplib.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/derive.hpp"
#include "core/window.hpp"
#include "server/detail/sse_parser.hpp"
#include "server_test_support.hpp"
#include "wire/sample_json.hpp"

namespace solscope::server {
namespace {

using namespace std::chrono_literals;
using testing::LiveServerTest;

constexpr std::int64_t kSampleNs = 100'000'000;

/// A SYNTHETIC sample of `device` with the GR engine busy, so that its window has a definite bound class.
auto busy_sample(std::uint32_t device, std::int64_t t_ns, double tensor_pct) -> core::SolSample {
  core::SolSample s = testing::synthetic_sample(device, t_ns, tensor_pct);
  s.metrics[core::index_of(core::MetricId::GrActive)] = 100.0;
  return s;
}

class StreamWindowTest : public LiveServerTest {
 protected:
  /// Adds `s` to the state, then publishes it, as the daemon's sampling thread does.
  void feed(const core::SolSample& s) {
    state_.add(s);
    server_->publish(s);
  }
};

TEST_F(StreamWindowTest, a_closed_window_is_sent_once_with_the_cores_figures_and_bound) {
  state_.set_devices({testing::synthetic_device(0), testing::synthetic_device(1)});
  start();
  std::vector<SseEvent> events;
  std::thread reader([&] {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(10, 0);
    SseParser parser;
    c.Get("/api/v1/stream?device=1", [&](const char* data, std::size_t n) {
      parser.feed(std::string_view(data, n), [&](const SseEvent& e) { events.push_back(e); });
      // Up to the sample that follows the first window.
      const auto window =
          std::find_if(events.begin(), events.end(), [](auto& e) { return e.type == "window"; });
      return window == events.end() || std::next(window) == events.end();
    });
  });
  while (server_->stream_stats().clients == 0) std::this_thread::sleep_for(5ms);
  // Window kT0 of both GPUs: ten 100 ms samples, tensor 20 % to 65 % (mean 42.5 %), DRAM 50 %; each sample
  // says "compute", the window's means are latency-bound. A sample of the next second completes it.
  core::WindowAccumulator expected;
  for (int i = 0; i < 10; ++i) {
    const core::SolSample s = busy_sample(1, testing::kT0 + i * kSampleNs, 20.0 + 5.0 * i);
    expected.add(s);
    feed(s);
    feed(busy_sample(0, testing::kT0 + i * kSampleNs, 10.0));
  }
  feed(busy_sample(0, testing::kT0 + 10 * kSampleNs, 10.0));  // GPU 0's window: filtered out by ?device=1
  feed(busy_sample(1, testing::kT0 + 10 * kSampleNs, 90.0));
  reader.join();

  ASSERT_EQ(events.size(), 13U);  // hello, ten samples, the window, the sample that completed it
  EXPECT_EQ(events[0].type, "hello");
  for (std::size_t i = 1; i <= 10; ++i) EXPECT_EQ(events[i].type, "sample") << i;
  EXPECT_EQ(events[11].type, "window");
  EXPECT_EQ(events[12].type, "sample");
  EXPECT_EQ(events[11].id, "11");  // ids run on over both kinds of event
  EXPECT_EQ(events[12].id, "12");

  const core::SolSample want = expected.result();
  const nlohmann::json got = nlohmann::json::parse(events[11].data);
  EXPECT_EQ(got["device"], 1);
  EXPECT_EQ(got["uuid"], "GPU-SYNTHETIC-1");
  EXPECT_EQ(got["t_start_ns"], testing::kT0);
  EXPECT_EQ(got["t_end_ns"], testing::kT0 + 10 * kSampleNs);
  EXPECT_DOUBLE_EQ(got["compute_sol_pct"].get<double>(), want.compute_sol_pct);
  EXPECT_DOUBLE_EQ(got["compute_sol_pct"].get<double>(), 42.5);
  EXPECT_DOUBLE_EQ(got["memory_sol_pct"].get<double>(), want.memory_sol_pct);
  EXPECT_EQ(got["compute_pipe"], "tensor");
  EXPECT_EQ(got["memory_path"], "dram");
  EXPECT_EQ(want.bound, core::classify_bound(want));
  EXPECT_EQ(got["bound"], std::string(core::to_string(core::classify_bound(want))));
  EXPECT_EQ(got["bound"], "latency");
  // The same window as /api/v1/samples and the wire's window shape, byte for byte.
  const core::DeviceInfo info = testing::synthetic_device(1).info;
  EXPECT_EQ(got, nlohmann::json::parse(wire::window_to_json(want, &info).dump()));
  EXPECT_EQ(events[11].data, window_event_json(state_.windows(1, 0).front(), &info));
}

TEST_F(StreamWindowTest, windows_completed_before_a_client_connects_are_not_sent_to_it) {
  state_.set_devices({testing::synthetic_device(0)});
  start();
  for (int i = 0; i < 25; ++i) feed(busy_sample(0, testing::kT0 + i * kSampleNs, 30.0));  // two windows done
  std::vector<SseEvent> events;
  std::thread reader([&] {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(10, 0);
    SseParser parser;
    c.Get("/api/v1/stream", [&](const char* data, std::size_t n) {
      parser.feed(std::string_view(data, n), [&](const SseEvent& e) { events.push_back(e); });
      return events.size() < 3;
    });
  });
  while (server_->stream_stats().clients == 0) std::this_thread::sleep_for(5ms);
  feed(busy_sample(0, testing::kT0 + 25 * kSampleNs, 30.0));  // still window kT0 + 2 s: no window completes
  feed(busy_sample(0, testing::kT0 + 26 * kSampleNs, 30.0));
  reader.join();
  ASSERT_EQ(events.size(), 3U);
  EXPECT_EQ(events[1].type, "sample");
  EXPECT_EQ(events[2].type, "sample");
}

}  // namespace
}  // namespace solscope::server
