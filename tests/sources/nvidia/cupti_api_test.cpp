// The pure helpers around the CUPTI and CUDA tables: bus-id matching, trigger and image sizing, '+' sums,
// table validation and the library search list.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/raw_sample.hpp"
#include "sources/nvidia/cuda_api.hpp"
#include "sources/nvidia/detail/cupti_api.hpp"
#include "sources/nvidia/detail/pm_config.hpp"
#include "sources/nvidia/detail/pm_session.hpp"
#include "support/fake_cupti.hpp"

namespace solscope::nvidia {
namespace {

TEST(CudaApiTest, bus_ids_from_nvml_and_cuda_normalize_to_one_form) {
  EXPECT_EQ(normalize_pci_bus_id("00000000:17:00.0"), "0000:17:00.0");
  EXPECT_EQ(normalize_pci_bus_id("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalize_pci_bus_id("00000001:3b:00.0"), "0001:3b:00.0");
  EXPECT_EQ(normalize_pci_bus_id("17:00.0"), "0000:17:00.0");
  EXPECT_EQ(normalize_pci_bus_id("1:17:00.0"), "0001:17:00.0");
  EXPECT_EQ(normalize_pci_bus_id("not-a-bus-id"), "not-a-bus-id");
}

TEST(CudaApiTest, ordinal_is_found_by_bus_id_whatever_the_spelling) {
  fake::state().reset();
  fake::FakeDevice second;
  second.bus_id = "0000:B1:00.0";
  fake::state().devices.push_back(second);
  const CudaApi api = fake::cuda_api();
  EXPECT_EQ(cuda_ordinal_of(api, "00000000:b1:00.0").value(), 1);
  EXPECT_EQ(cuda_ordinal_of(api, "00000000:17:00.0").value(), 0);
  auto missing = cuda_ordinal_of(api, "00000000:02:00.0");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, core::ErrorCode::NotFound);
  EXPECT_NE(missing.error().message.find("0000:b1:00.0"), std::string::npos) << missing.error().message;
}

TEST(PmSessionTest, trigger_follows_the_chip_and_the_cupti_version) {
  const PmTrigger hopper = pm_trigger_for("GH100", 5'000'000, 130001);
  EXPECT_TRUE(hopper.gpu_time);
  EXPECT_EQ(hopper.interval, 5'000'000u);
  EXPECT_TRUE(hopper.keep_latest);
  const PmTrigger a100 = pm_trigger_for("GA100", 5'000'000, 130001);
  EXPECT_FALSE(a100.gpu_time);
  EXPECT_EQ(a100.interval, 5'000'000u);
  EXPECT_TRUE(a100.keep_latest);
  const PmTrigger turing = pm_trigger_for("TU102", 5'000'000, 130001);
  EXPECT_FALSE(turing.gpu_time);
  EXPECT_FALSE(turing.keep_latest);
  const PmTrigger old = pm_trigger_for("GH100", 5'000'000, 25);
  EXPECT_FALSE(old.has_append_mode);
  EXPECT_FALSE(old.keep_latest);
}

TEST(PmSessionTest, max_samples_cover_three_poll_periods_within_bounds) {
  EXPECT_EQ(pm_max_samples(10'000'000, 250'000'000), 83u);
  EXPECT_EQ(pm_max_samples(10'000'000, 100'000'000), 38u);
  EXPECT_EQ(pm_max_samples(100'000'000, 100'000'000), 32u);  // floor
  EXPECT_EQ(pm_max_samples(1'000, 1'000'000'000), 8192u);    // ceiling
  EXPECT_EQ(pm_max_samples(0, 0), 32u);
}

TEST(PmConfigTest, plus_joined_names_split_and_their_values_sum) {
  EXPECT_EQ(split_counter_names("a+b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split_counter_names("a"), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(split_counter_names("").empty());
  EXPECT_EQ(split_counter_names("+a++b+"), (std::vector<std::string>{"a", "b"}));

  const PmCounterPlan plan{.counter_names = {"x", "y1", "y2"},
                           .counter_metrics = {core::MetricId::TensorPipe, core::MetricId::NvlinkRxBytesPerS,
                                               core::MetricId::NvlinkRxBytesPerS}};
  core::RawSample sample;
  const std::vector<double> values{12.5, 1.0e9, 2.5e9};
  add_counter_values(plan, values, sample);
  EXPECT_DOUBLE_EQ(sample.value(core::MetricId::TensorPipe), 12.5);
  EXPECT_DOUBLE_EQ(sample.value(core::MetricId::NvlinkRxBytesPerS), 3.5e9);
  EXPECT_TRUE(std::isnan(sample.value(core::MetricId::DramThroughput)));

  const std::vector<double> with_nan{1.0, std::nan(""), 2.0};
  add_counter_values(plan, with_nan, sample);
  EXPECT_TRUE(std::isnan(sample.value(core::MetricId::NvlinkRxBytesPerS)));
}

TEST(PmConfigTest, gh100_plan_has_nineteen_counters_with_nvlink_in_two_parts) {
  const PmCounterPlan plan = pm_counter_plan(core::ChipFamily::Gh100);
  EXPECT_EQ(plan.counter_names.size(), 19u);  // 17 metrics + FP64, NVLink RX and TX in two parts each
  EXPECT_EQ(
      std::count(plan.counter_metrics.begin(), plan.counter_metrics.end(), core::MetricId::NvlinkTxBytesPerS),
      2);
  EXPECT_TRUE(pm_counter_plan(core::ChipFamily::Unknown).counter_names.empty());
}

// A counter the device cannot give (NVLink without peers) is valid by name but fails the whole set against
// the device's availability image: it is dropped and the rest kept. Names that fail only together keep the
// first.
TEST(PmConfigTest, counters_the_device_lacks_or_that_clash_are_dropped_and_the_rest_kept) {
  fake::state().reset();
  const auto api = std::make_shared<const CuptiApi>(fake::cupti_api());
  const PmCounterPlan plan{.counter_names = {"tensor", "nvlrx_unavailable", "dram"},
                           .counter_metrics = {core::MetricId::TensorPipe, core::MetricId::NvlinkRxBytesPerS,
                                               core::MetricId::DramThroughput}};
  const std::vector<std::uint8_t> availability(16, 0xA5);
  auto config = PmConfig::create(api, "GH100", plan, availability, {});
  ASSERT_TRUE(config.has_value()) << config.error().describe();
  EXPECT_EQ(config->plan().counter_names, (std::vector<std::string>{"tensor", "dram"}));
  EXPECT_EQ(std::vector<std::string>(config->dropped_counters().begin(), config->dropped_counters().end()),
            std::vector<std::string>{"nvlrx_unavailable"});
  EXPECT_TRUE(PmConfig::create(api, "GH100", plan, {}, {}).has_value()) << "without an image it is valid";

  const PmCounterPlan clashing{
      .counter_names = {"clash_a", "clash_b", "l2"},
      .counter_metrics = {core::MetricId::TensorPipe, core::MetricId::FmaPipe, core::MetricId::L2Throughput}};
  auto greedy = PmConfig::create(api, "GH100", clashing, availability, {});
  ASSERT_TRUE(greedy.has_value()) << greedy.error().describe();
  EXPECT_EQ(greedy->plan().counter_names, (std::vector<std::string>{"clash_a", "l2"}));
  EXPECT_EQ(greedy->plan().counter_metrics,
            (std::vector<core::MetricId>{core::MetricId::TensorPipe, core::MetricId::L2Throughput}));
  auto strict = PmConfig::create(api, "GH100", clashing, availability, {.drop_invalid_counters = false});
  ASSERT_FALSE(strict.has_value());
  EXPECT_NE(strict.error().message.find("clash_b"), std::string::npos) << strict.error().message;
  EXPECT_EQ(fake::state().live_host_objects, 2) << "only the two configs alive hold host objects";
}

TEST(CuptiApiTest, validation_refuses_old_versions_and_missing_functions) {
  fake::state().reset();
  CuptiApi api = fake::cupti_api();
  ASSERT_TRUE(validate_cupti(api).has_value());
  EXPECT_EQ(api.version, 130001u);

  fake::state().version = 23;
  auto old = validate_cupti(api);
  ASSERT_FALSE(old.has_value());
  EXPECT_EQ(old.error().code, core::ErrorCode::Unimplemented);
  EXPECT_NE(old.error().hint.find("CUDA >= 12.6"), std::string::npos) << old.error().hint;

  CuptiApi partial = fake::cupti_api();
  partial.pm_enable = nullptr;
  auto missing = validate_cupti(partial);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, core::ErrorCode::NotFound);
  EXPECT_NE(missing.error().message.find("libcupti"), std::string::npos);
}

TEST(CuptiApiTest, search_list_starts_with_the_override_then_the_sonames) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "solscope_cupti_dir";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "libcupti.so.13").put('\0');  // only its existence matters
  const std::vector<std::string> candidates = cupti_candidates(CuptiSearch{.override_dir = dir.string()});

  ASSERT_GE(candidates.size(), 3u);
  EXPECT_EQ(candidates[0], (dir / "libcupti.so.13").string());
  EXPECT_EQ(candidates[1], "libcupti.so.13");
  EXPECT_EQ(candidates[2], "libcupti.so.12");
  for (std::size_t i = 3; i < candidates.size(); ++i) {
    EXPECT_NE(candidates[i].find('/'), std::string::npos) << candidates[i];
  }
}

}  // namespace
}  // namespace solscope::nvidia
