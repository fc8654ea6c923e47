// MIG instances as devices of their own, over the synthetic NVML's two MIG layouts (support/fake_nvml.hpp):
// an A100-80GB-like GPU in 3g.40gb + 2 x 2g.20gb and an H100-80GB-like GPU in 7 x 1g.10gb.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "core/device_info.hpp"
#include "nvidia_source_fixture.hpp"
#include "sources/nvidia/detail/mig_devices.hpp"
#include "sources/nvidia/nvidia_source.hpp"

namespace solscope::nvidia {
namespace {

using core::MetricId;
using core::SourceKind;
using testing::FakeGpu;
using testing::FakeNvml;
using testing::FakePmState;
using testing::FakeProcfsTree;

using testing::contains;
using testing::kInterval;
using testing::kMs;
using testing::kT0;
constexpr double kMibBytes = 1024.0 * 1024.0;
constexpr unsigned int kAnyTensorUtil = 5;  // nvml.h nvmlGpmMetricId_t
constexpr unsigned int kDramBwUtil = 10;

class NvidiaMigTest : public testing::NvidiaSourceFixture {};

TEST_F(NvidiaMigTest, a100_layout_is_three_devices_numbered_after_the_whole_gpus) {
  fake_.gpus = {testing::a100_80gb_mig_gpu(), FakeGpu{}};
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  const auto devices = source.devices();
  ASSERT_EQ(devices.size(), 4u);  // GPU 0's three instances where GPU 0 would be, then GPU 1
  const double parent_dram = 5120.0 / 8.0 * 1593e6 * 2.0;
  const struct {
    std::uint32_t index;
    std::string uuid;
    std::string profile;
    std::int32_t gi;
    std::uint32_t sms;
    double mib;
    std::string label;
  } expected[] = {
      {2, "MIG-a1000000-0003-4000-8000-000000000001", "3g.40gb", 1, 42, 40192, "GPU 0 \u00b7 MIG 3g.40gb #1"},
      {3, "MIG-a1000000-0002-4000-8000-000000000003", "2g.20gb", 3, 28, 19968, "GPU 0 \u00b7 MIG 2g.20gb #3"},
      {4, "MIG-a1000000-0002-4000-8000-000000000004", "2g.20gb", 4, 28, 19968, "GPU 0 \u00b7 MIG 2g.20gb #4"},
  };
  for (std::size_t i = 0; i < 3; ++i) {
    const core::DeviceInfo& d = devices[i];
    SCOPED_TRACE(expected[i].uuid);
    EXPECT_EQ(d.index, expected[i].index);
    EXPECT_EQ(d.uuid, expected[i].uuid);
    EXPECT_EQ(d.parent_uuid, "GPU-a1000000-0000-4000-8000-000000000080");
    EXPECT_EQ(d.gpu_index, 0);
    EXPECT_EQ(d.gpu_number(), 0u);
    EXPECT_TRUE(d.is_mig());
    EXPECT_EQ(d.name, "NVIDIA A100-SXM4-80GB");
    EXPECT_EQ(d.pci_bus_id, "00000000:07:00.0");
    EXPECT_EQ(d.mig_profile, expected[i].profile);
    EXPECT_EQ(d.mig_instance_id, expected[i].gi);
    EXPECT_EQ(d.mig_compute_instance_id, 0);
    EXPECT_EQ(d.sm_count, expected[i].sms);
    EXPECT_EQ(d.memory_total_bytes, static_cast<std::uint64_t>(expected[i].mib * kMibBytes));
    EXPECT_DOUBLE_EQ(d.mig_sm_share, expected[i].sms / 98.0);  // over the 7g.80gb profile's 98 SMs
    EXPECT_DOUBLE_EQ(d.mig_memory_share, expected[i].mib / 80896.0);
    EXPECT_DOUBLE_EQ(d.dram_peak_bytes_per_s, parent_dram * expected[i].mib / 80896.0);
    EXPECT_EQ(core::device_label(d), expected[i].label);
    EXPECT_EQ(source.status(d.index).source, SourceKind::NvmlOnly);
    EXPECT_TRUE(contains(source.status(d.index).reason,
                         "GPM: no per-instance counters on Ampere MIG: GPM is not supported on this GPU"))
        << source.status(d.index).reason;
    EXPECT_TRUE(contains(source.status(d.index).reason, "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED"));
  }
  EXPECT_EQ(devices[3].index, 1u);
  EXPECT_FALSE(devices[3].is_mig());
  EXPECT_EQ(source.status(0).source, SourceKind::None);       // the MIG GPU itself is not sampled
  EXPECT_EQ(pm_->open_calls, std::vector<std::uint32_t>{1});  // PM sampling only on the whole GPU
}

TEST_F(NvidiaMigTest, h100_layout_samples_gpm_per_gpu_instance) {
  fake_.gpus = {testing::h100_80gb_mig_gpu()};
  for (std::size_t i = 0; i < 7; ++i) fake_.gpus[0].mig_devices[i].gpm_counters = {{kAnyTensorUtil, 0.0}};
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  const auto devices = source.devices();
  ASSERT_EQ(devices.size(), 7u);
  for (std::uint32_t i = 0; i < 7; ++i) {
    EXPECT_EQ(devices[i].index, 1 + i);
    EXPECT_EQ(devices[i].mig_instance_id, static_cast<std::int32_t>(7 + i));
    EXPECT_EQ(devices[i].mig_profile, "1g.10gb");
    EXPECT_EQ(devices[i].sm_count, 16u);
    EXPECT_DOUBLE_EQ(devices[i].mig_sm_share, 16.0 / 132.0);
    EXPECT_DOUBLE_EQ(devices[i].mig_memory_share, 9984.0 / 81152.0);
    EXPECT_EQ(source.status(1 + i).source, SourceKind::Gpm);
  }
  EXPECT_EQ(devices[6].uuid, "MIG-0b100000-0001-4000-8000-00000000000d");
  EXPECT_EQ(pm_->factory_calls, 0);
  // Each GPU instance's counters move by a different amount: the samples are per instance.
  for (std::size_t i = 0; i < 7; ++i) {
    fake_.gpus[0].mig_devices[i].gpm_counters = {{kAnyTensorUtil, 10.0 * static_cast<double>(i + 1)},
                                                 {kDramBwUtil, 1.0}};
  }
  const auto samples = poll_at(source, kT0 + kInterval);
  ASSERT_EQ(samples.size(), 7u);
  for (std::uint32_t i = 0; i < 7; ++i) {
    EXPECT_EQ(samples[i].device_index, 1 + i);
    EXPECT_EQ(samples[i].source, SourceKind::Gpm);
    EXPECT_DOUBLE_EQ(samples[i].value(MetricId::TensorPipe), 10.0 * (i + 1));
  }
  EXPECT_EQ(fake_.calls("nvmlGpmMigSampleGet"), 14);
  EXPECT_EQ(fake_.calls("nvmlGpmSampleGet"), 0);
}

TEST_F(NvidiaMigTest, not_supported_calls_on_instances_are_skipped_without_losing_them) {
  fake_.gpus = {testing::a100_80gb_mig_gpu()};
  FakeGpu& gpu = fake_.gpus[0];
  gpu.power_mw = 250'000;
  gpu.sm_clock_mhz = 1410;
  gpu.temperature_c = 55;
  gpu.mig_devices[0].memory_used_bytes = 1ULL << 30;
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  for (const std::int64_t t : {kT0 + kInterval, kT0 + 2 * kInterval}) {
    const auto samples = poll_at(source, t);
    ASSERT_EQ(samples.size(), 3u);
    const core::RawSample& s = samples[0];
    EXPECT_EQ(s.device_index, 1u);
    EXPECT_EQ(s.source, SourceKind::NvmlOnly);
    EXPECT_DOUBLE_EQ(s.value(MetricId::PowerW), 250.0);  // the whole GPU's
    EXPECT_DOUBLE_EQ(s.value(MetricId::SmClockMhz), 1410.0);
    EXPECT_DOUBLE_EQ(s.value(MetricId::TemperatureC), 55.0);
    EXPECT_DOUBLE_EQ(s.value(MetricId::MemoryTotalBytes), 40192.0 * kMibBytes);  // the instance's
    EXPECT_DOUBLE_EQ(s.value(MetricId::MemoryUsedBytes), static_cast<double>(1ULL << 30));
    EXPECT_TRUE(std::isnan(s.value(MetricId::GpuUtil)));  // not reported under MIG
  }
  for (std::uint32_t index = 1; index <= 3; ++index) EXPECT_FALSE(source.status(index).lost);
  // Asked once per handle, then skipped: NOT_SUPPORTED is not a loss.
  EXPECT_EQ(fake_.mig_calls("nvmlDeviceGetUtilizationRates", 0, 0), 1);
  EXPECT_EQ(fake_.mig_calls("nvmlDeviceGetPowerUsage", 0, 0), 1);
  EXPECT_EQ(fake_.calls("nvmlDeviceGetPowerUsage", 0), 2);  // the parent's, once per poll for all three
}

TEST_F(NvidiaMigTest, a_lost_parent_ends_its_instances) {
  fake_.gpus = {testing::a100_80gb_mig_gpu()};
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  fake_.gpus[0].lost = true;
  EXPECT_TRUE(poll_at(source, kT0 + kInterval).empty());
  for (std::uint32_t index = 1; index <= 3; ++index) {
    EXPECT_TRUE(source.status(index).lost);
    EXPECT_TRUE(contains(source.status(index).reason, "lost")) << source.status(index).reason;
  }
}

TEST_F(NvidiaMigTest, devices_selects_whole_gpus_and_a_mig_gpu_brings_all_its_instances) {
  fake_.gpus = {testing::a100_80gb_mig_gpu(), testing::h100_80gb_mig_gpu()};
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source, {1}).has_value());
  const auto devices = source.devices();
  ASSERT_EQ(devices.size(), 7u);
  EXPECT_EQ(devices.front().index, 5u);  // after 2 whole GPUs and GPU 0's 3 instances
  EXPECT_EQ(devices.back().index, 11u);
  for (const auto& d : devices) EXPECT_EQ(d.gpu_index, 1);
  source.stop();
  NvidiaSource by_instance(deps());  // --devices names whole GPUs, not MIG device numbers
  const auto started = start(by_instance, {5});
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error().message, "device 5 does not exist: valid indices are 0-1");
}

TEST_F(NvidiaMigTest, processes_on_an_instance_come_from_its_handle) {
  fake_.gpus = {testing::a100_80gb_mig_gpu()};
  fake_.gpus[0].mig_devices[1].processes = {
      {.pid = 4242, .used_gpu_memory = 1 << 20, .gpu_instance_id = 3, .compute_instance_id = 0}};
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  const auto on_second = source.processes_on(2);
  ASSERT_TRUE(on_second.has_value()) << on_second.error().message;
  ASSERT_EQ(on_second->size(), 1u);
  EXPECT_EQ((*on_second)[0].pid, 4242);
  EXPECT_TRUE(source.processes_on(1)->empty());
  EXPECT_EQ(source.processes_on(0).error().code, core::ErrorCode::InvalidArgument);  // not sampled itself
}

TEST_F(NvidiaMigTest, an_old_driver_without_the_mig_functions_samples_the_gpu_whole) {
  fake_.gpus = {testing::a100_80gb_mig_gpu()};
  fake_.missing = {"nvmlDeviceGetMaxMigDeviceCount",
                   "nvmlDeviceGetMigDeviceHandleByIndex",
                   "nvmlDeviceGetGpuInstanceId",
                   "nvmlDeviceGetComputeInstanceId",
                   "nvmlDeviceGetAttributes_v2",
                   "nvmlDeviceGetGpuInstanceProfileInfoV",
                   "nvmlDeviceIsMigDeviceHandle",
                   "nvmlDeviceGetDeviceHandleFromMigDeviceHandle",
                   "nvmlGpmMigSampleGet"};
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  ASSERT_EQ(source.devices().size(), 1u);
  EXPECT_FALSE(source.devices()[0].is_mig());
  EXPECT_EQ(source.status(0).source, SourceKind::NvmlOnly);
  EXPECT_TRUE(contains(source.status(0).reason,
                       "MIG instances not listed: this driver's NVML lacks nvmlDeviceGetMaxMigDeviceCount "
                       "(update the NVIDIA driver); the GPU is sampled whole"))
      << source.status(0).reason;
  EXPECT_EQ(poll_at(source, kT0 + kInterval).size(), 1u);
}

TEST_F(NvidiaMigTest, a_hopper_driver_without_mig_gpm_says_so) {
  fake_.gpus = {testing::h100_80gb_mig_gpu()};
  fake_.missing = {"nvmlGpmMigSampleGet"};
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  EXPECT_EQ(source.status(1).source, SourceKind::NvmlOnly);
  EXPECT_TRUE(contains(source.status(1).reason,
                       "GPM: no per-instance counters on Hopper MIG: this driver's NVML has no "
                       "nvmlGpmMigSampleGet"))
      << source.status(1).reason;
}

TEST_F(NvidiaMigTest, probe_lists_each_instance_under_its_gpu) {
  fake_.gpus = {testing::a100_80gb_mig_gpu(), testing::h100_80gb_mig_gpu()};
  const NvidiaSource source(deps());
  const auto probe = source.probe();
  ASSERT_TRUE(probe.has_value()) << probe.error().message;
  ASSERT_EQ(probe->devices.size(), 12u);
  EXPECT_EQ(probe->devices[0].info.index, 0u);
  EXPECT_TRUE(probe->devices[0].mig_enabled);
  EXPECT_EQ(probe->devices[0].mig_device_count, 3u);
  for (std::size_t i = 1; i <= 3; ++i) {
    EXPECT_EQ(probe->devices[i].info.gpu_index, 0);
    EXPECT_EQ(probe->devices[i].status.source, SourceKind::NvmlOnly);
    EXPECT_FALSE(probe->devices[i].gpm.supported);
  }
  EXPECT_EQ(probe->devices[4].info.index, 1u);
  EXPECT_EQ(probe->devices[4].mig_device_count, 7u);
  for (std::size_t i = 5; i < 12; ++i) {
    EXPECT_EQ(probe->devices[i].info.gpu_index, 1);
    EXPECT_EQ(probe->devices[i].status.source, SourceKind::Gpm);
  }
  EXPECT_EQ(fake_.calls("nvmlGpmSampleAlloc"), 0);
  EXPECT_EQ(pm_->factory_calls, 0);
}

TEST(MigProfileName, is_the_gpu_instance_profile_of_the_mig_device_name) {
  EXPECT_EQ(mig_profile_from_name("NVIDIA A100-SXM4-80GB MIG 3g.40gb"), "3g.40gb");
  EXPECT_EQ(mig_profile_from_name("NVIDIA A100-SXM4-40GB MIG 1c.3g.20gb"), "3g.20gb");
  EXPECT_EQ(mig_profile_from_name("NVIDIA H100 80GB HBM3 MIG 1g.10gb+me"), "1g.10gb+me");
  EXPECT_EQ(mig_profile_from_name("NVIDIA H100 80GB HBM3"), "");
}

}  // namespace
}  // namespace solscope::nvidia
