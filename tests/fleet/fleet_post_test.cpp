// The fleet reader over the real client against the tests' fake Prometheus
// (tests/support/fake_prometheus.hpp, SYNTHETIC fleets on 127.0.0.1): every query is a form-encoded POST, so
// the host list past --gpu-limit fits at 16,384 GPUs (as a GET, its URL is past the 8 KiB that the fake, like
// a proxy, answers with 414); and an answer over the client's body limit is reported as too large, not as
// "did not answer".
#include <gtest/gtest.h>

#include <string>

#include "fleet/prometheus_fleet.hpp"
#include "net/remote_http.hpp"
#include "support/fake_prometheus.hpp"

namespace solscope::fleet {
namespace {

auto hour_query() -> FleetQuery {
  return FleetQuery{.window_ns = 3'600'000'000'000, .end_ns = bench::kFakeEndNs};
}

TEST(FleetPost, reads_16384_gpus_past_the_gpu_limit_with_post_queries) {
  bench::FakePrometheus fake(16'384 / bench::kGpusPerHost, false);
  auto fleet = make_prometheus_fleet(net::RemoteEndpoint{.url = fake.url()}, hour_query());
  ASSERT_TRUE(fleet.has_value()) << fleet.error().describe();
  auto snap = (*fleet)->snapshot();
  ASSERT_TRUE(snap.has_value()) << snap.error().describe();
  EXPECT_EQ(snap->rows.size(), kDefaultGpuLimit);
  ASSERT_EQ(snap->notes.size(), 1u);
  EXPECT_EQ(snap->notes[0], "series limit 10000 reached: 6384 GPUs not shown");
  EXPECT_EQ(fake.gets(), 0);
  EXPECT_GT(fake.posts(), 0);
  EXPECT_GT(fake.largest_form_bytes(), std::size_t{8192});  // the host list: a 414 as a GET
}

TEST(FleetPost, the_fake_answers_414_to_a_get_url_over_8_kib_like_a_default_proxy) {
  bench::FakePrometheus fake(1, false);
  auto http = net::make_remote_http(net::RemoteEndpoint{.url = fake.url()});
  ASSERT_TRUE(http.has_value());
  auto long_get = (*http)->get("/api/v1/query?query=" + std::string(9000, 'a'));
  ASSERT_TRUE(long_get.has_value()) << long_get.error().describe();
  EXPECT_EQ(long_get->status, 414);
  auto long_post = (*http)->post_form("/api/v1/query", "query=" + std::string(20'000, 'a'));
  ASSERT_TRUE(long_post.has_value()) << long_post.error().describe();
  EXPECT_EQ(long_post->status, 200);
}

TEST(FleetPost, an_answer_over_the_body_limit_is_too_large_not_unanswered) {
  bench::FakePrometheus fake(64, false);
  auto fleet =
      make_prometheus_fleet(net::RemoteEndpoint{.url = fake.url(), .max_body_bytes = 4096}, hour_query());
  ASSERT_TRUE(fleet.has_value());
  auto snap = (*fleet)->snapshot();
  ASSERT_FALSE(snap.has_value());
  EXPECT_EQ(snap.error().code, core::ErrorCode::ResourceExhausted);
  const std::string& m = snap.error().message;
  EXPECT_NE(m.find("query is too large"), std::string::npos) << m;
  EXPECT_NE(m.find("more than 4096 bytes (the limit of a response body)"), std::string::npos) << m;
  EXPECT_EQ(m.find("did not answer"), std::string::npos) << m;
}

}  // namespace
}  // namespace solscope::fleet
