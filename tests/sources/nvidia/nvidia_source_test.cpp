#include "sources/nvidia/nvidia_source.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>
#include <string>

#include "nvidia_source_fixture.hpp"

namespace solscope::nvidia {
namespace {

using core::MetricId;
using core::SourceKind;
using testing::FakeGpu;
using testing::FakeNvml;
using testing::FakePmState;
using testing::FakeProcfsTree;
using testing::synthetic_pm_sample;

using testing::ampere_like;
using testing::contains;
using testing::kInterval;
using testing::kMs;
using testing::kT0;

class NvidiaSourceTest : public testing::NvidiaSourceFixture {};

TEST_F(NvidiaSourceTest, no_driver_is_unavailable_without_any_cupti_call) {
  NvidiaSourceDeps d = deps();
  d.load_nvml = [] {
    const std::array<std::string, 1> absent{"libsolscope-test-absent-nvidia-ml.so.1"};
    return load_nvml(absent);
  };
  NvidiaSource source(std::move(d));
  const auto started = start(source);
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(started.error().message, "no NVIDIA driver found");
  EXPECT_TRUE(contains(started.error().hint, "install the NVIDIA driver"));
  EXPECT_TRUE(contains(started.error().hint, "`solscope replay FILE` works without a GPU"));
  EXPECT_EQ(source.probe().error().message, "no NVIDIA driver found");
  EXPECT_EQ(pm_->factory_calls, 0);
  EXPECT_TRUE(pm_->open_calls.empty());
}

TEST_F(NvidiaSourceTest, nvml_init_failure_is_reported_without_cupti) {
  fake_.gpus.resize(1);
  fake_.init_result = nvml::kErrorDriverNotLoaded;
  NvidiaSource source(deps());
  const auto started = start(source);
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(started.error().message, "nvmlInit failed: Driver Not Loaded");
  EXPECT_EQ(pm_->factory_calls, 0);
}

TEST_F(NvidiaSourceTest, pm_samples_carry_the_latest_nvml_figures) {
  fake_.gpus.resize(1);
  fake_.gpus[0].power_mw = 300'000;
  fake_.gpus[0].sm_clock_mhz = 1980;
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  EXPECT_EQ(source.status(0).source, SourceKind::PmSampling);
  EXPECT_EQ(source.status(0).reason, "");
  ASSERT_EQ(source.devices().size(), 1u);
  EXPECT_EQ(source.devices()[0].chip, "GH100");
  ASSERT_EQ(pm_->open_calls, std::vector<std::uint32_t>{0});
  EXPECT_EQ(pm_->open_pci_ids[0], "00000000:17:00.0");
  EXPECT_EQ(pm_->open_intervals_ns[0], kInterval);

  pm_->polls.push_back({.samples = {synthetic_pm_sample(0, kT0, kT0 + 50 * kMs, 71.0, 40.0),
                                    synthetic_pm_sample(0, kT0 + 50 * kMs, kT0 + 100 * kMs, 73.0, 42.0)},
                        .lost = {}});
  const int power_reads = fake_.calls("nvmlDeviceGetPowerUsage");
  const auto samples = poll_at(source, kT0 + 100 * kMs);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[1].source, SourceKind::PmSampling);
  EXPECT_EQ(samples[1].value(MetricId::TensorPipe), 73.0);
  EXPECT_DOUBLE_EQ(samples[0].value(MetricId::PowerW), 300.0);
  EXPECT_DOUBLE_EQ(samples[1].value(MetricId::PowerW), 300.0);
  EXPECT_EQ(samples[1].value(MetricId::SmClockMhz), 1980.0);
  EXPECT_EQ(fake_.calls("nvmlDeviceGetPowerUsage"), power_reads + 1);

  // 50 ms later: the NVML figures are reused, not read again.
  pm_->polls.push_back(
      {.samples = {synthetic_pm_sample(0, kT0 + 100 * kMs, kT0 + 150 * kMs, 75.0, 44.0)}, .lost = {}});
  const auto later = poll_at(source, kT0 + 150 * kMs);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_DOUBLE_EQ(later[0].value(MetricId::PowerW), 300.0);
  EXPECT_EQ(fake_.calls("nvmlDeviceGetPowerUsage"), power_reads + 1);
}

TEST_F(NvidiaSourceTest, device_lost_in_pm_sampling_ends_only_that_device) {
  fake_.gpus.resize(2);
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  pm_->polls.push_back({.samples = {synthetic_pm_sample(0, kT0, kT0 + kInterval, 10.0, 20.0),
                                    synthetic_pm_sample(1, kT0, kT0 + kInterval, 30.0, 40.0)},
                        .lost = {}});
  EXPECT_EQ(poll_at(source, kT0 + kInterval).size(), 2u);

  pm_->polls.push_back(
      {.samples = {synthetic_pm_sample(0, kT0 + kInterval, kT0 + 2 * kInterval, 11.0, 21.0),
                   synthetic_pm_sample(1, kT0 + kInterval, kT0 + 2 * kInterval, 31.0, 41.0)},
       .lost = {
           {.nvml_index = 1, .error = {core::ErrorCode::Unavailable, "device 1 fell off the bus", ""}}}});
  const auto second = poll_at(source, kT0 + 2 * kInterval);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].device_index, 0u);
  EXPECT_TRUE(source.status(1).lost);
  EXPECT_EQ(source.status(1).reason, "device 1 fell off the bus");
  EXPECT_FALSE(source.status(0).lost);

  pm_->polls.push_back(
      {.samples = {synthetic_pm_sample(0, kT0 + 2 * kInterval, kT0 + 3 * kInterval, 12.0, 22.0)},
       .lost = {}});
  const auto third = poll_at(source, kT0 + 3 * kInterval);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0].value(MetricId::TensorPipe), 12.0);
}

TEST_F(NvidiaSourceTest, gpu_lost_in_nvml_ends_only_that_device) {
  fake_.gpus = {ampere_like(), ampere_like()};
  pm_->open_results[0] = core::fail(core::ErrorCode::Unimplemented, "chip GA100 test");
  pm_->open_results[1] = core::fail(core::ErrorCode::Unimplemented, "chip GA100 test");
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  EXPECT_EQ(poll_at(source, kT0 + kInterval).size(), 2u);
  fake_.gpus[1].lost = true;
  const auto samples = poll_at(source, kT0 + 2 * kInterval);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].device_index, 0u);
  EXPECT_TRUE(source.status(1).lost);
  EXPECT_TRUE(contains(source.status(1).reason, "device 1"));
  EXPECT_TRUE(contains(source.status(1).reason, "lost"));
  const int calls = fake_.calls("nvmlDeviceGetUtilizationRates", 1);
  ASSERT_EQ(poll_at(source, kT0 + 3 * kInterval).size(), 1u);
  EXPECT_EQ(fake_.calls("nvmlDeviceGetUtilizationRates", 1), calls);
}

TEST_F(NvidiaSourceTest, pm_permission_denied_falls_back_to_gpm_on_hopper) {
  fake_.gpus.resize(1);
  fake_.gpus[0].power_mw = 250'000;
  fake_.gpus[0].gpm_counters = {{5, 0.0}};
  pm_->open_results[0] = core::fail(core::ErrorCode::PermissionDenied, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  const sources::DeviceStatus status = source.status(0);
  EXPECT_EQ(status.source, SourceKind::Gpm);
  EXPECT_EQ(status.reason, "PM sampling denied: profiling is restricted to admin users");
  EXPECT_TRUE(contains(status.hint, "NVreg_RestrictProfilingToAdminUsers=0"));
  EXPECT_EQ(pm_->close_all_calls, 1);  // no device left on PM sampling

  fake_.gpus[0].gpm_counters = {{5, 64.0}};
  const auto samples = poll_at(source, kT0 + kInterval);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].source, SourceKind::Gpm);
  EXPECT_EQ(samples[0].t_start_ns, kT0);
  EXPECT_EQ(samples[0].t_end_ns, kT0 + kInterval);
  EXPECT_DOUBLE_EQ(samples[0].value(MetricId::TensorPipe), 64.0);
  EXPECT_DOUBLE_EQ(samples[0].value(MetricId::PowerW), 250.0);
  EXPECT_EQ(pm_->poll_calls, 0);
}

TEST_F(NvidiaSourceTest, best_source_gpm_skips_pm_sampling_and_nvml_only_skips_gpm_too) {
  // `solscope check --source gpm|nvml` checks each source in turn (SourceConfig::best_source).
  fake_.gpus.resize(1);
  NvidiaSource gpm(deps());
  ASSERT_TRUE(
      gpm.start({.interval_ns = kInterval, .devices = {}, .best_source = SourceKind::Gpm}).has_value());
  EXPECT_EQ(gpm.status(0).source, SourceKind::Gpm);
  EXPECT_EQ(gpm.status(0).reason, "PM sampling not asked for");
  EXPECT_TRUE(pm_->open_calls.empty()) << "no CUPTI session opened";
  gpm.stop();
  const int gpm_allocs = fake_.calls("nvmlGpmSampleAlloc");
  EXPECT_EQ(gpm_allocs, 2) << "two GPM samples, to difference";

  NvidiaSource nvml(deps());
  ASSERT_TRUE(
      nvml.start({.interval_ns = kInterval, .devices = {}, .best_source = SourceKind::NvmlOnly}).has_value());
  EXPECT_EQ(nvml.status(0).source, SourceKind::NvmlOnly);
  EXPECT_EQ(nvml.status(0).reason, "PM sampling not asked for; GPM: GPM not asked for");
  EXPECT_TRUE(pm_->open_calls.empty());
  EXPECT_EQ(fake_.calls("nvmlGpmSampleAlloc"), gpm_allocs) << "no GPM sampling";
}

TEST_F(NvidiaSourceTest, gpm_gives_at_most_one_sample_per_interval) {
  fake_.gpus.resize(1);
  pm_->open_results[0] = core::fail(core::ErrorCode::Unavailable, "busy");
  NvidiaSource source(deps());
  ASSERT_TRUE(source.start({.interval_ns = 500 * kMs, .devices = {}}).has_value());
  ASSERT_EQ(source.status(0).source, SourceKind::Gpm);
  EXPECT_TRUE(poll_at(source, kT0 + 100 * kMs).empty());
  EXPECT_TRUE(poll_at(source, kT0 + 200 * kMs).empty());
  const auto samples = poll_at(source, kT0 + 500 * kMs);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].t_start_ns, kT0);
  EXPECT_EQ(samples[0].t_end_ns, kT0 + 500 * kMs);
  EXPECT_EQ(fake_.calls("nvmlGpmMetricsGet"), 1);
}

TEST_F(NvidiaSourceTest, pm_permission_denied_falls_back_to_nvml_only_on_ampere) {
  fake_.gpus = {ampere_like()};
  fake_.gpus[0].util_gpu_pct = 93;
  pm_->open_results[0] = core::fail(core::ErrorCode::PermissionDenied, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  const sources::DeviceStatus status = source.status(0);
  EXPECT_EQ(status.source, SourceKind::NvmlOnly);
  EXPECT_EQ(status.reason,
            "PM sampling denied: profiling is restricted to admin users; GPM: GPM is not supported "
            "on this GPU (Hopper and newer only)");
  EXPECT_TRUE(contains(status.hint, "setcap"));

  const auto first = poll_at(source, kT0 + kInterval);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].source, SourceKind::NvmlOnly);
  EXPECT_EQ(first[0].t_start_ns, kT0);
  EXPECT_EQ(first[0].t_end_ns, kT0 + kInterval);
  EXPECT_EQ(first[0].value(MetricId::GpuUtil), 93.0);
  EXPECT_TRUE(std::isnan(first[0].value(MetricId::TensorPipe)));
  EXPECT_TRUE(poll_at(source, kT0 + 150 * kMs).empty());  // within the interval: no sample, no NVML read
  const auto second = poll_at(source, kT0 + 200 * kMs);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].t_start_ns, kT0 + kInterval);
  EXPECT_EQ(fake_.calls("nvmlDeviceGetUtilizationRates"), 2);
}

TEST_F(NvidiaSourceTest, busy_counters_fall_back_naming_the_other_profilers) {
  fake_.gpus.resize(1);
  pm_->open_results[0] = core::fail(core::ErrorCode::Unavailable, "counters in use");
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  EXPECT_EQ(source.status(0).source, SourceKind::Gpm);
  // Busy counters pause PM sampling (CounterYield) until they are free: nvidia_source_yield_test.cpp.
  EXPECT_EQ(source.status(0).reason, "PM sampling paused (counters_busy): counters in use");
  EXPECT_TRUE(contains(source.status(0).hint, "dcgmi profile --pause"));
}

TEST_F(NvidiaSourceTest, chip_without_counter_set_gives_the_sampler_reason) {
  fake_.gpus = {ampere_like()};
  pm_->open_results[0] = core::fail(core::ErrorCode::Unimplemented,
                                    "chip GV100 has no single-pass counter set", "use a newer GPU");
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  EXPECT_EQ(source.status(0).source, SourceKind::NvmlOnly);
  EXPECT_TRUE(contains(source.status(0).reason,
                       "PM sampling not supported: chip GV100 has no single-pass counter set"));
}

TEST_F(NvidiaSourceTest, preflight_denial_skips_cupti) {
  set_procfs(1);
  fake_.gpus.resize(1);
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  EXPECT_EQ(pm_->factory_calls, 0);
  EXPECT_TRUE(pm_->open_calls.empty());
  EXPECT_EQ(source.status(0).source, SourceKind::Gpm);
  EXPECT_TRUE(
      contains(source.status(0).reason, "PM sampling denied: profiling is restricted to admin users"));
}

TEST_F(NvidiaSourceTest, mig_enabled_gpu_skips_pm_sampling) {
  fake_.gpus.resize(1);
  fake_.gpus[0].mig_enabled = true;
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  EXPECT_TRUE(pm_->open_calls.empty());
  // No MIG instance exists yet, so the GPU is sampled whole, and says why.
  EXPECT_EQ(
      source.status(0).reason,
      "PM sampling not available: MIG is enabled on this GPU; MIG is on but the GPU has no MIG instance "
      "(create them: sudo nvidia-smi mig -i 0 -cgi <profiles> -C)");
  EXPECT_EQ(source.status(0).hint, "disable MIG for PM sampling (sudo nvidia-smi -i 0 -mig 0)");
}

TEST_F(NvidiaSourceTest, unknown_device_index_is_invalid_with_the_range) {
  fake_.gpus.resize(2);
  NvidiaSource source(deps());
  const auto started = start(source, {0, 5});
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(started.error().message, "device 5 does not exist: valid indices are 0-1");
  EXPECT_EQ(pm_->factory_calls, 0);
}

TEST_F(NvidiaSourceTest, selected_devices_only_are_sampled) {
  fake_.gpus.resize(3);
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source, {2, 1, 2}).has_value());
  const auto devices = source.devices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].index, 1u);
  EXPECT_EQ(devices[1].index, 2u);
  EXPECT_EQ(source.status(0).source, SourceKind::None);
  EXPECT_EQ(pm_->open_calls, (std::vector<std::uint32_t>{1, 2}));
}

TEST_F(NvidiaSourceTest, interval_below_one_ms_is_invalid) {
  fake_.gpus.resize(1);
  NvidiaSource source(deps());
  const auto started = source.start({.interval_ns = 999'999, .devices = {}});
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(started.error().message, "sampling interval 999999 ns is below the 1 ms floor");
}

TEST_F(NvidiaSourceTest, stop_is_idempotent_and_releases_everything) {
  fake_.gpus = {FakeGpu{}, ampere_like()};
  pm_->open_results[0] = core::fail(core::ErrorCode::Unavailable, "busy");
  pm_->open_results[1] = core::Result<std::string>{"GA100"};
  NvidiaSource source(deps());
  ASSERT_TRUE(start(source).has_value());
  EXPECT_EQ(source.status(0).source, SourceKind::Gpm);
  EXPECT_EQ(source.status(1).source, SourceKind::PmSampling);
  EXPECT_EQ(fake_.live_gpm_samples(), 2u);
  source.stop();
  source.stop();
  EXPECT_EQ(pm_->close_all_calls, 1);
  EXPECT_EQ(fake_.live_gpm_samples(), 0u);
  EXPECT_EQ(fake_.calls("nvmlShutdown"), 1);
  EXPECT_EQ(source.poll().error().code, core::ErrorCode::FailedPrecondition);
  EXPECT_EQ(source.status(1).source, SourceKind::PmSampling);
}

TEST_F(NvidiaSourceTest, probe_reports_without_cupti_or_sampling) {
  set_procfs(1);
  fake_.gpus = {FakeGpu{}, ampere_like()};
  fake_.gpus[1].unsupported = {"nvmlDeviceGetPowerUsage"};
  const NvidiaSource source(deps());
  const auto probe = source.probe();
  ASSERT_TRUE(probe.has_value()) << probe.error().message;
  EXPECT_EQ(probe->driver_version, "565.57.01");
  EXPECT_EQ(probe->permission.allowed, ProfilingAllowed::No);
  ASSERT_EQ(probe->devices.size(), 2u);
  EXPECT_FALSE(probe->devices[0].pm_sampling_would_try);
  EXPECT_EQ(probe->devices[0].status.source, SourceKind::Gpm);
  EXPECT_TRUE(probe->devices[0].gpm.supported);
  EXPECT_EQ(probe->devices[1].status.source, SourceKind::NvmlOnly);
  EXPECT_EQ(probe->devices[1].architecture, nvml::kArchAmpere);
  EXPECT_EQ(probe->devices[1].capabilities.of(NvmlQuery::Power), QuerySupport::Unsupported);
  EXPECT_EQ(pm_->factory_calls, 0);
  EXPECT_EQ(fake_.calls("nvmlGpmSampleAlloc"), 0);
  EXPECT_EQ(fake_.calls("nvmlShutdown"), 1);
}

TEST_F(NvidiaSourceTest, probe_says_pm_sampling_would_be_tried_when_allowed) {
  fake_.gpus.resize(1);
  const NvidiaSource source(deps());
  const auto probe = source.probe();
  ASSERT_TRUE(probe.has_value());
  EXPECT_EQ(probe->permission.allowed, ProfilingAllowed::Yes);
  EXPECT_TRUE(probe->devices[0].pm_sampling_would_try);
  EXPECT_EQ(probe->devices[0].status.source, SourceKind::PmSampling);
  EXPECT_EQ(pm_->factory_calls, 0);
  EXPECT_TRUE(pm_->open_calls.empty());
}

TEST_F(NvidiaSourceTest, processes_come_from_nvml) {
  fake_.gpus.resize(1);
  fake_.gpus[0].processes = {
      {.pid = 4242, .used_gpu_memory = 1 << 20, .gpu_instance_id = ~0U, .compute_instance_id = ~0U}};
  NvidiaSource source(deps());
  EXPECT_EQ(source.processes_on(0).error().code, core::ErrorCode::FailedPrecondition);
  ASSERT_TRUE(start(source).has_value());
  const auto processes = source.processes_on(0);
  ASSERT_TRUE(processes.has_value());
  ASSERT_EQ(processes->size(), 1u);
  EXPECT_EQ((*processes)[0].pid, 4242);
  EXPECT_EQ((*processes)[0].gpu_memory_bytes, std::optional<std::uint64_t>(1 << 20));
  EXPECT_EQ(source.processes_on(3).error().code, core::ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace solscope::nvidia
