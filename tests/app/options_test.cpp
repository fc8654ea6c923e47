#include "runtime/options.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cli/cli_commands.hpp"
#include "runtime/messages.hpp"
#include "runtime/source_factory.hpp"
#include "sources/dcgm/dcgm_exporter_source.hpp"

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

constexpr std::int64_t kMs = 1'000'000;

TEST(OptionsTest, the_interval_is_the_given_one_or_the_sources_default) {
  CommonOptions common;
  EXPECT_EQ(sampling_interval_ns(common).value(), kDefaultIntervalNs);
  common.interval_ns = 10 * kMs;
  EXPECT_EQ(sampling_interval_ns(common).value(), 10 * kMs);
  EXPECT_EQ(source_config_from(common).value().interval_ns, 10 * kMs);
}

TEST(OptionsTest, dcgm_exporter_samples_at_its_own_pace_unless_told_and_never_faster) {
  CommonOptions common;
  common.dcgm_exporter = "http://127.0.0.1:9400/metrics";
  EXPECT_EQ(sampling_interval_ns(common).value(), sources::kDcgmMinIntervalNs);
  common.interval_ns = 2'000 * kMs;
  EXPECT_EQ(sampling_interval_ns(common).value(), 2'000 * kMs);
  common.interval_ns = 100 * kMs;
  auto refused = sampling_interval_ns(common);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "--interval 100ms is below 1s, the fastest --dcgm-exporter scrapes");
  EXPECT_EQ(refused.error().hint, "give --interval 1s or more, or leave it out (1s with --dcgm-exporter)");
  common.replay = "trace.sqlite";
  EXPECT_EQ(source_config_from(common).error().message, "--replay and --dcgm-exporter exclude each other");
}

TEST(OptionsTest, the_devices_reach_the_source_config_as_given) {
  CommonOptions common;
  common.devices = {0, 2};
  EXPECT_EQ(source_config_from(common).value().devices, (std::vector<std::uint32_t>{0, 2}));
}

TEST(OptionsTest, every_command_has_one_row_and_one_is_the_default) {
  std::set<std::string_view> names;
  int defaults = 0;
  for (const CommandSpec& spec : command_table()) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    EXPECT_NE(spec.declare, nullptr) << spec.name;
    EXPECT_FALSE(spec.description.empty()) << spec.name;
    defaults += spec.is_default ? 1 : 0;
  }
  EXPECT_EQ(defaults, 1);
  for (std::string_view name : {"top", "serve", "devices", "record", "replay", "export", "import", "report",
                                "run", "ceiling", "fleet", "check"}) {
    EXPECT_EQ(names.count(name), 1U) << name;
  }
}

}  // namespace
}  // namespace solscope::app
