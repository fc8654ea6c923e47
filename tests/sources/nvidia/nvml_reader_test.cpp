#include "sources/nvidia/nvml_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <utility>

#include "support/fake_nvml.hpp"

namespace solscope::nvidia {
namespace {

using core::MetricId;
using testing::FakeGpu;
using testing::FakeNvml;

class NvmlReaderTest : public ::testing::Test {
 protected:
  auto open() -> NvmlReader {
    auto reader = NvmlReader::open(fake_.api());
    EXPECT_TRUE(reader.has_value()) << (reader ? "" : reader.error().message);
    return std::move(*reader);
  }

  FakeNvml fake_;
};

TEST_F(NvmlReaderTest, open_fails_with_nvml_error_text_when_init_fails) {
  fake_.init_result = nvml::kErrorDriverNotLoaded;
  const auto reader = NvmlReader::open(fake_.api());
  ASSERT_FALSE(reader.has_value());
  EXPECT_EQ(reader.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(reader.error().message, "nvmlInit failed: Driver Not Loaded");
  EXPECT_NE(reader.error().hint.find("nvidia-smi"), std::string::npos);
  EXPECT_EQ(fake_.calls("nvmlShutdown"), 0);
}

TEST_F(NvmlReaderTest, reads_static_facts_and_driver_version) {
  fake_.gpus.resize(2);
  fake_.gpus[1].uuid = "GPU-11111111-1111-1111-1111-111111111111";
  fake_.gpus[1].pci_bus_id = "00000000:2A:00.0";
  NvmlReader reader = open();
  EXPECT_EQ(reader.driver_version(), "565.57.01");
  EXPECT_EQ(reader.driver_major(), 565);
  ASSERT_EQ(reader.device_count(), 2u);
  const core::DeviceInfo& info = reader.device_info(1);
  EXPECT_EQ(info.index, 1u);
  EXPECT_EQ(info.uuid, "GPU-11111111-1111-1111-1111-111111111111");
  EXPECT_EQ(info.name, "Synthetic H100-like GPU");
  EXPECT_EQ(info.pci_bus_id, "00000000:2A:00.0");
  EXPECT_EQ(info.max_sm_clock_mhz, 1980.0);
  EXPECT_EQ(info.max_mem_clock_mhz, 2619.0);
  EXPECT_EQ(info.memory_total_bytes, 85'520'809'984ULL);
  // 5120 bits / 8 x 2619 MHz x 1e6 x 2 transfers per clock.
  EXPECT_DOUBLE_EQ(info.dram_peak_bytes_per_s, 5120.0 / 8.0 * 2619e6 * 2.0);
  EXPECT_TRUE(info.chip.empty());
  EXPECT_EQ(info.sm_count, 0u);
  EXPECT_EQ(reader.architecture(1), nvml::kArchHopper);
  EXPECT_FALSE(reader.mig_enabled(1));
}

TEST_F(NvmlReaderTest, legacy_pci_call_gives_the_legacy_bus_id) {
  fake_.gpus.resize(1);
  fake_.missing = {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"};
  NvmlReader reader = open();
  EXPECT_EQ(reader.device_info(0).pci_bus_id, "0000:17:00.0");
}

TEST_F(NvmlReaderTest, read_converts_units) {
  FakeGpu gpu;
  gpu.util_gpu_pct = 87;
  gpu.util_mem_pct = 41;
  gpu.sm_clock_mhz = 1755;
  gpu.mem_clock_mhz = 2619;
  gpu.power_mw = 350'500;
  gpu.power_limit_mw = 700'000;
  gpu.temperature_c = 61;
  gpu.memory_used_bytes = 40'000'000'000ULL;
  fake_.gpus.push_back(gpu);
  NvmlReader reader = open();
  core::RawSample sample;
  ASSERT_TRUE(reader.read(0, sample).has_value());
  EXPECT_EQ(sample.value(MetricId::GpuUtil), 87.0);
  EXPECT_EQ(sample.value(MetricId::MemCopyUtil), 41.0);
  EXPECT_EQ(sample.value(MetricId::SmClockMhz), 1755.0);
  EXPECT_EQ(sample.value(MetricId::MemClockMhz), 2619.0);
  EXPECT_DOUBLE_EQ(sample.value(MetricId::PowerW), 350.5);
  EXPECT_DOUBLE_EQ(sample.value(MetricId::PowerLimitW), 700.0);
  EXPECT_EQ(sample.value(MetricId::TemperatureC), 61.0);
  EXPECT_EQ(sample.value(MetricId::MemoryUsedBytes), 40e9);
  EXPECT_EQ(sample.value(MetricId::MemoryTotalBytes), 85'520'809'984.0);
  EXPECT_TRUE(std::isnan(sample.value(MetricId::TensorPipe)));
}

TEST_F(NvmlReaderTest, unsupported_queries_are_probed_once) {
  fake_.gpus.resize(1);
  fake_.gpus[0].unsupported = {"nvmlDeviceGetPowerUsage"};
  fake_.missing = {"nvmlDeviceGetEnforcedPowerLimit"};
  NvmlReader reader = open();
  for (int i = 0; i < 5; ++i) {
    core::RawSample sample;
    ASSERT_TRUE(reader.read(0, sample).has_value());
    EXPECT_TRUE(std::isnan(sample.value(MetricId::PowerW)));
    EXPECT_TRUE(std::isnan(sample.value(MetricId::PowerLimitW)));
  }
  EXPECT_EQ(fake_.calls("nvmlDeviceGetPowerUsage"), 1);
  EXPECT_EQ(fake_.calls("nvmlDeviceGetUtilizationRates"), 5);
  const NvmlCapabilities caps = reader.capabilities(0);
  EXPECT_EQ(caps.of(NvmlQuery::Power), QuerySupport::Unsupported);
  EXPECT_EQ(caps.failure[static_cast<std::size_t>(NvmlQuery::Power)], nvml::kErrorNotSupported);
  EXPECT_EQ(caps.of(NvmlQuery::PowerLimit), QuerySupport::Unsupported);
  EXPECT_EQ(caps.failure[static_cast<std::size_t>(NvmlQuery::PowerLimit)], nvml::kErrorFunctionNotFound);
  EXPECT_EQ(caps.of(NvmlQuery::Utilization), QuerySupport::Supported);
  EXPECT_EQ(fake_.calls("nvmlDeviceGetPowerUsage"), 1);
}

TEST_F(NvmlReaderTest, versioned_calls_fall_back_to_the_old_ones_once) {
  fake_.gpus.resize(1);
  fake_.gpus[0].temperature_c = 55;
  fake_.gpus[0].memory_used_bytes = 1024;
  fake_.gpus[0].unsupported = {"nvmlDeviceGetTemperatureV", "nvmlDeviceGetMemoryInfo_v2"};
  NvmlReader reader = open();
  for (int i = 0; i < 3; ++i) {
    core::RawSample sample;
    ASSERT_TRUE(reader.read(0, sample).has_value());
    EXPECT_EQ(sample.value(MetricId::TemperatureC), 55.0);
    EXPECT_EQ(sample.value(MetricId::MemoryUsedBytes), 1024.0);
  }
  EXPECT_EQ(fake_.calls("nvmlDeviceGetTemperatureV"), 1);
  EXPECT_EQ(fake_.calls("nvmlDeviceGetTemperature"), 3);
  EXPECT_EQ(fake_.calls("nvmlDeviceGetMemoryInfo_v2"), 1);
  EXPECT_EQ(reader.device_info(0).memory_total_bytes, 85'520'809'984ULL);
}

TEST_F(NvmlReaderTest, lost_gpu_is_marked_and_never_called_again) {
  fake_.gpus.resize(2);
  NvmlReader reader = open();
  core::RawSample sample;
  ASSERT_TRUE(reader.read(1, sample).has_value());
  fake_.gpus[1].lost = true;
  const auto lost = reader.read(1, sample);
  ASSERT_FALSE(lost.has_value());
  EXPECT_EQ(lost.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(lost.error().message, "device 1 (GPU-00000000-0000-0000-0000-000000000000) lost: GPU is lost");
  EXPECT_TRUE(reader.is_lost(1));
  const int calls = fake_.calls("nvmlDeviceGetUtilizationRates", 1);
  EXPECT_FALSE(reader.read(1, sample).has_value());
  EXPECT_EQ(fake_.calls("nvmlDeviceGetUtilizationRates", 1), calls);
  EXPECT_TRUE(reader.read(0, sample).has_value());
  EXPECT_FALSE(reader.is_lost(0));
}

TEST_F(NvmlReaderTest, gpu_lost_before_open_is_marked_lost) {
  fake_.gpus.resize(2);
  fake_.gpus[0].lost = true;
  NvmlReader reader = open();
  EXPECT_TRUE(reader.is_lost(0));
  EXPECT_EQ(reader.lost_reason(0), "device 0: nvmlDeviceGetHandleByIndex failed: GPU is lost");
  EXPECT_FALSE(reader.is_lost(1));
}

TEST_F(NvmlReaderTest, processes_are_listed_with_a_retry_when_the_list_grows) {
  fake_.gpus.resize(1);
  fake_.gpus[0].processes = {
      {.pid = 100, .used_gpu_memory = 1ULL << 30, .gpu_instance_id = ~0U, .compute_instance_id = ~0U}};
  for (unsigned int pid = 200; pid < 212; ++pid) {  // more than the slack of 8
    fake_.gpus[0].processes_started_after_count.push_back(
        {.pid = pid, .used_gpu_memory = 4096, .gpu_instance_id = ~0U, .compute_instance_id = ~0U});
  }
  NvmlReader reader = open();
  const auto processes = reader.processes(0);
  ASSERT_TRUE(processes.has_value()) << processes.error().message;
  ASSERT_EQ(processes->size(), 13u);
  EXPECT_EQ((*processes)[0].pid, 100u);
  EXPECT_EQ((*processes)[0].used_memory_bytes, 1ULL << 30);
  EXPECT_EQ((*processes)[12].pid, 211u);
  EXPECT_EQ(fake_.calls("nvmlDeviceGetComputeRunningProcesses_v3"), 3);
}

TEST_F(NvmlReaderTest, processes_use_the_v1_layout_on_old_drivers) {
  fake_.gpus.resize(1);
  fake_.gpus[0].processes = {
      {.pid = 7, .used_gpu_memory = 123, .gpu_instance_id = 0, .compute_instance_id = 0},
      {.pid = 8, .used_gpu_memory = 456, .gpu_instance_id = 0, .compute_instance_id = 0}};
  fake_.missing = {"nvmlDeviceGetComputeRunningProcesses_v3"};
  NvmlReader reader = open();
  const auto processes = reader.processes(0);
  ASSERT_TRUE(processes.has_value());
  ASSERT_EQ(processes->size(), 2u);
  EXPECT_EQ((*processes)[1].pid, 8u);
  EXPECT_EQ((*processes)[1].used_memory_bytes, 456u);
}

TEST_F(NvmlReaderTest, unsupported_process_list_is_unimplemented_and_probed_once) {
  fake_.gpus.resize(1);
  fake_.gpus[0].unsupported = {"nvmlDeviceGetComputeRunningProcesses_v3"};
  NvmlReader reader = open();
  for (int i = 0; i < 3; ++i) {
    const auto processes = reader.processes(0);
    ASSERT_FALSE(processes.has_value());
    EXPECT_EQ(processes.error().code, core::ErrorCode::Unimplemented);
  }
  EXPECT_EQ(fake_.calls("nvmlDeviceGetComputeRunningProcesses_v3"), 1);
}

TEST_F(NvmlReaderTest, shuts_nvml_down_once) {
  fake_.gpus.resize(1);
  {
    NvmlReader reader = open();
    NvmlReader moved = std::move(reader);
    EXPECT_EQ(fake_.calls("nvmlShutdown"), 0);
  }
  EXPECT_EQ(fake_.calls("nvmlShutdown"), 1);
}

TEST_F(NvmlReaderTest, move_assignment_into_and_from_an_empty_reader_shuts_down_exactly_once_each) {
  fake_.gpus.resize(1);
  {
    NvmlReader first = open();
    NvmlReader holder = std::move(first);  // `first` is empty now
    first = std::move(holder);             // into an empty reader: nothing to shut down
    EXPECT_EQ(fake_.calls("nvmlShutdown"), 0);
    EXPECT_EQ(first.device_count(), 1u);
    EXPECT_EQ(holder.device_count(), 0u) << "a moved-from reader is empty";
    NvmlReader second = open();
    second = std::move(first);  // replaces a live session: that one is shut down, now
    EXPECT_EQ(fake_.calls("nvmlShutdown"), 1);
    first = std::move(holder);  // from an empty reader into an empty reader: nothing
    EXPECT_EQ(fake_.calls("nvmlShutdown"), 1);
  }
  EXPECT_EQ(fake_.calls("nvmlShutdown"), 2) << "one per nvmlInit";
}

TEST_F(NvmlReaderTest, move_assignment_over_a_reader_without_nvmlShutdown_calls_nothing) {
  fake_.gpus.resize(1);
  NvmlApi api = fake_.api();
  api.shutdown = nullptr;  // a table without nvmlShutdown: the destructor always checked, assignment did not
  auto opened = NvmlReader::open(api);
  ASSERT_TRUE(opened.has_value());
  NvmlReader reader = std::move(*opened);
  reader = open();  // before NvmlSession: a call through a null pointer (SIGSEGV)
  EXPECT_EQ(fake_.calls("nvmlShutdown"), 0);
  EXPECT_EQ(reader.device_count(), 1u);
}

TEST(NvmlFormulaTest, driver_major_version_parses_the_leading_number) {
  EXPECT_EQ(driver_major_version("565.57.01"), 565);
  EXPECT_EQ(driver_major_version("580.65"), 580);
  EXPECT_EQ(driver_major_version(""), 0);
  EXPECT_EQ(driver_major_version("r565"), 0);
}

TEST(NvmlFormulaTest, dram_peak_needs_both_figures) {
  EXPECT_DOUBLE_EQ(dram_peak_bytes_per_s(384, 10501.0), 384.0 / 8.0 * 10501e6 * 2.0);
  EXPECT_TRUE(std::isnan(dram_peak_bytes_per_s(0, 2619.0)));
  EXPECT_TRUE(std::isnan(dram_peak_bytes_per_s(5120, std::nan(""))));
}

}  // namespace
}  // namespace solscope::nvidia
