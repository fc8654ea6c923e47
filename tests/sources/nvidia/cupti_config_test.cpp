// Every chip's catalog counter set must compile into a ONE-pass PM-sampling config image with the real
// libcupti.
//
// Uses only the CUPTI profiler host API, which takes a chip name and works without a GPU or driver
// (docs/design/cupti-pm-sampling.md section 8). Target-side CUPTI (cuptiDeviceGetChipName, ...) would
// crash here and is never called. Skips when no libcupti >= 12.6 is installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "core/chip.hpp"
#include "core/metric_catalog.hpp"
#include "sources/nvidia/detail/cupti_api.hpp"
#include "sources/nvidia/detail/pm_config.hpp"

namespace solscope::nvidia {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

/// The places the app would search (tests may read the environment; the sources layer does not).
auto search_from_environment() -> CuptiSearch {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  return CuptiSearch{.override_dir = env("SOLSCOPE_CUPTI_DIR"),
                     .toolkit_home = env("CUDA_HOME"),
                     .home = env("HOME"),
                     .virtual_env = env("VIRTUAL_ENV")};
}

class CuptiConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kUnderAddressSanitizer) {
      // libcupti dlopens libnvperf_host.so with RTLD_DEEPBIND, which the sanitizer runtime refuses
      // (google/sanitizers#611); the ci preset runs these checks against the real library.
      GTEST_SKIP() << "the real libcupti cannot be loaded under AddressSanitizer (RTLD_DEEPBIND)";
    }
    auto api = load_cupti(search_from_environment());
    if (!api)
      GTEST_SKIP() << "no libcupti >= 12.6 found, host-API checks skipped: " << api.error().describe();
    api_ = std::make_shared<const CuptiApi>(std::move(*api));
  }

  // Names libcupti rejects for `chip`, each with CUPTI's error, and each valid name's own pass count.
  auto diagnose(const std::string& chip, const PmCounterPlan& plan) const -> std::string {
    auto checks = check_counters(api_, chip, plan.counter_names);
    if (!checks) return checks.error().describe();
    std::string out;
    for (const auto& check : *checks) {
      if (!check.valid)
        out += "\n  invalid: " + check.name + " (" + check.error + ")";
      else if (check.passes != 1)
        out += "\n  " + std::to_string(check.passes) + " passes alone: " + check.name;
    }
    return out;
  }

  std::shared_ptr<const CuptiApi> api_;
};

TEST_F(CuptiConfigTest, every_known_chip_compiles_its_counter_set_into_one_pass) {
  std::size_t chips = 0;
  for (core::ChipFamily family : core::known_chip_families()) {
    const PmCounterPlan plan = pm_counter_plan(family);
    ASSERT_FALSE(plan.counter_names.empty()) << core::to_string(family);
    for (std::string_view chip : core::chips_of(family)) {
      SCOPED_TRACE(std::string(chip));
      auto config = PmConfig::create(api_, std::string(chip), plan, {}, {.drop_invalid_counters = false});
      ASSERT_TRUE(config.has_value()) << config.error().describe() << diagnose(std::string(chip), plan);
      EXPECT_EQ(config->num_passes(), 1u);
      EXPECT_TRUE(config->dropped_counters().empty());
      EXPECT_EQ(config->plan().counter_names.size(), plan.counter_names.size());
      EXPECT_FALSE(config->config_image().empty());
      ++chips;
    }
  }
  EXPECT_EQ(chips, 20u) << "chips_of() changed: update this count and the report";
}

TEST_F(CuptiConfigTest, every_catalog_counter_is_valid_on_its_chips) {
  for (core::ChipFamily family : core::known_chip_families()) {
    const PmCounterPlan plan = pm_counter_plan(family);
    for (std::string_view chip : core::chips_of(family)) {
      auto checks = check_counters(api_, chip, plan.counter_names);
      ASSERT_TRUE(checks.has_value()) << chip << ": " << checks.error().describe();
      for (const auto& check : *checks) {
        EXPECT_TRUE(check.valid) << chip << ": invalid counter " << check.name << " (" << check.error << ")";
        EXPECT_EQ(check.passes, 1u) << chip << ": " << check.name;
      }
    }
  }
}

TEST_F(CuptiConfigTest, family_for_chip_uses_the_catalog_plan) {
  auto config = PmConfig::for_chip(api_, "GH100");
  ASSERT_TRUE(config.has_value()) << config.error().describe();
  const PmCounterPlan plan = pm_counter_plan(core::ChipFamily::Gh100);
  EXPECT_EQ(config->plan().counter_names, plan.counter_names);
  EXPECT_EQ(config->chip_name(), "GH100");
}

TEST_F(CuptiConfigTest, unknown_chip_is_unimplemented) {
  auto config = PmConfig::create(api_, "XX999", pm_counter_plan(core::ChipFamily::Gh100));
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, core::ErrorCode::Unimplemented);
  EXPECT_NE(config.error().message.find("XX999"), std::string::npos);
}

TEST_F(CuptiConfigTest, chip_without_a_solscope_set_is_unimplemented) {
  auto config = PmConfig::for_chip(api_, "TU102");
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, core::ErrorCode::Unimplemented);
  EXPECT_NE(config.error().message.find("TU102"), std::string::npos);
}

TEST_F(CuptiConfigTest, invalid_name_is_dropped_and_named) {
  PmCounterPlan plan = pm_counter_plan(core::ChipFamily::Ga100);
  plan.counter_names.push_back("solscope__no_such_counter.avg.pct_of_peak_sustained_elapsed");
  plan.counter_metrics.push_back(core::MetricId::TensorPipe);
  auto dropped = PmConfig::create(api_, "GA100", plan);
  ASSERT_TRUE(dropped.has_value()) << dropped.error().describe();
  ASSERT_EQ(dropped->dropped_counters().size(), 1u);
  EXPECT_EQ(dropped->dropped_counters()[0], plan.counter_names.back());
  EXPECT_EQ(dropped->plan().counter_names.size(), plan.counter_names.size() - 1);

  auto strict = PmConfig::create(api_, "GA100", plan, {}, {.drop_invalid_counters = false});
  ASSERT_FALSE(strict.has_value());
  EXPECT_EQ(strict.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_NE(strict.error().message.find("solscope__no_such_counter"), std::string::npos);
}

TEST_F(CuptiConfigTest, multi_pass_set_is_refused_with_the_pass_count) {
  // sm__throughput alone needs 10-19 passes in PM sampling (doc section 3 note 4).
  const PmCounterPlan plan{.counter_names = {"sm__throughput.avg.pct_of_peak_sustained_elapsed"},
                           .counter_metrics = {core::MetricId::SmThroughput}};
  auto passes = count_passes(api_, "GA100", plan.counter_names);
  ASSERT_TRUE(passes.has_value()) << passes.error().describe();
  ASSERT_GT(*passes, 1u);
  auto config = PmConfig::create(api_, "GA100", plan);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, core::ErrorCode::Unimplemented);
  EXPECT_NE(config.error().message.find("GA100"), std::string::npos);
  EXPECT_NE(config.error().message.find(std::to_string(*passes) + " passes"), std::string::npos);
}

}  // namespace
}  // namespace solscope::nvidia
