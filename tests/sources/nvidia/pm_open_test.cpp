// PmSampler::open over the fake CUPTI table: configuration per chip, the no-driver guard, and the error
// messages for privileges, busy counters, unsupported devices and old libraries. All data is synthetic.
#include <string>

#include "pm_test_fixture.hpp"

namespace solscope::nvidia {
namespace {

class PmOpenTest : public PmSamplerFixture {
 protected:
  auto open_error() -> core::Error {
    auto sampler = make_sampler();
    auto chip = sampler->open(0, kBusId0, 10'000'000);
    EXPECT_FALSE(chip.has_value());
    return chip ? core::Error{} : chip.error();
  }
};

auto contains(const std::string& text, const std::string& part) -> bool {
  return text.find(part) != std::string::npos;
}

TEST_F(PmOpenTest, gh100_gets_gpu_time_trigger_keep_latest_and_a_sized_image) {
  auto sampler = make_sampler();
  auto chip = sampler->open(0, kBusId0, 10'000'000);
  ASSERT_TRUE(chip.has_value()) << chip.error().describe();
  EXPECT_EQ(device().trigger_mode, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL);
  EXPECT_EQ(device().sampling_interval, 10'000'000u);
  EXPECT_EQ(device().append_mode, CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST);
  EXPECT_EQ(device().hardware_buffer_size, 64u << 20);
  EXPECT_EQ(device().set_config_struct_size, CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
  EXPECT_EQ(device().max_samples, 3u * 25u + 8u);  // 250 ms poll period / 10 ms, x3, + margin
  EXPECT_EQ(device().num_counters, pm_counter_plan(core::ChipFamily::Gh100).counter_names.size());
  EXPECT_TRUE(device().started);
  const std::vector<std::string> order{"cuptiProfilerInitialize",
                                       "cuptiProfilerDeviceSupported",
                                       "cuptiDeviceGetChipName",
                                       "cuptiPmSamplingGetCounterAvailability",
                                       "cuptiPmSamplingGetCounterAvailability",
                                       "cuptiPmSamplingEnable",
                                       "cuptiPmSamplingSetConfig",
                                       "cuptiPmSamplingGetCounterDataSize",
                                       "cuptiPmSamplingCounterDataImageInitialize",
                                       "cuptiPmSamplingStart"};
  EXPECT_EQ(fake::state().calls, order);
}

TEST_F(PmOpenTest, ga100_uses_the_sysclk_trigger_at_about_one_ghz) {
  device().chip = "GA100";
  device().cc_major = 8;
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, 20'000'000).has_value());
  EXPECT_EQ(device().trigger_mode, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL);
  EXPECT_EQ(device().sampling_interval, 20'000'000u);  // cycles at the assumed 1 GHz
  EXPECT_EQ(device().append_mode, CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST);
}

TEST_F(PmOpenTest, libcupti_before_12_8_gets_the_short_set_config_struct) {
  fake::state().version = 24;  // CUDA 12.6
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, 10'000'000).has_value());
  EXPECT_EQ(device().set_config_struct_size, 60u);
  EXPECT_EQ(device().trigger_mode, CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL);
}

TEST_F(PmOpenTest, every_device_gets_the_same_slot_count) {
  add_device("0000:3b:00.0");
  auto sampler = make_sampler();
  ASSERT_TRUE(sampler->open(0, kBusId0, 10'000'000).has_value());
  ASSERT_TRUE(sampler->open(1, "0000:3b:00.0", 1'000'000).has_value());
  EXPECT_EQ(device(1).max_samples, device(0).max_samples);
  EXPECT_EQ(fake::state().profiler_init_calls, 1);
}

TEST_F(PmOpenTest, no_driver_never_touches_cupti) {
  fake::state().cu_init_result = CUDA_ERROR_NO_DEVICE;
  const core::Error error = open_error();
  EXPECT_EQ(error.code, core::ErrorCode::Unavailable);
  EXPECT_TRUE(contains(error.message, "no NVIDIA driver")) << error.message;
  EXPECT_EQ(fake::state().target_calls, 0);
}

TEST_F(PmOpenTest, missing_libcuda_never_touches_cupti) {
  PmSamplerDeps deps;
  deps.load_cupti = [] { return std::make_shared<CuptiApi>(fake::cupti_api()); };
  deps.load_cuda = []() -> core::Result<std::shared_ptr<CudaApi>> {
    return core::fail(core::ErrorCode::Unavailable, "no NVIDIA driver: cannot load libcuda.so.1");
  };
  PmSampler sampler({}, std::move(deps));
  auto chip = sampler.open(0, kBusId0, 10'000'000);
  ASSERT_FALSE(chip.has_value());
  EXPECT_EQ(chip.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(fake::state().target_calls, 0);
}

TEST_F(PmOpenTest, unknown_bus_id_is_not_found_without_cupti_calls) {
  auto sampler = make_sampler();
  auto chip = sampler->open(0, "00000000:99:00.0", 10'000'000);
  ASSERT_FALSE(chip.has_value());
  EXPECT_EQ(chip.error().code, core::ErrorCode::NotFound);
  EXPECT_TRUE(contains(chip.error().message, "00000000:99:00.0"));
  EXPECT_TRUE(contains(chip.error().hint, "CUDA_VISIBLE_DEVICES"));
  EXPECT_EQ(fake::state().target_calls, 0);
}

TEST_F(PmOpenTest, libcupti_older_than_12_6_is_unimplemented) {
  fake::state().version = 23;  // CUDA 12.5
  const core::Error error = open_error();
  EXPECT_EQ(error.code, core::ErrorCode::Unimplemented);
  EXPECT_TRUE(contains(error.message, "23")) << error.message;
  EXPECT_TRUE(contains(error.hint, "12.6")) << error.hint;
  EXPECT_EQ(fake::state().target_calls, 0);
}

TEST_F(PmOpenTest, insufficient_privileges_names_every_fix) {
  device().enable_results.push_back(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  const core::Error error = open_error();
  EXPECT_EQ(error.code, core::ErrorCode::PermissionDenied);
  EXPECT_TRUE(contains(error.message, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)")) << error.message;
  EXPECT_TRUE(contains(error.message, "GPU 0")) << error.message;
  for (const char* part : {"root", "CAP_SYS_ADMIN", "CAP_PERFMON", "R565",
                           "options nvidia NVreg_RestrictProfilingToAdminUsers=0", "NVML",
                           "classic utilization, clocks, power"}) {
    EXPECT_TRUE(contains(error.hint, part)) << part << " missing from: " << error.hint;
  }
}

TEST_F(PmOpenTest, privilege_error_from_counter_availability_is_permission_denied) {
  device().availability_result = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  EXPECT_EQ(open_error().code, core::ErrorCode::PermissionDenied);
  EXPECT_EQ(device().enable_calls, 0);
}

TEST_F(PmOpenTest, busy_counters_are_unavailable_with_the_dcgm_hint) {
  for (CUptiResult busy : {CUPTI_ERROR_HARDWARE_BUSY, CUPTI_ERROR_INVALID_OPERATION, CUPTI_ERROR_UNKNOWN}) {
    SetUp();
    device().enable_results.push_back(busy);
    const core::Error error = open_error();
    EXPECT_EQ(error.code, core::ErrorCode::Unavailable) << busy;
    EXPECT_TRUE(contains(error.message,
                         "held by another profiler (DCGM, Nsight Compute/Systems, another "
                         "solscope)"))
        << error.message;
    EXPECT_TRUE(contains(error.hint, "dcgmi profile --pause")) << error.hint;
    EXPECT_TRUE(contains(error.hint, "NVML GPM")) << error.hint;
  }
}

TEST_F(PmOpenTest, mig_is_unimplemented_with_the_reason) {
  device().enable_results.push_back(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED);
  const core::Error error = open_error();
  EXPECT_EQ(error.code, core::ErrorCode::Unimplemented);
  EXPECT_TRUE(contains(error.message, "MIG")) << error.message;
}

TEST_F(PmOpenTest, unsupported_device_names_the_failing_reason) {
  device().supported = CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED;
  device().vgpu = CUPTI_PROFILER_CONFIGURATION_DISABLED;
  const core::Error error = open_error();
  EXPECT_EQ(error.code, core::ErrorCode::Unimplemented);
  EXPECT_TRUE(contains(error.message, "vGPU: profiling disabled")) << error.message;
  EXPECT_TRUE(contains(error.hint, "hypervisor")) << error.hint;
  EXPECT_EQ(device().enable_calls, 0);
}

TEST_F(PmOpenTest, chip_without_a_counter_set_is_unimplemented) {
  device().chip = "TU102";
  device().cc_major = 7;
  device().cc_minor = 5;
  const core::Error error = open_error();
  EXPECT_EQ(error.code, core::ErrorCode::Unimplemented);
  EXPECT_TRUE(contains(error.message, "TU102")) << error.message;
  EXPECT_EQ(device().enable_calls, 0);
}

TEST_F(PmOpenTest, compute_capability_below_7_5_is_unimplemented_before_cupti) {
  device().chip = "GV100";
  device().cc_major = 7;
  device().cc_minor = 0;
  const core::Error error = open_error();
  EXPECT_EQ(error.code, core::ErrorCode::Unimplemented);
  EXPECT_TRUE(contains(error.message, "7.0")) << error.message;
  EXPECT_EQ(fake::state().target_calls, 0);
}

TEST_F(PmOpenTest, multi_pass_config_is_refused_with_the_pass_count) {
  fake::state().num_passes = 2;
  const core::Error error = open_error();
  EXPECT_EQ(error.code, core::ErrorCode::Unimplemented);
  EXPECT_TRUE(contains(error.message, "GH100 needs 2 passes")) << error.message;
  EXPECT_EQ(device().enable_calls, 0);
  EXPECT_EQ(fake::state().live_host_objects, 0);
}

TEST_F(PmOpenTest, failure_after_enable_disables_the_device_again) {
  device().set_config_result = CUPTI_ERROR_NOT_SUPPORTED;
  const core::Error error = open_error();
  EXPECT_TRUE(contains(error.message, "cuptiPmSamplingSetConfig")) << error.message;
  EXPECT_EQ(device().disable_calls, 1);
  EXPECT_FALSE(device().enabled);
}

TEST_F(PmOpenTest, bad_arguments_and_double_open_are_refused) {
  auto sampler = make_sampler();
  EXPECT_EQ(sampler->open(0, kBusId0, 0).error().code, core::ErrorCode::InvalidArgument);
  ASSERT_TRUE(sampler->open(0, kBusId0, 10'000'000).has_value());
  EXPECT_EQ(sampler->open(0, kBusId0, 10'000'000).error().code, core::ErrorCode::FailedPrecondition);
}

TEST_F(PmOpenTest, only_one_sampler_owns_cupti_at_a_time) {
  add_device("0000:3b:00.0");
  auto first = make_sampler();
  auto second = make_sampler();
  ASSERT_TRUE(first->open(0, kBusId0, 10'000'000).has_value());
  auto refused = second->open(1, "0000:3b:00.0", 10'000'000);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, core::ErrorCode::FailedPrecondition);
  first->close_all();
  EXPECT_TRUE(second->open(1, "0000:3b:00.0", 10'000'000).has_value());
}

}  // namespace
}  // namespace solscope::nvidia
