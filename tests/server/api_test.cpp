#include "server/detail/api.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using testing::kT0;

TEST(QueryParse, each_parameter_is_one_key_equals_one_value) {
  auto q = parse_query("device=0&since=-5m&&window=1s&");
  ASSERT_TRUE(q) << q.error().describe();
  EXPECT_EQ(*q, (QueryParams{{"device", "0"}, {"since", "-5m"}, {"window", "1s"}}));
  q = parse_query("host=node%2D1+a&gpu=%33&empty=");
  ASSERT_TRUE(q) << q.error().describe();
  EXPECT_EQ(*q, (QueryParams{{"host", "node-1 a"}, {"gpu", "3"}, {"empty", ""}}));
  EXPECT_EQ(parse_query("")->size(), 0U);
  EXPECT_EQ(parse_query("v=a%3Db")->at("v"), "a=b");
}

TEST(QueryParse, refuses_what_cpp_httplib_would_guess_at) {
  // cpp-httplib read `device=0;since=1` as device=1 (the last part) and `device=0&device=1` as device=0.
  for (const char* bad : {"device=0;since=1", "device=0=1", "device", "=0", "device=0&device=1",
                          "device=0&device=0", "device=%", "device=%4", "device=%G1", "d%ZZ=0", "a=1;b=2"}) {
    const auto q = parse_query(bad);
    ASSERT_FALSE(q) << bad;
    EXPECT_EQ(q.error().code, core::ErrorCode::InvalidArgument) << bad;
  }
  EXPECT_EQ(parse_query("device=0&device=1").error().message,
            "query parameter device is given more than once");
  EXPECT_NE(parse_query("device=0;since=1").error().message.find("'device=0;since=1' is not one KEY=VALUE"),
            std::string::npos);
}

class SamplesQueryTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::fill(state_, 2, 20); }
  core::LiveState state_;
};

TEST_F(SamplesQueryTest, defaults_are_five_minutes_of_one_second_windows) {
  auto q = parse_samples_query({.device = "1"}, state_);
  ASSERT_TRUE(q) << q.error().describe();
  EXPECT_EQ(q->device, 1U);
  EXPECT_EQ(q->window_ns, 1'000'000'000);
  EXPECT_EQ(q->since_ns, state_.newest_ns() - kDefaultSinceNs);
}

TEST_F(SamplesQueryTest, since_is_unix_ns_or_a_negative_duration) {
  auto relative = parse_samples_query({.device = "0", .since = "-10s", .window = "5s"}, state_);
  ASSERT_TRUE(relative);
  EXPECT_EQ(relative->since_ns, state_.newest_ns() - 10'000'000'000);
  EXPECT_EQ(relative->window_ns, 5'000'000'000);
  auto absolute = parse_samples_query({.device = "0", .since = std::to_string(kT0)}, state_);
  ASSERT_TRUE(absolute);
  EXPECT_EQ(absolute->since_ns, kT0);
}

// One duration grammar (core::parse_duration_ns) for the command line and the API: a fraction and a bare
// number of seconds read as they do in --interval; the API's own parser refused both.
TEST_F(SamplesQueryTest, since_uses_the_command_line_duration_grammar) {
  auto fraction = parse_samples_query({.device = "0", .since = "-1.5s"}, state_);
  ASSERT_TRUE(fraction) << fraction.error().describe();
  EXPECT_EQ(fraction->since_ns, state_.newest_ns() - 1'500'000'000);
  auto bare = parse_samples_query({.device = "0", .since = "-90"}, state_);
  ASSERT_TRUE(bare) << bare.error().describe();
  EXPECT_EQ(bare->since_ns, state_.newest_ns() - 90'000'000'000);
  for (const char* bad : {"-nan", "-inf", "--5s", "-5d", "-1e3s"}) {
    auto q = parse_samples_query({.device = "0", .since = bad}, state_);
    ASSERT_FALSE(q) << bad;
    EXPECT_EQ(q.error().code, core::ErrorCode::InvalidArgument) << bad;
  }
}

TEST_F(SamplesQueryTest, bad_values_are_invalid_and_unknown_devices_not_found) {
  const std::vector<SamplesParams> invalid{{},
                                           {.device = "x"},
                                           {.device = "-1"},
                                           {.device = "99999999999"},
                                           {.device = "0", .since = "abc"},
                                           {.device = "0", .since = "-abc"},
                                           {.device = "0", .window = "1500ms"},
                                           {.device = "0", .window = "2h"},
                                           {.device = "0", .window = "0s"}};
  for (const auto& p : invalid) {
    auto q = parse_samples_query(p, state_);
    ASSERT_FALSE(q);
    EXPECT_EQ(q.error().code, core::ErrorCode::InvalidArgument) << q.error().message;
  }
  auto unknown = parse_samples_query({.device = "7"}, state_);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, core::ErrorCode::NotFound);
}

TEST_F(SamplesQueryTest, samples_json_merges_windows_oldest_first) {
  const auto body =
      nlohmann::json::parse(samples_json(state_, {.device = 1, .since_ns = 0, .window_ns = 5'000'000'000}));
  EXPECT_EQ(body["device"], 1);
  EXPECT_EQ(body["window_ns"], 5'000'000'000);
  const auto& samples = body["samples"];
  ASSERT_GE(samples.size(), 3U);
  EXPECT_EQ(samples[0]["t_start_ns"], kT0);
  EXPECT_EQ(samples[0]["t_end_ns"], kT0 + 5'000'000'000);
  EXPECT_DOUBLE_EQ(samples[0]["compute_sol_pct"].get<double>(), 50.0);
  EXPECT_EQ(samples[0]["uuid"], "GPU-SYNTHETIC-1");
  EXPECT_TRUE(samples[0]["fp64_pipe_pct"].is_null());
  for (std::size_t i = 1; i < samples.size(); ++i) {
    EXPECT_LT(samples[i - 1]["t_start_ns"].get<std::int64_t>(), samples[i]["t_start_ns"].get<std::int64_t>());
  }
}

TEST_F(SamplesQueryTest, devices_json_names_the_node_and_each_latest_window) {
  const auto body = nlohmann::json::parse(devices_json(
      state_,
      {.hostname = "node-17", .version = "0.1.0", .source_description = "SYNTHETIC", .synthetic = true}));
  EXPECT_EQ(body["host"], "node-17");
  EXPECT_EQ(body["synthetic"], true);
  EXPECT_EQ(body["window_ns"], 1'000'000'000);
  EXPECT_EQ(body["newest_ns"], state_.newest_ns());
  ASSERT_EQ(body["devices"].size(), 2U);
  EXPECT_EQ(body["devices"][1]["uuid"], "GPU-SYNTHETIC-1");
  EXPECT_EQ(body["devices"][1]["source"], "replay");
  EXPECT_DOUBLE_EQ(body["devices"][1]["latest_window"]["compute_sol_pct"].get<double>(), 50.0);
  EXPECT_TRUE(body["devices"][1]["max_sm_clock_mhz"].is_null());
}

}  // namespace
}  // namespace solscope::server
