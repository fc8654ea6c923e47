#include "runtime/options.hpp"

#include <gtest/gtest.h>

#include "runtime/messages.hpp"

namespace solscope::app {
namespace {

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
