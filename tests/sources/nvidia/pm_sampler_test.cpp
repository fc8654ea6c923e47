// PmSampler's sampling behaviour over the fake CUPTI table: values, times, overflow, full images, resets,
// device loss, counters taken by another profiler, closing one device and teardown. All data is synthetic.
#include <cmath>
#include <string>

#include "core/raw_sample.hpp"
#include "pm_test_fixture.hpp"

namespace solscope::nvidia {
namespace {

using core::MetricId;

class PmSamplerTest : public PmSamplerFixture {};

constexpr std::int64_t kInterval10ms = 10'000'000;

TEST_F(PmSamplerTest, samples_land_in_their_metrics_with_plus_parts_summed) {
  auto sampler = make_sampler();
  auto chip = sampler->open(3, kBusId0, kInterval10ms);
  ASSERT_TRUE(chip.has_value()) << chip.error().describe();
  EXPECT_EQ(*chip, "GH100");
  device().pending.push_back(sample(1'000, 11'000,
                                    {{MetricId::TensorPipe, 40.0},
                                     {MetricId::DramThroughput, 75.5},
                                     {MetricId::NvlinkRxBytesPerS, 1.5e9},
                                     {MetricId::GrActive, 99.0}}));
  device().pending.push_back(sample(11'000, 21'000, {{MetricId::TensorPipe, 20.0}}));

  const PmPoll poll = sampler->poll();
  ASSERT_TRUE(poll.lost.empty());
  ASSERT_EQ(poll.samples.size(), 2u);
  const core::RawSample& first = poll.samples[0];
  EXPECT_EQ(first.device_index, 3u);
  EXPECT_EQ(first.source, core::SourceKind::PmSampling);
  EXPECT_DOUBLE_EQ(first.value(MetricId::TensorPipe), 40.0);
  EXPECT_DOUBLE_EQ(first.value(MetricId::DramThroughput), 75.5);
  EXPECT_DOUBLE_EQ(first.value(MetricId::GrActive), 99.0);
  // GH100 NVLink RX is request + response bytes: both parts carry 1.5e9 here.
  EXPECT_DOUBLE_EQ(first.value(MetricId::NvlinkRxBytesPerS), 3.0e9);
  EXPECT_DOUBLE_EQ(first.value(MetricId::L2Throughput), 0.0);
  EXPECT_TRUE(std::isnan(first.value(MetricId::FmaHeavyPipe)));  // not a GH100 counter
  EXPECT_TRUE(std::isnan(first.value(MetricId::PowerW)));        // NVML-only metric
  EXPECT_DOUBLE_EQ(poll.samples[1].value(MetricId::TensorPipe), 20.0);
  EXPECT_EQ(fake::state().evaluate_calls, 2);  // one evaluation per sample, all metrics at once
}

TEST_F(PmSamplerTest, times_map_to_the_epoch_with_a_fixed_offset_and_gpu_durations) {
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  device().pending.push_back(sample(5'000'000, 15'000'000, {}));
  device().pending.push_back(sample(15'000'000, 25'000'000, {}));
  const PmPoll first = sampler->poll();
  ASSERT_EQ(first.samples.size(), 2u);
  EXPECT_EQ(first.samples[1].t_end_ns, kFakeEpochNs);  // the newest sample ends "now" at the first decode
  EXPECT_EQ(first.samples[0].t_start_ns, kFakeEpochNs - 20'000'000);
  EXPECT_EQ(first.samples[0].duration_ns(), 10'000'000);
  EXPECT_EQ(first.samples[0].t_end_ns, first.samples[1].t_start_ns);

  now_ns_ += 999'000'000;  // host clock moves differently from the GPU's: the offset must not change
  device().pending.push_back(sample(25'000'000, 35'000'000, {}));
  const PmPoll second = sampler->poll();
  ASSERT_EQ(second.samples.size(), 1u);
  EXPECT_EQ(second.samples[0].t_start_ns, kFakeEpochNs);
  EXPECT_EQ(second.samples[0].t_end_ns, kFakeEpochNs + 10'000'000);
}

TEST_F(PmSamplerTest, zero_timestamps_and_empty_samples_are_dropped) {
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  device().pending.push_back(sample(0, 100, {{MetricId::TensorPipe, 1.0}}));
  device().pending.push_back(sample(200, 0, {{MetricId::TensorPipe, 2.0}}));
  device().pending.push_back(sample(300, 300, {{MetricId::TensorPipe, 3.0}}));
  device().pending.push_back(sample(400, 350, {{MetricId::TensorPipe, 4.0}}));
  device().pending.push_back(sample(500, 600, {{MetricId::TensorPipe, 5.0}}));
  const PmPoll poll = sampler->poll();
  ASSERT_EQ(poll.samples.size(), 1u);
  EXPECT_DOUBLE_EQ(poll.samples[0].value(MetricId::TensorPipe), 5.0);
}

TEST_F(PmSamplerTest, image_is_reset_after_each_decode_so_values_do_not_accumulate) {
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  device().pending.push_back(sample(1'000, 2'000, {{MetricId::TensorPipe, 40.0}}));
  ASSERT_EQ(sampler->poll().samples.size(), 1u);
  device().pending.push_back(sample(2'000, 3'000, {{MetricId::TensorPipe, 10.0}}));
  const PmPoll poll = sampler->poll();
  ASSERT_EQ(poll.samples.size(), 1u);
  EXPECT_DOUBLE_EQ(poll.samples[0].value(MetricId::TensorPipe), 10.0);  // 50 if the image were not reset
}

TEST_F(PmSamplerTest, counter_data_full_decodes_again_and_loses_no_sample) {
  // A 1 s poll period against a 1 s interval gives the 32-slot minimum image.
  PmSamplerOptions options;
  options.decode_period_ns = 1'000'000'000;
  auto sampler = make_sampler(options);
  ASSERT_TRUE(sampler->open(0, kBusId0, 1'000'000'000).has_value());
  ASSERT_EQ(device().max_samples, 32u);
  for (std::uint64_t i = 0; i < 100; ++i) {
    device().pending.push_back(sample(1'000 * (i + 1), 1'000 * (i + 2), {{MetricId::SmActive, double(i)}}));
  }
  const PmPoll poll = sampler->poll();
  ASSERT_EQ(poll.samples.size(), 100u);
  for (std::size_t i = 0; i < poll.samples.size(); ++i) {
    EXPECT_DOUBLE_EQ(poll.samples[i].value(MetricId::SmActive), double(i));
    if (i > 0) {
      EXPECT_GT(poll.samples[i].t_start_ns, poll.samples[i - 1].t_start_ns);
    }
  }
  EXPECT_EQ(device().decode_calls, 4);  // 32 + 32 + 32 + 4
}

TEST_F(PmSamplerTest, stop_reason_other_means_decode_again) {
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  device().stop_reasons.push_back(CUPTI_PM_SAMPLING_DECODE_STOP_REASON_OTHER);
  device().pending.push_back(sample(1'000, 2'000, {}));
  EXPECT_EQ(sampler->poll().samples.size(), 1u);
  EXPECT_EQ(device().decode_calls, 2);
}

TEST_F(PmSamplerTest, overflow_error_restarts_the_session_and_flags_the_gap) {
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  device().decode_results.push_back(CUPTI_ERROR_OUT_OF_MEMORY);
  const PmPoll overflowed = sampler->poll();
  EXPECT_TRUE(overflowed.lost.empty());
  EXPECT_TRUE(overflowed.samples.empty());
  EXPECT_EQ(device().stop_calls, 1);
  EXPECT_EQ(device().disable_calls, 1);
  EXPECT_EQ(device().enable_calls, 2);
  EXPECT_EQ(device().set_config_calls, 2);
  EXPECT_EQ(device().start_calls, 2);
  EXPECT_TRUE(device().started);

  device().pending.push_back(sample(1'000, 2'000, {}));
  device().pending.push_back(sample(2'000, 3'000, {}));
  const PmPoll after = sampler->poll();
  ASSERT_EQ(after.samples.size(), 2u);
  EXPECT_EQ(after.samples[0].flags & core::kSampleGapBefore, core::kSampleGapBefore);
  EXPECT_EQ(after.samples[1].flags & core::kSampleGapBefore, 0u);
}

TEST_F(PmSamplerTest, overflow_flag_keeps_the_decoded_samples_then_restarts) {
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  device().overflow_next = true;
  device().pending.push_back(sample(1'000, 2'000, {{MetricId::TensorPipe, 7.0}}));
  const PmPoll poll = sampler->poll();
  ASSERT_EQ(poll.samples.size(), 1u);
  EXPECT_EQ(poll.samples[0].flags, 0u);
  EXPECT_EQ(device().enable_calls, 2);
  device().pending.push_back(sample(2'000, 3'000, {}));
  const PmPoll next = sampler->poll();
  ASSERT_EQ(next.samples.size(), 1u);
  EXPECT_NE(next.samples[0].flags & core::kSampleGapBefore, 0u);
}

TEST_F(PmSamplerTest, failed_restart_after_overflow_loses_the_device) {
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(5, kBusId0, kInterval10ms).has_value());
  device().decode_results.push_back(CUPTI_ERROR_OUT_OF_MEMORY);
  // A restart refused as busy is a yield, not a loss (busy_restart_after_overflow_is_a_yield_not_a_loss).
  device().enable_results.push_back(CUPTI_ERROR_INVALID_DEVICE);
  const PmPoll poll = sampler->poll();
  ASSERT_EQ(poll.lost.size(), 1u);
  EXPECT_EQ(poll.lost[0].nvml_index, 5u);
  EXPECT_EQ(poll.lost[0].error.code, core::ErrorCode::Unavailable);
  EXPECT_NE(poll.lost[0].error.message.find("overflow"), std::string::npos);
  EXPECT_TRUE(sampler->poll().lost.empty());  // reported once
}

TEST_F(PmSamplerTest, device_lost_mid_run_while_another_continues) {
  add_device("0000:3B:00.0");
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  ASSERT_TRUE(sampler->open(1, "00000000:3b:00.0", kInterval10ms).has_value());
  device(0).pending.push_back(sample(1'000, 2'000, {}));
  device(1).pending.push_back(sample(1'000, 2'000, {}));
  ASSERT_EQ(sampler->poll().samples.size(), 2u);

  device(1).decode_results.push_back(CUPTI_ERROR_INVALID_DEVICE);
  device(0).pending.push_back(sample(2'000, 3'000, {}));
  const PmPoll poll = sampler->poll();
  ASSERT_EQ(poll.lost.size(), 1u);
  EXPECT_EQ(poll.lost[0].nvml_index, 1u);
  EXPECT_NE(poll.lost[0].error.message.find("device lost"), std::string::npos);
  ASSERT_EQ(poll.samples.size(), 1u);
  EXPECT_EQ(poll.samples[0].device_index, 0u);
  EXPECT_EQ(device(1).disable_calls, 1);

  const int decodes_of_lost = device(1).decode_calls;
  device(0).pending.push_back(sample(3'000, 4'000, {}));
  const PmPoll later = sampler->poll();
  EXPECT_TRUE(later.lost.empty());
  ASSERT_EQ(later.samples.size(), 1u);
  EXPECT_EQ(later.samples[0].device_index, 0u);
  EXPECT_EQ(device(1).decode_calls, decodes_of_lost);
}

TEST_F(PmSamplerTest, repeated_decode_failures_lose_the_device) {
  PmSamplerOptions options;
  options.max_decode_failures = 3;
  auto sampler = make_sampler(options);
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  for (int i = 0; i < 3; ++i) device().decode_results.push_back(CUPTI_ERROR_UNKNOWN);
  EXPECT_TRUE(sampler->poll().lost.empty());
  EXPECT_TRUE(sampler->poll().lost.empty());
  const PmPoll third = sampler->poll();
  ASSERT_EQ(third.lost.size(), 1u);
  EXPECT_NE(third.lost[0].error.message.find("cuptiPmSamplingDecodeData"), std::string::npos);
}

TEST_F(PmSamplerTest, a_good_decode_resets_the_failure_count) {
  PmSamplerOptions options;
  options.max_decode_failures = 2;
  auto sampler = make_sampler(options);
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  device().decode_results = {CUPTI_ERROR_UNKNOWN, CUPTI_SUCCESS, CUPTI_ERROR_UNKNOWN};
  EXPECT_TRUE(sampler->poll().lost.empty());
  EXPECT_TRUE(sampler->poll().lost.empty());
  EXPECT_TRUE(sampler->poll().lost.empty());
}

TEST_F(PmSamplerTest, close_all_tears_down_in_the_documented_order_once) {
  add_device("0000:3b:00.0");
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  ASSERT_TRUE(sampler->open(1, "0000:3b:00.0", kInterval10ms).has_value());
  EXPECT_EQ(fake::state().profiler_init_calls, 1);
  EXPECT_EQ(fake::state().live_host_objects, 2);
  fake::state().calls.clear();
  sampler->close_all();
  sampler->close_all();
  const std::vector<std::string> expected{"cuptiPmSamplingStop",       "cuptiPmSamplingDecodeData",
                                          "cuptiPmSamplingDisable",    "cuptiPmSamplingStop",
                                          "cuptiPmSamplingDecodeData", "cuptiPmSamplingDisable",
                                          "cuptiProfilerDeInitialize"};
  EXPECT_EQ(fake::state().calls, expected);
  EXPECT_EQ(fake::state().live_host_objects, 0);
  EXPECT_EQ(fake::state().profiler_deinit_calls, 1);
  EXPECT_TRUE(sampler->poll().samples.empty());
}

TEST_F(PmSamplerTest, close_one_device_tears_it_down_in_the_documented_order_and_the_other_goes_on) {
  add_device("0000:3b:00.0");
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  ASSERT_TRUE(sampler->open(1, "0000:3b:00.0", kInterval10ms).has_value());
  ASSERT_EQ(fake::state().live_host_objects, 2);
  fake::state().calls.clear();
  fake::state().teardown.clear();

  sampler->close(1);
  // Doc section 1.6 for one device: Stop, one last decode, Disable, then the host object; the profiler state
  // stays for device 0.
  EXPECT_EQ(fake::state().calls, (std::vector<std::string>{"cuptiPmSamplingStop", "cuptiPmSamplingDecodeData",
                                                           "cuptiPmSamplingDisable"}));
  EXPECT_EQ(fake::state().teardown, (std::vector<std::string>{"cuptiPmSamplingStop", "cuptiPmSamplingDisable",
                                                              "cuptiProfilerHostDeinitialize"}));
  EXPECT_EQ(fake::state().live_host_objects, 1);
  EXPECT_EQ(fake::state().profiler_deinit_calls, 0);
  EXPECT_FALSE(device(1).enabled);
  EXPECT_FALSE(device(1).started);
  EXPECT_TRUE(device(0).started);

  const int decodes_of_closed = device(1).decode_calls;
  device(0).pending.push_back(sample(1'000, 2'000, {{MetricId::TensorPipe, 5.0}}));
  device(1).pending.push_back(sample(1'000, 2'000, {{MetricId::TensorPipe, 6.0}}));
  const PmPoll poll = sampler->poll();
  EXPECT_TRUE(poll.lost.empty());
  EXPECT_TRUE(poll.busy.empty());
  ASSERT_EQ(poll.samples.size(), 1u);
  EXPECT_EQ(poll.samples[0].device_index, 0u);
  EXPECT_EQ(device(1).decode_calls, decodes_of_closed);

  fake::state().calls.clear();
  sampler->close(1);  // not open any more
  sampler->close(7);  // never open
  EXPECT_TRUE(fake::state().calls.empty());
}

TEST_F(PmSamplerTest, a_closed_device_opens_again_without_a_second_profiler_initialize) {
  add_device("0000:3b:00.0");
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  ASSERT_TRUE(sampler->open(1, "0000:3b:00.0", kInterval10ms).has_value());
  const std::uint32_t slots = device(1).max_samples;
  sampler->close(1);
  sampler->close(0);  // every device closed: the profiler state is kept for a reopen
  EXPECT_EQ(fake::state().profiler_deinit_calls, 0);
  EXPECT_EQ(fake::state().live_host_objects, 0);

  auto chip = sampler->open(1, "0000:3b:00.0", kInterval10ms);
  ASSERT_TRUE(chip.has_value()) << chip.error().describe();
  EXPECT_EQ(*chip, "GH100");
  EXPECT_EQ(fake::state().profiler_init_calls, 1);
  EXPECT_EQ(device(1).enable_calls, 2);
  EXPECT_EQ(device(1).start_calls, 2);
  EXPECT_TRUE(device(1).started);
  EXPECT_EQ(device(1).max_samples, slots);  // every image keeps the first slot count (doc section 7)

  device(1).pending.push_back(sample(50'000, 60'000, {{MetricId::TensorPipe, 9.0}}));
  const PmPoll poll = sampler->poll();
  ASSERT_EQ(poll.samples.size(), 1u);
  EXPECT_EQ(poll.samples[0].device_index, 1u);
  EXPECT_DOUBLE_EQ(poll.samples[0].value(MetricId::TensorPipe), 9.0);

  sampler->close_all();
  EXPECT_EQ(fake::state().profiler_deinit_calls, 1);
}

TEST_F(PmSamplerTest, counters_taken_during_decode_close_the_device_as_busy_not_lost) {
  add_device("0000:3b:00.0");
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, kInterval10ms).has_value());
  ASSERT_TRUE(sampler->open(1, "0000:3b:00.0", kInterval10ms).has_value());
  device(1).decode_results.push_back(CUPTI_ERROR_HARDWARE_BUSY);
  device(0).pending.push_back(sample(1'000, 2'000, {}));
  const PmPoll poll = sampler->poll();
  EXPECT_TRUE(poll.lost.empty());
  ASSERT_EQ(poll.busy.size(), 1u);
  EXPECT_EQ(poll.busy[0].nvml_index, 1u);
  EXPECT_EQ(poll.busy[0].error.code, core::ErrorCode::Unavailable);
  EXPECT_NE(poll.busy[0].error.message.find("GPU counters held by another profiler"), std::string::npos);
  EXPECT_NE(poll.busy[0].error.message.find("CUPTI_ERROR_HARDWARE_BUSY"), std::string::npos);
  ASSERT_EQ(poll.samples.size(), 1u);
  EXPECT_EQ(poll.samples[0].device_index, 0u);
  EXPECT_EQ(device(1).disable_calls, 1);  // one busy answer is enough: no retries against a profiler
  EXPECT_FALSE(device(1).enabled);

  const PmPoll later = sampler->poll();
  EXPECT_TRUE(later.busy.empty());                                           // reported once
  ASSERT_TRUE(sampler->open(1, "0000:3b:00.0", kInterval10ms).has_value());  // once the profiler is gone
  EXPECT_TRUE(device(1).started);
}

TEST_F(PmSamplerTest, busy_restart_after_overflow_is_a_yield_not_a_loss) {
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(5, kBusId0, kInterval10ms).has_value());
  device().decode_results.push_back(CUPTI_ERROR_OUT_OF_MEMORY);
  device().enable_results.push_back(CUPTI_ERROR_HARDWARE_BUSY);
  const PmPoll poll = sampler->poll();
  EXPECT_TRUE(poll.lost.empty());
  ASSERT_EQ(poll.busy.size(), 1u);
  EXPECT_EQ(poll.busy[0].nvml_index, 5u);
  EXPECT_NE(poll.busy[0].error.message.find("cuptiPmSamplingEnable"), std::string::npos);
}

}  // namespace
}  // namespace solscope::nvidia
