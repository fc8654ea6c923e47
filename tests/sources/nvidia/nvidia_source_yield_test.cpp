// NvidiaSource as a CounterYield (issue 23): pausing gives a GPU's PM counters back (GPM on Hopper-like GPUs,
// NVML only on Ampere-like ones, every sample flagged with the reason), resuming takes them again, and
// counters taken by another profiler pause a device instead of losing it. Over FakeNvml and FakePmSampling;
// every figure is synthetic.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nvidia_source_fixture.hpp"
#include "sources/nvidia/nvidia_source.hpp"

namespace solscope::nvidia {
namespace {

using core::MetricId;
using core::PmPauseReason;
using core::SourceKind;
using testing::FakeGpu;
using testing::FakeNvml;
using testing::FakePmState;
using testing::FakeProcfsTree;
using testing::synthetic_pm_sample;

using testing::ampere_like;
using testing::kInterval;
using testing::kMs;
using testing::kT0;
constexpr unsigned int kGpmTensorMetric = 5;  // the GPM metric id the fake maps to TensorPipe's catalog row
constexpr std::uint32_t kNoFlags = 0;

/// The message CUPTI's busy answer becomes (pm_errors.cpp), shortened.
constexpr const char* kBusyMessage =
    "GPU counters held by another profiler (DCGM, Nsight Compute/Systems, another solscope) "
    "(cuptiPmSamplingDecodeData on GPU 1: CUPTI_ERROR_HARDWARE_BUSY)";

/// status().reason of a device paused because CUPTI said its counters are busy.
auto busy_reason() -> std::string {
  return std::string("PM sampling paused (counters_busy): ") + kBusyMessage;
}

using Busy = std::vector<std::pair<std::uint32_t, std::string>>;

auto busy_error() -> core::Result<std::string> {
  return core::fail(core::ErrorCode::Unavailable, kBusyMessage, "pause DCGM profiling");
}

class NvidiaSourceYieldTest : public testing::NvidiaSourceFixture {
 protected:
  void start() {
    const auto started = NvidiaSourceFixture::start(source_);
    ASSERT_TRUE(started.has_value()) << started.error().message;
  }

  auto pause_at(std::int64_t t_ns, std::uint32_t device, PmPauseReason reason) -> core::Result<void> {
    now_ = t_ns;
    return source_.set_pm_pause(device, reason);
  }

  auto poll_at(std::int64_t t_ns) -> std::vector<core::RawSample> {
    return NvidiaSourceFixture::poll_at(source_, t_ns);
  }

  NvidiaSource source_{deps()};
};

TEST_F(NvidiaSourceYieldTest,
       pause_on_hopper_closes_pm_at_once_and_gives_gpm_samples_flagged_with_the_reason) {
  fake_.gpus.resize(2);
  fake_.gpus[0].gpm_counters = {{kGpmTensorMetric, 0.0}};
  fake_.gpus[0].power_mw = 250'000;
  start();
  ASSERT_EQ(source_.status(0).source, SourceKind::PmSampling);
  EXPECT_TRUE(source_.yields(0));
  EXPECT_TRUE(source_.yields(1));
  EXPECT_EQ(source_.counter_yield(), &source_);

  ASSERT_TRUE(pause_at(kT0 + 50 * kMs, 0, PmPauseReason::kProfiler).has_value());
  EXPECT_EQ(pm_->close_calls, std::vector<std::uint32_t>{0});  // released before any poll
  EXPECT_EQ(pm_->close_all_calls, 0);
  const sources::DeviceStatus status = source_.status(0);
  EXPECT_EQ(status.source, SourceKind::Gpm);
  EXPECT_EQ(
      status.reason,
      "PM sampling paused (profiler): an Nsight profiler runs on this node; the GPU's counters are free "
      "for it");
  EXPECT_EQ(status.hint, "PM sampling resumes once the profiler has ended");
  EXPECT_FALSE(status.lost);
  EXPECT_EQ(fake_.live_gpm_samples(), 2u);

  fake_.gpus[0].gpm_counters = {{kGpmTensorMetric, 64.0}};
  pm_->polls.push_back({.samples = {synthetic_pm_sample(0, kT0 + 50 * kMs, kT0 + 150 * kMs, 99.0, 99.0),
                                    synthetic_pm_sample(1, kT0 + 50 * kMs, kT0 + 150 * kMs, 30.0, 40.0)},
                        .lost = {},
                        .busy = {}});
  const auto samples = poll_at(kT0 + 150 * kMs);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].device_index, 1u);
  EXPECT_EQ(samples[0].source, SourceKind::PmSampling);
  EXPECT_EQ(samples[0].flags, kNoFlags);
  EXPECT_EQ(samples[0].pm_pause, PmPauseReason::kNone);
  EXPECT_EQ(samples[1].device_index, 0u);
  EXPECT_EQ(samples[1].source, SourceKind::Gpm);
  EXPECT_EQ(samples[1].flags, static_cast<std::uint32_t>(core::kSamplePmPaused));
  EXPECT_EQ(samples[1].pm_pause, PmPauseReason::kProfiler);
  EXPECT_EQ(samples[1].t_start_ns, kT0 + 50 * kMs);  // the fallback starts at the pause
  EXPECT_EQ(samples[1].t_end_ns, kT0 + 150 * kMs);
  EXPECT_DOUBLE_EQ(samples[1].value(MetricId::TensorPipe), 64.0);
  EXPECT_DOUBLE_EQ(samples[1].value(MetricId::PowerW), 250.0);
  EXPECT_TRUE(source_.yields(0));
}

TEST_F(NvidiaSourceYieldTest, pause_on_ampere_gives_nvml_only_figures_flagged_with_the_reason) {
  fake_.gpus = {ampere_like()};
  fake_.gpus[0].util_gpu_pct = 93;
  pm_->open_results[0] = core::Result<std::string>{"GA100"};
  start();
  ASSERT_EQ(source_.status(0).source, SourceKind::PmSampling);

  ASSERT_TRUE(pause_at(kT0 + 50 * kMs, 0, PmPauseReason::kManual).has_value());
  EXPECT_EQ(pm_->close_calls, std::vector<std::uint32_t>{0});
  EXPECT_EQ(source_.status(0).source, SourceKind::NvmlOnly);
  EXPECT_EQ(source_.status(0).reason,
            "PM sampling paused (manual): paused on request; the GPU's counters are free for profilers; GPM: "
            "GPM is not supported on this GPU (Hopper and newer only)");
  EXPECT_EQ(source_.status(0).hint,
            "`solscope profile resume` takes the counters back; the pause also ends on its own");
  EXPECT_EQ(fake_.calls("nvmlGpmSampleAlloc"), 0);

  const auto samples = poll_at(kT0 + 150 * kMs);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].source, SourceKind::NvmlOnly);
  EXPECT_EQ(samples[0].flags, static_cast<std::uint32_t>(core::kSamplePmPaused));
  EXPECT_EQ(samples[0].pm_pause, PmPauseReason::kManual);
  EXPECT_EQ(samples[0].t_start_ns, kT0 + 50 * kMs);
  EXPECT_EQ(samples[0].t_end_ns, kT0 + 150 * kMs);
  EXPECT_DOUBLE_EQ(samples[0].value(MetricId::GpuUtil), 93.0);
  EXPECT_TRUE(std::isnan(samples[0].value(MetricId::TensorPipe)));
}

TEST_F(NvidiaSourceYieldTest, a_new_reason_on_a_paused_device_only_relabels_it) {
  fake_.gpus.resize(1);
  start();
  ASSERT_TRUE(pause_at(kT0 + 10 * kMs, 0, PmPauseReason::kProfiler).has_value());
  ASSERT_TRUE(pause_at(kT0 + 20 * kMs, 0, PmPauseReason::kManual).has_value());
  EXPECT_EQ(pm_->close_calls, std::vector<std::uint32_t>{0});
  EXPECT_EQ(fake_.calls("nvmlGpmSampleAlloc"), 2);  // one GPM reader, opened at the first pause
  EXPECT_EQ(source_.status(0).source, SourceKind::Gpm);
  EXPECT_EQ(source_.status(0).reason,
            "PM sampling paused (manual): paused on request; the GPU's counters are free for profilers");
  const auto samples = poll_at(kT0 + 110 * kMs);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].source, SourceKind::Gpm);
  EXPECT_EQ(samples[0].pm_pause, PmPauseReason::kManual);
}

TEST_F(NvidiaSourceYieldTest, resume_reopens_pm_sampling_and_clears_the_flag) {
  fake_.gpus.resize(1);
  start();
  ASSERT_TRUE(pause_at(kT0 + 50 * kMs, 0, PmPauseReason::kManual).has_value());
  const auto paused = poll_at(kT0 + 150 * kMs);
  ASSERT_EQ(paused.size(), 1u);
  EXPECT_EQ(paused[0].pm_pause, PmPauseReason::kManual);

  ASSERT_TRUE(pause_at(kT0 + 160 * kMs, 0, PmPauseReason::kNone).has_value());
  EXPECT_EQ(pm_->open_calls, (std::vector<std::uint32_t>{0, 0}));
  EXPECT_EQ(pm_->open_intervals_ns.back(), kInterval);
  const sources::DeviceStatus status = source_.status(0);
  EXPECT_EQ(status.source, SourceKind::PmSampling);
  EXPECT_EQ(status.reason, "");
  EXPECT_EQ(status.hint, "");
  EXPECT_EQ(fake_.live_gpm_samples(), 0u);  // the GPM buffers went back
  EXPECT_TRUE(source_.take_counters_busy().empty());

  pm_->polls.push_back({.samples = {synthetic_pm_sample(0, kT0 + 160 * kMs, kT0 + 260 * kMs, 70.0, 20.0)},
                        .lost = {},
                        .busy = {}});
  const auto resumed = poll_at(kT0 + 260 * kMs);
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0].source, SourceKind::PmSampling);
  EXPECT_EQ(resumed[0].flags, kNoFlags);
  EXPECT_EQ(resumed[0].pm_pause, PmPauseReason::kNone);
  EXPECT_DOUBLE_EQ(resumed[0].value(MetricId::TensorPipe), 70.0);
  // Resuming a device on PM sampling does nothing.
  ASSERT_TRUE(source_.set_pm_pause(0, PmPauseReason::kNone).has_value());
  EXPECT_EQ(pm_->open_calls.size(), 2u);
}

TEST_F(NvidiaSourceYieldTest, resume_while_the_counters_are_held_returns_unavailable_and_stays_paused_busy) {
  fake_.gpus.resize(1);
  start();
  ASSERT_TRUE(pause_at(kT0 + 50 * kMs, 0, PmPauseReason::kProfiler).has_value());
  pm_->open_results[0] = busy_error();
  const auto resumed = pause_at(kT0 + 60 * kMs, 0, PmPauseReason::kNone);
  ASSERT_FALSE(resumed.has_value());
  EXPECT_EQ(resumed.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(resumed.error().message, kBusyMessage);
  EXPECT_EQ(source_.status(0).source, SourceKind::Gpm);
  EXPECT_EQ(source_.status(0).reason, busy_reason());
  EXPECT_TRUE(source_.status(0).hint.find("dcgmi profile --pause") != std::string::npos);
  EXPECT_TRUE(source_.take_counters_busy().empty());  // the caller got the error itself

  const auto samples = poll_at(kT0 + 150 * kMs);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].source, SourceKind::Gpm);
  EXPECT_EQ(samples[0].flags, static_cast<std::uint32_t>(core::kSamplePmPaused));
  EXPECT_EQ(samples[0].pm_pause, PmPauseReason::kCountersBusy);

  pm_->open_results.erase(0);  // the profiler is gone
  ASSERT_TRUE(pause_at(kT0 + 200 * kMs, 0, PmPauseReason::kNone).has_value());
  EXPECT_EQ(source_.status(0).source, SourceKind::PmSampling);
}

TEST_F(NvidiaSourceYieldTest, resume_failing_otherwise_stays_on_the_fallback_unpaused_with_the_reason) {
  fake_.gpus.resize(1);
  start();
  ASSERT_TRUE(pause_at(kT0 + 50 * kMs, 0, PmPauseReason::kManual).has_value());
  pm_->open_results[0] = core::fail(core::ErrorCode::PermissionDenied, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  const auto resumed = pause_at(kT0 + 60 * kMs, 0, PmPauseReason::kNone);
  ASSERT_FALSE(resumed.has_value());
  EXPECT_EQ(resumed.error().code, core::ErrorCode::PermissionDenied);
  EXPECT_EQ(source_.status(0).source, SourceKind::Gpm);
  EXPECT_EQ(source_.status(0).reason, "PM sampling denied: profiling is restricted to admin users");
  const auto samples = poll_at(kT0 + 150 * kMs);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].flags, kNoFlags);
  EXPECT_EQ(samples[0].pm_pause, PmPauseReason::kNone);
  EXPECT_TRUE(source_.yields(0));  // a later resume tries again
}

TEST_F(NvidiaSourceYieldTest, counters_taken_during_a_poll_pause_the_device_busy_instead_of_losing_it) {
  fake_.gpus.resize(2);
  start();
  pm_->polls.push_back(
      {.samples = {synthetic_pm_sample(0, kT0, kT0 + 100 * kMs, 10.0, 20.0),
                   synthetic_pm_sample(1, kT0, kT0 + 100 * kMs, 30.0, 40.0)},
       .lost = {},
       .busy = {{.nvml_index = 1, .error = {core::ErrorCode::Unavailable, kBusyMessage, "pause DCGM"}}}});
  const auto first = poll_at(kT0 + 100 * kMs);
  ASSERT_EQ(first.size(), 2u);  // device 1's sample was decoded before the counters were taken
  EXPECT_EQ(first[1].device_index, 1u);
  EXPECT_EQ(first[1].source, SourceKind::PmSampling);
  EXPECT_EQ(first[1].flags, kNoFlags);
  EXPECT_EQ(first[1].pm_pause, PmPauseReason::kNone);

  const sources::DeviceStatus status = source_.status(1);
  EXPECT_FALSE(status.lost);
  EXPECT_EQ(status.source, SourceKind::Gpm);
  EXPECT_EQ(status.reason, busy_reason());
  EXPECT_EQ(source_.take_counters_busy(), (Busy{{1, kBusyMessage}}));
  EXPECT_TRUE(source_.take_counters_busy().empty());
  EXPECT_TRUE(pm_->close_calls.empty());  // the sampler closed it itself
  EXPECT_TRUE(source_.yields(1));

  pm_->polls.push_back({.samples = {synthetic_pm_sample(0, kT0 + 100 * kMs, kT0 + 200 * kMs, 11.0, 21.0)},
                        .lost = {},
                        .busy = {}});
  const auto second = poll_at(kT0 + 200 * kMs);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].device_index, 0u);
  EXPECT_EQ(second[0].source, SourceKind::PmSampling);
  EXPECT_EQ(second[0].flags, kNoFlags);
  EXPECT_EQ(second[1].device_index, 1u);
  EXPECT_EQ(second[1].source, SourceKind::Gpm);
  EXPECT_EQ(second[1].flags, static_cast<std::uint32_t>(core::kSamplePmPaused));
  EXPECT_EQ(second[1].pm_pause, PmPauseReason::kCountersBusy);
  EXPECT_EQ(second[1].t_start_ns, kT0 + 100 * kMs);

  // The engine's own pause with the same reason keeps CUPTI's message.
  ASSERT_TRUE(source_.set_pm_pause(1, PmPauseReason::kCountersBusy).has_value());
  EXPECT_EQ(source_.status(1).reason, busy_reason());
}

TEST_F(NvidiaSourceYieldTest, counters_busy_at_start_pause_the_device_and_are_reported) {
  fake_.gpus.resize(1);
  pm_->open_results[0] = busy_error();
  start();
  EXPECT_EQ(source_.status(0).source, SourceKind::Gpm);
  EXPECT_EQ(source_.status(0).reason, busy_reason());
  EXPECT_TRUE(source_.yields(0));
  EXPECT_EQ(source_.take_counters_busy(), (Busy{{0, kBusyMessage}}));
  EXPECT_EQ(pm_->close_all_calls, 0);  // the sampler is kept for the retry

  const auto samples = poll_at(kT0 + kInterval);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].pm_pause, PmPauseReason::kCountersBusy);

  pm_->open_results.erase(0);
  ASSERT_TRUE(pause_at(kT0 + 150 * kMs, 0, PmPauseReason::kNone).has_value());
  EXPECT_EQ(source_.status(0).source, SourceKind::PmSampling);
  EXPECT_EQ(pm_->open_calls, (std::vector<std::uint32_t>{0, 0}));
}

TEST_F(NvidiaSourceYieldTest, a_device_without_pm_sampling_does_not_yield_and_pausing_it_is_a_no_op) {
  fake_.gpus.resize(1);
  fake_.gpus[0].gpm_counters = {{kGpmTensorMetric, 0.0}};
  pm_->open_results[0] = core::fail(core::ErrorCode::PermissionDenied, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_EQ(source_.set_pm_pause(0, PmPauseReason::kManual).error().code,
            core::ErrorCode::FailedPrecondition);
  start();
  ASSERT_EQ(source_.status(0).source, SourceKind::Gpm);
  EXPECT_FALSE(source_.yields(0));
  EXPECT_FALSE(source_.yields(7));

  // Documented choice: success and no change (it holds no counters), so that a pause of every device works.
  ASSERT_TRUE(pause_at(kT0 + 10 * kMs, 0, PmPauseReason::kManual).has_value());
  ASSERT_TRUE(source_.set_pm_pause(0, PmPauseReason::kNone).has_value());
  EXPECT_EQ(source_.status(0).reason, "PM sampling denied: profiling is restricted to admin users");
  EXPECT_TRUE(pm_->close_calls.empty());
  EXPECT_EQ(pm_->open_calls, std::vector<std::uint32_t>{0});
  const auto samples = poll_at(kT0 + kInterval);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].source, SourceKind::Gpm);
  EXPECT_EQ(samples[0].flags, kNoFlags);
  EXPECT_EQ(samples[0].pm_pause, PmPauseReason::kNone);

  const auto unknown = source_.set_pm_pause(7, PmPauseReason::kManual);
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(unknown.error().message, "device 7 is not being sampled");
}

}  // namespace
}  // namespace solscope::nvidia
