#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/metric_catalog.hpp"
#include "sources/nvidia/detail/gpm_reader.hpp"
#include "support/fake_nvml.hpp"

namespace solscope::nvidia {
namespace {

using core::MetricId;
using testing::fake_handle;
using testing::FakeNvml;

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;  // synthetic epoch times
constexpr double kMib = 1048576.0;

// GPM metric ids (nvml.h nvmlGpmMetricId_t) used below.
constexpr unsigned int kAnyTensorUtil = 5;
constexpr unsigned int kDramBwUtil = 10;
constexpr unsigned int kFp16Util = 13;
constexpr unsigned int kPcieRxPerSec = 21;

class GpmReaderTest : public ::testing::Test {
 protected:
  GpmReaderTest() { fake_.gpus.resize(1); }

  auto open(std::int64_t now_ns) -> GpmReader {
    auto reader = GpmReader::open(fake_.api(), fake_handle(0), 0, now_ns);
    EXPECT_TRUE(reader.has_value()) << (reader ? "" : reader.error().message);
    return std::move(*reader);
  }

  FakeNvml fake_;
};

TEST_F(GpmReaderTest, metric_maps_cover_every_catalog_gpm_id) {
  const auto maps = gpm_metric_maps();
  const auto catalog = core::metric_catalog();
  const auto with_gpm = std::count_if(catalog.begin(), catalog.end(),
                                      [](const core::MetricDef& def) { return def.gpm_metric_id != 0; });
  ASSERT_EQ(static_cast<std::ptrdiff_t>(maps.size()), with_gpm);
  const auto tensor =
      std::find_if(maps.begin(), maps.end(), [](const auto& m) { return m.id == MetricId::TensorPipe; });
  ASSERT_NE(tensor, maps.end());
  EXPECT_EQ(tensor->gpm_metric_id, kAnyTensorUtil);
  EXPECT_EQ(tensor->scale, 1.0);
  const auto pcie = std::find_if(maps.begin(), maps.end(),
                                 [](const auto& m) { return m.id == MetricId::PcieReadBytesPerS; });
  ASSERT_NE(pcie, maps.end());
  EXPECT_EQ(pcie->gpm_metric_id, kPcieRxPerSec);
  EXPECT_EQ(pcie->scale, kMib);
}

TEST_F(GpmReaderTest, support_query_says_why_not) {
  fake_.gpus[0].gpm_supported = false;
  const GpmSupportInfo no = query_gpm_support(fake_.api(), fake_handle(0));
  EXPECT_FALSE(no.supported);
  EXPECT_EQ(no.reason, "GPM is not supported on this GPU (Hopper and newer only)");
  const auto reader = GpmReader::open(fake_.api(), fake_handle(0), 0, kT0);
  ASSERT_FALSE(reader.has_value());
  EXPECT_EQ(reader.error().code, core::ErrorCode::Unimplemented);
  EXPECT_EQ(reader.error().message, "device 0: GPM is not supported on this GPU (Hopper and newer only)");
  EXPECT_EQ(fake_.calls("nvmlGpmSampleAlloc"), 0);
}

TEST_F(GpmReaderTest, driver_without_gpm_is_unsupported) {
  fake_.missing = {"nvmlGpmSampleGet"};
  const GpmSupportInfo no = query_gpm_support(fake_.api(), fake_handle(0));
  EXPECT_FALSE(no.supported);
  EXPECT_EQ(no.reason, "this driver's NVML has no GPM functions (update the NVIDIA driver)");
}

TEST_F(GpmReaderTest, computes_scaled_metrics_between_two_samples) {
  auto& counters = fake_.gpus[0].gpm_counters;
  counters = {{kAnyTensorUtil, 10.0}, {kDramBwUtil, 5.0}, {kPcieRxPerSec, 0.0}};
  GpmReader reader = open(kT0);
  counters = {{kAnyTensorUtil, 52.5}, {kDramBwUtil, 35.0}, {kPcieRxPerSec, 1000.0}};
  const auto got = reader.sample(kT0 + 200'000'000);
  ASSERT_TRUE(got.has_value()) << got.error().message;
  ASSERT_TRUE(got->has_value());
  const core::RawSample& s = **got;
  EXPECT_EQ(s.device_index, 0u);
  EXPECT_EQ(s.source, core::SourceKind::Gpm);
  EXPECT_EQ(s.t_start_ns, kT0);
  EXPECT_EQ(s.t_end_ns, kT0 + 200'000'000);
  EXPECT_DOUBLE_EQ(s.value(MetricId::TensorPipe), 42.5);
  EXPECT_DOUBLE_EQ(s.value(MetricId::DramThroughput), 30.0);
  EXPECT_DOUBLE_EQ(s.value(MetricId::PcieReadBytesPerS), 1000.0 * kMib);
  EXPECT_DOUBLE_EQ(s.value(MetricId::SmActive), 0.0);        // asked for, unchanged counter
  EXPECT_TRUE(std::isnan(s.value(MetricId::L2Throughput)));  // no GPM id
  EXPECT_TRUE(std::isnan(s.value(MetricId::PowerW)));
}

TEST_F(GpmReaderTest, next_interval_starts_at_the_previous_sample) {
  auto& counters = fake_.gpus[0].gpm_counters;
  counters = {{kAnyTensorUtil, 0.0}};
  GpmReader reader = open(kT0);
  counters = {{kAnyTensorUtil, 20.0}};
  ASSERT_TRUE(reader.sample(kT0 + 100'000'000).has_value());
  counters = {{kAnyTensorUtil, 50.0}};
  const auto got = reader.sample(kT0 + 250'000'000);
  ASSERT_TRUE(got.has_value() && got->has_value());
  EXPECT_EQ((*got)->t_start_ns, kT0 + 100'000'000);
  EXPECT_EQ((*got)->t_end_ns, kT0 + 250'000'000);
  EXPECT_DOUBLE_EQ((*got)->value(MetricId::TensorPipe), 30.0);
}

TEST_F(GpmReaderTest, samples_closer_than_100_ms_are_not_taken) {
  GpmReader reader = open(kT0);
  const int sample_calls = fake_.calls("nvmlGpmSampleGet");
  const auto got = reader.sample(kT0 + 99'000'000);
  ASSERT_TRUE(got.has_value());
  EXPECT_FALSE(got->has_value());
  EXPECT_EQ(fake_.calls("nvmlGpmSampleGet"), sample_calls);
}

TEST_F(GpmReaderTest, unsupported_metric_is_not_asked_again) {
  fake_.gpus[0].gpm_unsupported_metrics = {kFp16Util};
  GpmReader reader = open(kT0);
  const auto first = reader.sample(kT0 + 100'000'000);
  ASSERT_TRUE(first.has_value() && first->has_value());
  EXPECT_TRUE(std::isnan((*first)->value(MetricId::Fp16Pipe)));
  EXPECT_NE(std::find(fake_.last_gpm_request().begin(), fake_.last_gpm_request().end(), kFp16Util),
            fake_.last_gpm_request().end());
  ASSERT_TRUE(reader.sample(kT0 + 200'000'000).has_value());
  EXPECT_EQ(std::find(fake_.last_gpm_request().begin(), fake_.last_gpm_request().end(), kFp16Util),
            fake_.last_gpm_request().end());
  EXPECT_FALSE(fake_.last_gpm_request().empty());
}

TEST_F(GpmReaderTest, lost_gpu_fails_for_good) {
  GpmReader reader = open(kT0);
  fake_.gpus[0].lost = true;
  const auto got = reader.sample(kT0 + 100'000'000);
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(got.error().message, "device 0 lost: GPU is lost");
  EXPECT_TRUE(reader.lost());
}

TEST_F(GpmReaderTest, frees_both_sample_buffers) {
  {
    GpmReader reader = open(kT0);
    GpmReader moved = std::move(reader);
    EXPECT_EQ(fake_.live_gpm_samples(), 2u);
  }
  EXPECT_EQ(fake_.live_gpm_samples(), 0u);
  EXPECT_EQ(fake_.calls("nvmlGpmSampleFree"), 2);
}

}  // namespace
}  // namespace solscope::nvidia
