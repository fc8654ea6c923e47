// DcgmExporterSource against a local HTTP server replaying SYNTHETIC dcgm-exporter scrapes (values change
// from one scrape to the next). The interval floor is lowered to 50 ms so that the tests run quickly; they
// wait for scrapes with a deadline and never assert a duration.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <regex>
#include <thread>
#include <vector>

#include "sources/dcgm/dcgm_exporter_source.hpp"
#include "support/dcgm_exporter_stub.hpp"

namespace solscope::sources {
namespace {

using core::MetricId;
using test_support::dcgm_scrape;
using test_support::DcgmExporterStub;
using test_support::StubGpu;

constexpr std::int64_t kFastNs = 50'000'000;

auto fast_options(const std::string& url) -> DcgmExporterOptions {
  DcgmExporterOptions o;
  o.url = url;
  o.min_interval_ns = kFastNs;
  o.read_timeout_s = 0.5;
  return o;
}

auto open_started(const std::string& url, SourceConfig config = {.interval_ns = kFastNs})
    -> std::unique_ptr<DcgmExporterSource> {
  auto source = DcgmExporterSource::open(fast_options(url));
  EXPECT_TRUE(source) << source.error().message;
  if (!source) return nullptr;
  auto started = (*source)->start(config);
  EXPECT_TRUE(started) << started.error().message;
  return std::move(*source);
}

/// Polls until `done` holds over everything polled so far (at most 10 s); returns all samples polled.
auto poll_until(CounterSource& source, const std::function<bool(const std::vector<core::RawSample>&)>& done)
    -> std::vector<core::RawSample> {
  std::vector<core::RawSample> all;
  for (int i = 0; i < 1000; ++i) {
    auto got = source.poll();
    EXPECT_TRUE(got);
    all.insert(all.end(), got->begin(), got->end());
    if (done(all)) return all;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "condition not reached in 10 s";
  return all;
}

auto wait_for(const std::function<bool()>& done) -> bool {
  for (int i = 0; i < 1000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

const std::string kReason =
    "DCGM via dcgm-exporter at http://127.0.0.1:PORT/metrics: tensor/FP pipes and DRAM only; L2/L1/issue "
    "unknown";

auto reason_for(const DcgmExporterStub& stub) -> std::string {
  std::string r = kReason;
  r.replace(r.find("PORT"), 4, std::to_string(stub.port()));
  return r;
}

TEST(DcgmExporterSource, samples_follow_the_scrapes) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0.05, 90}, {1, 0.5, 0.6, 0, 100}}),
                         dcgm_scrape({{0, 0.3, 0.4, 0.05, 91}, {1, 0.7, 0.8, 0, 100}}),
                         dcgm_scrape({{0, 0.253, 0.612, 0.05, 97}, {1, 0.0, 0.0, 0.9, 0}})});
  auto source = open_started(stub.url());
  ASSERT_TRUE(source);
  const auto devices = source->devices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].index, 0u);
  EXPECT_EQ(devices[1].uuid, "GPU-00000001-test");
  EXPECT_EQ(devices[1].host, "stub-node");
  const DeviceStatus st = source->status(0);
  EXPECT_EQ(st.source, core::SourceKind::Dcgm);
  EXPECT_EQ(st.reason, reason_for(stub));
  EXPECT_FALSE(st.lost);
  EXPECT_EQ(source->status(7).source, core::SourceKind::None);

  // The first scrape's samples are ready as soon as start() returns.
  auto first = source->poll();
  ASSERT_TRUE(first);
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].source, core::SourceKind::Dcgm);
  EXPECT_DOUBLE_EQ((*first)[0].value(MetricId::TensorPipe), 10.0);
  EXPECT_DOUBLE_EQ((*first)[0].value(MetricId::DramThroughput), 20.0);
  EXPECT_DOUBLE_EQ((*first)[1].value(MetricId::TensorPipe), 50.0);
  EXPECT_EQ((*first)[0].duration_ns(), kFastNs);

  const auto later = poll_until(*source, [](const auto& all) {
    return std::any_of(all.begin(), all.end(), [](const auto& s) {
      return s.device_index == 1 && s.value(MetricId::FmaPipe) == 90.0;
    });
  });
  std::vector<core::RawSample> gpu0;
  for (const auto& s : later) {
    if (s.device_index == 0) gpu0.push_back(s);
  }
  ASSERT_GE(gpu0.size(), 2u);
  EXPECT_DOUBLE_EQ(gpu0[0].value(MetricId::TensorPipe), 30.0);
  EXPECT_DOUBLE_EQ(gpu0[0].value(MetricId::DramThroughput), 40.0);
  EXPECT_DOUBLE_EQ(gpu0[0].value(MetricId::GpuUtil), 91.0);
  EXPECT_EQ(gpu0[0].t_start_ns, (*first)[0].t_end_ns);  // back to back
  EXPECT_EQ(gpu0[0].flags, 0u);
  EXPECT_DOUBLE_EQ(gpu0[1].value(MetricId::TensorPipe), 25.3);
  EXPECT_DOUBLE_EQ(gpu0[1].value(MetricId::DramThroughput), 61.2);
  EXPECT_TRUE(std::isnan(gpu0[1].value(MetricId::L2Throughput)));
  source->stop();
  source->stop();  // idempotent
}

TEST(DcgmExporterSource, a_gpu_missing_from_a_later_scrape_is_lost) {
  DcgmExporterStub stub(
      {dcgm_scrape({{0, 0.1, 0.2, 0, 1}, {1, 0.5, 0.6, 0, 1}}), dcgm_scrape({{0, 0.3, 0.4, 0, 1}})});
  auto source = open_started(stub.url());
  ASSERT_TRUE(source);
  ASSERT_TRUE(wait_for([&] { return source->status(1).lost; }));
  EXPECT_FALSE(source->status(0).lost);
  const std::string reason = source->status(1).reason;
  EXPECT_EQ(reason.rfind("device 1 missing from the scrape of ", 0), 0u) << reason;
  EXPECT_TRUE(reason.ends_with(" UTC; " + reason_for(stub))) << reason;
  // After the loss only GPU 0 keeps sampling.
  (void)source->poll();
  const auto after = poll_until(*source, [](const auto& all) { return all.size() >= 3; });
  for (const auto& s : after) EXPECT_EQ(s.device_index, 0u);
}

TEST(DcgmExporterSource, exporter_down_stops_samples_says_so_and_retries) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0, 1}})});
  auto source = open_started(stub.url());
  ASSERT_TRUE(source);
  stub.down();
  ASSERT_TRUE(
      wait_for([&] { return source->status(0).reason.find("no scrape since") != std::string::npos; }));
  const DeviceStatus st = source->status(0);
  EXPECT_EQ(st.source, core::SourceKind::Dcgm);
  EXPECT_FALSE(st.lost);
  EXPECT_NE(st.reason.find("no answer from " + stub.url().substr(0, stub.url().size() - 8)),
            std::string::npos)
      << st.reason;
  EXPECT_EQ(st.reason.rfind("no scrape since ", 0), 0u) << st.reason;
  EXPECT_NE(st.reason.find("retrying every 50 ms; " + reason_for(stub)), std::string::npos) << st.reason;
  (void)source->poll();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // four intervals without an exporter
  auto none = source->poll();
  ASSERT_TRUE(none);
  EXPECT_EQ(none->size(), 0u);

  stub.up();  // back on the same port: samples resume and the reason is the plain one again
  const auto back = poll_until(*source, [](const auto& all) { return !all.empty(); });
  EXPECT_DOUBLE_EQ(back[0].value(MetricId::TensorPipe), 10.0);
  EXPECT_EQ(back[0].flags & core::kSampleGapBefore, core::kSampleGapBefore);  // the outage is a gap
  EXPECT_EQ(back[0].duration_ns(), kFastNs);                                  // not spread over it
  EXPECT_TRUE(wait_for([&] { return source->status(0).reason == reason_for(stub); }));
}

TEST(DcgmExporterSource, a_hung_exporter_times_out_and_stop_does_not_hang) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0, 1}})});
  auto source = open_started(stub.url());
  ASSERT_TRUE(source);
  stub.set_delay_ms(1500);  // longer than the 0.5 s read timeout
  ASSERT_TRUE(
      wait_for([&] { return source->status(0).reason.find("no scrape since") != std::string::npos; }));
  source->stop();  // returns once the scrape in flight times out
  stub.set_delay_ms(0);
}

TEST(DcgmExporterSource, values_outside_their_range_are_unknown_and_the_status_counts_them) {
  // Before: -Inf became a -inf % tensor pipe (and "Compute SOL -inf %"), the ratio -1 a -100 % FP32 pipe.
  const std::string labels = "{gpu=\"0\",UUID=\"GPU-00000000-test\",Hostname=\"stub-node\"}";
  DcgmExporterStub stub({"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE" + labels + " -Inf\nDCGM_FI_PROF_PIPE_FP32_ACTIVE" +
                         labels + " -1\nDCGM_FI_PROF_DRAM_ACTIVE" + labels + " 0.25\n"});
  auto source = open_started(stub.url());
  ASSERT_TRUE(source);
  auto first = source->poll();
  ASSERT_TRUE(first);
  ASSERT_EQ(first->size(), 1u);
  EXPECT_TRUE(std::isnan((*first)[0].value(MetricId::TensorPipe)));
  EXPECT_TRUE(std::isnan((*first)[0].value(MetricId::FmaPipe)));
  EXPECT_DOUBLE_EQ((*first)[0].value(MetricId::DramThroughput), 25.0);
  // The count grows with every scrape of the same page; the news comes first, the usual reason after it.
  const std::string reason = source->status(0).reason;
  EXPECT_TRUE(
      std::regex_match(reason, std::regex("[0-9]+ values outside the metric's range made unknown since "
                                          "the start \\(tensor_pipe_pct [0-9]+, fma_pipe_pct [0-9]+\\); "
                                          ".*")))
      << reason;
  EXPECT_TRUE(reason.ends_with("; " + reason_for(stub))) << reason;
  source->stop();
}

TEST(DcgmExporterSource, stop_cancels_a_scrape_in_flight_within_a_second) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0, 1}})});
  DcgmExporterOptions options = fast_options(stub.url());
  options.read_timeout_s = 30;  // neither timeout would end the scrape: only the stop does
  options.total_timeout_s = 60;
  auto source = DcgmExporterSource::open(options);
  ASSERT_TRUE(source.has_value());
  ASSERT_TRUE((*source)->start({.interval_ns = kFastNs}).has_value());
  stub.set_trickle(true);  // a byte every 0.3 s: no timeout of the scrape ends it
  ASSERT_TRUE(wait_for([&] { return stub.trickles() > 0; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const auto t0 = std::chrono::steady_clock::now();
  (*source)->stop();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
}

TEST(DcgmExporterSource, the_callers_stop_flag_cancels_the_first_scrape) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0, 1}})});
  stub.set_trickle(true);
  std::atomic<bool> stop{false};
  DcgmExporterOptions options = fast_options(stub.url());
  options.read_timeout_s = 30;
  options.total_timeout_s = 60;
  options.stop = &stop;
  auto source = DcgmExporterSource::open(options);
  ASSERT_TRUE(source.has_value());
  std::thread signal([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto started = (*source)->start({.interval_ns = kFastNs});
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  signal.join();
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error().code, core::ErrorCode::Aborted);
  EXPECT_LT(took_s, 1.2);
}

TEST(DcgmExporterSource, refuses_a_page_that_is_not_dcgm_exporter) {
  DcgmExporterStub html({"<html><body>Grafana</body></html>\n"});
  auto a = DcgmExporterSource::open(fast_options(html.url()));
  ASSERT_TRUE(a);
  auto started = (*a)->start({.interval_ns = kFastNs});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, core::ErrorCode::FailedPrecondition);
  EXPECT_EQ(started.error().message.rfind(html.url() + " is not a dcgm-exporter page: line 1:", 0), 0u)
      << started.error().message;

  DcgmExporterStub node({"# TYPE node_load1 gauge\nnode_load1 0.5\n"});
  auto b = DcgmExporterSource::open(fast_options(node.url()));
  ASSERT_TRUE(b);
  started = (*b)->start({.interval_ns = kFastNs});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().message,
            node.url() + " is not a dcgm-exporter page: no DCGM_FI_* series: not a dcgm-exporter scrape");

  DcgmExporterStub missing({"not here"}, 404);
  auto c = DcgmExporterSource::open(fast_options(missing.url()));
  ASSERT_TRUE(c);
  started = (*c)->start({.interval_ns = kFastNs});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(started.error().message, missing.url() + " answered HTTP 404");
}

TEST(DcgmExporterSource, refuses_an_url_that_does_not_answer) {
  int port = 0;
  {
    DcgmExporterStub gone({""});
    port = gone.port();
  }  // closed: connection refused
  auto source = DcgmExporterSource::open(fast_options("http://127.0.0.1:" + std::to_string(port)));
  ASSERT_TRUE(source);
  EXPECT_EQ((*source)->url(), "http://127.0.0.1:" + std::to_string(port) + "/metrics");
  auto started = (*source)->start({.interval_ns = kFastNs});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(started.error().message.rfind(
                "no answer from http://127.0.0.1:" + std::to_string(port) + "/metrics", 0),
            0u)
      << started.error().message;
  EXPECT_TRUE((*source)->devices().empty());
}

TEST(DcgmExporterSource, refuses_an_interval_below_one_second) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0, 1}})});
  DcgmExporterOptions options;
  options.url = stub.url();
  auto source = DcgmExporterSource::open(options);
  ASSERT_TRUE(source);
  auto started = (*source)->start({.interval_ns = 100'000'000});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(started.error().message, "--interval 100 ms is below 1 s, the fastest --dcgm-exporter scrapes");
  EXPECT_EQ(stub.requests(), 0u);  // refused before contacting the exporter
}

TEST(DcgmExporterSource, devices_selects_among_the_exporters_gpus) {
  DcgmExporterStub stub({dcgm_scrape({{0, 0.1, 0.2, 0, 1}, {1, 0.5, 0.6, 0, 1}})});
  auto source = open_started(stub.url(), {.interval_ns = kFastNs, .devices = {1}});
  ASSERT_TRUE(source);
  ASSERT_EQ(source->devices().size(), 1u);
  EXPECT_EQ(source->devices()[0].index, 1u);
  auto first = source->poll();
  ASSERT_TRUE(first);
  ASSERT_EQ(first->size(), 1u);
  EXPECT_DOUBLE_EQ((*first)[0].value(MetricId::TensorPipe), 50.0);
  EXPECT_EQ(source->status(0).source, core::SourceKind::None);

  auto other = DcgmExporterSource::open(fast_options(stub.url()));
  ASSERT_TRUE(other);
  auto started = (*other)->start({.interval_ns = kFastNs, .devices = {5}});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(started.error().message.rfind("--devices 5: ", 0), 0u);
}

TEST(DcgmExporterSource, bad_urls_are_refused_at_open) {
  auto a = DcgmExporterSource::open(fast_options("ftp://x:9400/metrics"));
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, core::ErrorCode::InvalidArgument);
  auto b = DcgmExporterSource::open(fast_options("http://:9400"));
  ASSERT_FALSE(b);
}

}  // namespace
}  // namespace solscope::sources
