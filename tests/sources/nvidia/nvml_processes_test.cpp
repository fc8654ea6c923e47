// NvmlReader::processes over the synthetic NVML: the graphics and MPS lists merged into the compute list,
// and each process's SM share from nvmlDeviceGetProcessUtilization, with NVML's size protocol and return
// codes (support/fake_nvml_processes.cpp). Every figure is synthetic.
#include <gtest/gtest.h>

#include <optional>
#include <utility>
#include <vector>

#include "nvidia_source_fixture.hpp"
#include "sources/nvidia/nvml_reader.hpp"
#include "support/fake_nvml.hpp"

namespace solscope::nvidia {
namespace {

using testing::FakeNvml;

constexpr unsigned int kNoMig = ~0U;

auto info(unsigned int pid, unsigned long long memory_bytes) -> nvml::ProcessInfo {
  return {
      .pid = pid, .used_gpu_memory = memory_bytes, .gpu_instance_id = kNoMig, .compute_instance_id = kNoMig};
}

auto sample(unsigned int pid, unsigned long long t_us, unsigned int sm_pct)
    -> nvml::ProcessUtilizationSample {
  return {.pid = pid, .time_stamp = t_us, .sm_util = sm_pct, .mem_util = 0, .enc_util = 0, .dec_util = 0};
}

constexpr const char* kUtil = "nvmlDeviceGetProcessUtilization";

class NvmlProcessesTest : public ::testing::Test {
 protected:
  NvmlProcessesTest() {
    fake_.gpus.resize(1);
    fake_.gpus[0].processes = {info(100, 1ULL << 30), info(200, 2ULL << 30)};
  }
  auto open() -> NvmlReader {
    auto reader = NvmlReader::open(fake_.api());
    EXPECT_TRUE(reader.has_value()) << (reader ? "" : reader.error().message);
    return std::move(*reader);
  }
  static auto listed(NvmlReader& reader) -> std::vector<GpuProcess> {
    auto processes = reader.processes(0);
    EXPECT_TRUE(processes.has_value()) << (processes ? "" : processes.error().message);
    return processes ? *processes : std::vector<GpuProcess>{};
  }

  FakeNvml fake_;
};

TEST_F(NvmlProcessesTest, two_time_sliced_processes_get_their_mean_sm_share_over_the_window) {
  // Three driver sample periods; pid 100 idle in the third (NVML then returns no sample for it).
  fake_.gpus[0].utilization_samples = {sample(100, 1'000, 60), sample(200, 1'000, 30), sample(100, 2'000, 30),
                                       sample(200, 2'000, 60), sample(200, 3'000, 90)};
  NvmlReader reader = open();
  auto first = listed(reader);
  ASSERT_EQ(first.size(), 2U);
  EXPECT_EQ(first[0].sm_pct, std::optional(30.0));  // (60 + 30 + 0) / 3 periods
  EXPECT_EQ(first[1].sm_pct, std::optional(60.0));  // (30 + 60 + 90) / 3
  EXPECT_EQ(first[0].used_memory_bytes, 1ULL << 30);

  // The next window starts after the newest sample seen: only the new one counts.
  fake_.gpus[0].utilization_samples.push_back(sample(100, 4'000, 80));
  auto second = listed(reader);
  ASSERT_EQ(second.size(), 2U);
  EXPECT_EQ(second[0].sm_pct, std::optional(80.0));
  EXPECT_EQ(second[1].sm_pct, std::optional(0.0));  // no sample: idle in the window
  // Size query then fill, each time with the newest timeStamp seen before the call.
  EXPECT_EQ(fake_.gpus[0].utilization_since, (std::vector<unsigned long long>{0, 0, 3'000, 3'000}));
}

TEST_F(NvmlProcessesTest, samples_follow_the_size_protocol_and_a_growing_batch_is_asked_again) {
  for (unsigned int i = 0; i < 20; ++i) fake_.gpus[0].utilization_samples.push_back(sample(100, 10 + i, 50));
  NvmlReader reader = open();
  const auto processes = listed(reader);
  ASSERT_EQ(processes.size(), 2U);
  EXPECT_EQ(processes[0].sm_pct, std::optional(50.0));
  EXPECT_EQ(processes[1].sm_pct, std::optional(0.0));
  EXPECT_EQ(fake_.calls(kUtil), 2);  // NULL buffer -> INSUFFICIENT_SIZE and 20; then 28 entries -> 20 written
}

TEST_F(NvmlProcessesTest, not_found_means_no_process_was_busy_since_the_last_sample) {
  NvmlReader reader = open();  // no samples at all: NVML_ERROR_NOT_FOUND
  const auto processes = listed(reader);
  ASSERT_EQ(processes.size(), 2U);
  EXPECT_EQ(processes[0].sm_pct, std::optional(0.0));
  EXPECT_EQ(processes[1].sm_pct, std::optional(0.0));
  EXPECT_EQ(reader.capabilities(0).of(NvmlQuery::ProcessUtilization), QuerySupport::Supported);
  (void)listed(reader);
  EXPECT_EQ(fake_.gpus[0].utilization_since, (std::vector<unsigned long long>{0, 0}));  // asked again
}

TEST_F(NvmlProcessesTest, not_supported_leaves_the_share_unknown_and_is_probed_once) {
  fake_.gpus[0].unsupported = {kUtil};
  fake_.gpus[0].utilization_samples = {sample(100, 1'000, 60)};
  NvmlReader reader = open();
  for (int i = 0; i < 3; ++i) {
    const auto processes = listed(reader);
    ASSERT_EQ(processes.size(), 2U);
    EXPECT_EQ(processes[0].sm_pct, std::nullopt);
    EXPECT_EQ(processes[1].sm_pct, std::nullopt);
  }
  EXPECT_EQ(fake_.calls(kUtil), 1);
  const NvmlCapabilities caps = reader.capabilities(0);
  EXPECT_EQ(caps.of(NvmlQuery::ProcessUtilization), QuerySupport::Unsupported);
  EXPECT_EQ(caps.failure[static_cast<std::size_t>(NvmlQuery::ProcessUtilization)], nvml::kErrorNotSupported);
}

TEST_F(NvmlProcessesTest, a_driver_without_the_optional_functions_lists_compute_processes_only) {
  fake_.missing = {kUtil, "nvmlDeviceGetGraphicsRunningProcesses_v3",
                   "nvmlDeviceGetGraphicsRunningProcesses_v2", "nvmlDeviceGetMPSComputeRunningProcesses_v3",
                   "nvmlDeviceGetMPSComputeRunningProcesses_v2"};
  fake_.gpus[0].graphics_processes = {info(300, 1)};
  NvmlReader reader = open();
  const auto processes = listed(reader);
  ASSERT_EQ(processes.size(), 2U);
  EXPECT_EQ(processes[0].sm_pct, std::nullopt);
  EXPECT_FALSE(processes[0].graphics);
  EXPECT_FALSE(processes[0].mps);
  EXPECT_EQ(reader.capabilities(0).of(NvmlQuery::GraphicsProcesses), QuerySupport::Unsupported);
}

TEST_F(NvmlProcessesTest, graphics_only_and_mps_processes_are_flagged_and_compute_wins) {
  // 100: compute and MPS client (nvidia-smi "M+C"); 300: MPS only ("M"); 200: compute and graphics ("C+G");
  // 400: graphics only ("G").
  fake_.gpus[0].mps_processes = {info(100, 5), info(300, 3ULL << 20)};
  fake_.gpus[0].graphics_processes = {info(200, 7), info(400, 4ULL << 20)};
  NvmlReader reader = open();
  const auto processes = listed(reader);
  ASSERT_EQ(processes.size(), 4U);
  EXPECT_EQ(processes[0].pid, 100U);
  EXPECT_TRUE(processes[0].mps);
  EXPECT_FALSE(processes[0].graphics);
  EXPECT_EQ(processes[0].used_memory_bytes, 1ULL << 30);  // the compute entry's memory
  EXPECT_EQ(processes[1].pid, 200U);
  EXPECT_FALSE(processes[1].graphics);  // compute wins
  EXPECT_EQ(processes[1].used_memory_bytes, 2ULL << 30);
  EXPECT_EQ(processes[2].pid, 300U);
  EXPECT_TRUE(processes[2].mps);
  EXPECT_EQ(processes[2].used_memory_bytes, 3ULL << 20);
  EXPECT_EQ(processes[3].pid, 400U);
  EXPECT_TRUE(processes[3].graphics);
  EXPECT_FALSE(processes[3].mps);
  EXPECT_EQ(processes[3].used_memory_bytes, 4ULL << 20);
}

TEST(NvmlProcessApiTest, the_optional_process_functions_resolve_newest_first_and_may_be_missing) {
  FakeNvml fake;
  const NvmlApi api = fake.api();
  EXPECT_EQ(reinterpret_cast<void*>(api.device_get_graphics_running_processes),
            fake.lookup("nvmlDeviceGetGraphicsRunningProcesses_v3"));
  EXPECT_EQ(reinterpret_cast<void*>(api.device_get_mps_compute_running_processes),
            fake.lookup("nvmlDeviceGetMPSComputeRunningProcesses_v3"));
  EXPECT_EQ(reinterpret_cast<void*>(api.device_get_process_utilization), fake.lookup(kUtil));
  fake.missing = {"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetMPSComputeRunningProcesses_v3",
                  "nvmlDeviceGetMPSComputeRunningProcesses_v2", kUtil};
  const NvmlApi older = fake.api();
  EXPECT_EQ(reinterpret_cast<void*>(older.device_get_graphics_running_processes),
            fake.lookup("nvmlDeviceGetGraphicsRunningProcesses_v2"));
  EXPECT_EQ(older.device_get_mps_compute_running_processes, nullptr);
  EXPECT_EQ(older.device_get_process_utilization, nullptr);
}

TEST(ProcessSmPctTest, divides_each_pids_sum_by_the_periods_of_the_batch) {
  const std::vector<nvml::ProcessUtilizationSample> samples{sample(7, 5, 40), sample(8, 5, 20),
                                                            sample(8, 6, 80)};
  const auto pct = process_sm_pct(samples);
  ASSERT_EQ(pct.size(), 2U);
  EXPECT_DOUBLE_EQ(pct.at(7), 20.0);
  EXPECT_DOUBLE_EQ(pct.at(8), 50.0);
  EXPECT_TRUE(process_sm_pct({}).empty());
}

class NvidiaSourceProcessesTest : public testing::NvidiaSourceFixture {};

TEST_F(NvidiaSourceProcessesTest, the_source_hands_on_sm_share_graphics_and_mps) {
  fake_.gpus.push_back(testing::ampere_like());
  fake_.gpus[0].processes = {info(10, 1 << 20)};
  fake_.gpus[0].mps_processes = {info(11, 1 << 20)};
  fake_.gpus[0].graphics_processes = {info(12, 1 << 20)};
  fake_.gpus[0].utilization_samples = {sample(10, 100, 25), sample(11, 100, 75)};
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  const auto processes = source.processes_on(0);
  ASSERT_TRUE(processes.has_value());
  ASSERT_EQ(processes->size(), 3U);
  EXPECT_EQ((*processes)[0].sm_pct, std::optional(25.0));
  EXPECT_FALSE((*processes)[0].mps);
  EXPECT_EQ((*processes)[1].sm_pct, std::optional(75.0));
  EXPECT_TRUE((*processes)[1].mps);
  EXPECT_EQ((*processes)[2].sm_pct, std::optional(0.0));
  EXPECT_TRUE((*processes)[2].graphics);
}

}  // namespace
}  // namespace solscope::nvidia
