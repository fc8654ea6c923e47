#include "sources/nvidia/nvml_api.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "support/fake_nvml.hpp"

namespace solscope::nvidia {
namespace {

using testing::FakeNvml;

TEST(NvmlApiTest, load_without_library_names_the_soname_and_the_fix) {
  const std::array<std::string, 1> sonames{"libsolscope-test-absent-nvidia-ml.so.1"};
  const auto api = load_nvml(sonames);
  ASSERT_FALSE(api.has_value());
  EXPECT_EQ(api.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(api.error().message, "no NVIDIA driver: libsolscope-test-absent-nvidia-ml.so.1 not found");
  EXPECT_NE(api.error().hint.find("install the NVIDIA driver"), std::string::npos);
  EXPECT_NE(api.error().hint.find("--gpus all"), std::string::npos);
}

TEST(NvmlApiTest, sonames_try_the_driver_soname_first) {
  const auto sonames = nvml_sonames();
  ASSERT_EQ(sonames.size(), 2u);
  EXPECT_EQ(sonames[0], "libnvidia-ml.so.1");
  EXPECT_EQ(sonames[1], "libnvidia-ml.so");
}

TEST(NvmlApiTest, resolve_takes_the_newest_symbol_versions) {
  FakeNvml fake;
  const NvmlApi api = fake.api();
  EXPECT_EQ(reinterpret_cast<void*>(api.init), fake.lookup("nvmlInit_v2"));
  EXPECT_EQ(reinterpret_cast<void*>(api.device_get_pci_info), fake.lookup("nvmlDeviceGetPciInfo_v3"));
  EXPECT_FALSE(api.pci_info_legacy);
  EXPECT_EQ(reinterpret_cast<void*>(api.device_get_compute_running_processes),
            fake.lookup("nvmlDeviceGetComputeRunningProcesses_v3"));
  EXPECT_EQ(api.device_get_compute_running_processes_v1, nullptr);
  EXPECT_TRUE(api.has_gpm());
  EXPECT_EQ(api.library, nullptr);
}

TEST(NvmlApiTest, resolve_falls_back_to_older_versions) {
  FakeNvml fake;
  fake.missing = {"nvmlInit_v2", "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetComputeRunningProcesses_v3"};
  const NvmlApi api = fake.api();
  EXPECT_EQ(reinterpret_cast<void*>(api.init), fake.lookup("nvmlInit"));
  EXPECT_EQ(reinterpret_cast<void*>(api.device_get_pci_info), fake.lookup("nvmlDeviceGetPciInfo"));
  EXPECT_TRUE(api.pci_info_legacy);
  EXPECT_EQ(api.device_get_compute_running_processes, nullptr);
  EXPECT_EQ(reinterpret_cast<void*>(api.device_get_compute_running_processes_v1),
            fake.lookup("nvmlDeviceGetComputeRunningProcesses"));
}

TEST(NvmlApiTest, missing_required_symbol_is_not_found_with_its_name) {
  FakeNvml fake;
  fake.missing = {"nvmlDeviceGetCount_v2"};
  const auto api = resolve_nvml([&fake](const char* name) { return fake.lookup(name); });
  ASSERT_FALSE(api.has_value());
  EXPECT_EQ(api.error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(api.error().message, "libnvidia-ml lacks nvmlDeviceGetCount_v2");
  EXPECT_NE(api.error().hint.find("update"), std::string::npos);
}

TEST(NvmlApiTest, missing_optional_symbols_leave_null_pointers) {
  FakeNvml fake;
  fake.missing = {"nvmlGpmMetricsGet", "nvmlDeviceGetMigMode", "nvmlDeviceGetPowerUsage"};
  const auto api = resolve_nvml([&fake](const char* name) { return fake.lookup(name); });
  ASSERT_TRUE(api.has_value());
  EXPECT_FALSE(api->has_gpm());
  EXPECT_EQ(api->device_get_mig_mode, nullptr);
  EXPECT_EQ(api->device_get_power_usage, nullptr);
  EXPECT_NE(api->device_get_enforced_power_limit, nullptr);
}

TEST(NvmlApiTest, mig_functions_resolve_and_the_first_missing_one_is_named) {
  FakeNvml fake;
  const NvmlApi full = fake.api();
  EXPECT_STREQ(full.missing_mig_function(), "");
  EXPECT_NE(full.device_get_gpu_instance_profile_info_v, nullptr);
  EXPECT_NE(full.device_is_mig_device_handle, nullptr);
  EXPECT_NE(full.device_get_device_handle_from_mig_device_handle, nullptr);
  EXPECT_NE(full.gpm_mig_sample_get, nullptr);
  fake.missing = {"nvmlDeviceGetAttributes_v2", "nvmlGpmMigSampleGet"};
  const NvmlApi older = fake.api();
  EXPECT_STREQ(older.missing_mig_function(), "nvmlDeviceGetAttributes_v2");
  EXPECT_EQ(older.gpm_mig_sample_get, nullptr);
  EXPECT_NE(older.device_get_mig_device_handle_by_index, nullptr);
}

TEST(NvmlApiTest, error_text_uses_nvml_error_string_or_the_code) {
  FakeNvml fake;
  EXPECT_EQ(nvml_error_text(fake.api(), nvml::kErrorGpuIsLost), "GPU is lost");
  EXPECT_EQ(nvml_error_text(NvmlApi{}, nvml::kErrorGpuIsLost), "NVML error 15");
}

}  // namespace
}  // namespace solscope::nvidia
