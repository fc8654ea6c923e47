#include "app/options.hpp"

#include <gtest/gtest.h>

#include "app/messages.hpp"

namespace solscope::app {
namespace {

TEST(OptionsTest, durations) {
  EXPECT_EQ(parse_duration_ns("100ms").value(), 100'000'000);
  EXPECT_EQ(parse_duration_ns("10ms").value(), 10'000'000);
  EXPECT_EQ(parse_duration_ns("1s").value(), 1'000'000'000);
  EXPECT_EQ(parse_duration_ns("0.5s").value(), 500'000'000);
  EXPECT_EQ(parse_duration_ns("2").value(), 2'000'000'000);
  EXPECT_EQ(parse_duration_ns("250us").value(), 250'000);
  EXPECT_EQ(parse_duration_ns("5m").value(), 300'000'000'000);
  for (const char* bad : {"", "ms", "10 ms", "10xs", "-1s", "1e3s", "1..2s", "99999999999h"}) {
    auto r = parse_duration_ns(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_NE(r.error().message.find("invalid duration"), std::string::npos);
  }
}

TEST(OptionsTest, device_lists) {
  EXPECT_EQ(parse_device_list("0,2").value(), (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(parse_device_list("3,0-2,1").value(), (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(parse_device_list("7").value(), (std::vector<std::uint32_t>{7}));
  for (const char* bad : {"", "a", "1,", "3-1", "-1", "0-99999", "1;2"}) {
    EXPECT_FALSE(parse_device_list(bad)) << bad;
  }
}

TEST(OptionsTest, did_you_mean_picks_the_closest) {
  const std::vector<std::string> commands{"devices", "record", "replay", "ceiling", "top"};
  EXPECT_EQ(closest_match("devcies", commands), "devices");
  EXPECT_EQ(closest_match("replya", commands), "replay");
  EXPECT_EQ(closest_match("recrd", commands), "record");
  EXPECT_EQ(closest_match("frobnicate", commands), "");
  const std::vector<std::string> flags{"--interval", "--devices", "--json"};
  EXPECT_EQ(closest_match("--intervl", flags), "--interval");
  EXPECT_EQ(closest_match("--jsn", flags), "--json");
}

}  // namespace
}  // namespace solscope::app
