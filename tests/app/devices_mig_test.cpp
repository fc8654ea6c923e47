// `solscope devices` over the synthetic NVML's two MIG layouts (support/fake_nvml.hpp): each MIG instance is
// listed under its GPU with its profile, GPU-instance id, UUID, SMs, memory and source or why-not. The test
// log shows the whole text (`ctest -R app_mig --output-on-failure -V`).
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "cli/devices/devices_render.hpp"
#include "runtime/gpu_backend.hpp"
#include "support/fake_nvml.hpp"

namespace solscope::app {
namespace {

using nvidia::testing::FakeNvml;
using nvidia::testing::FakeProcfsTree;

class DevicesMigTest : public ::testing::Test {
 protected:
  DevicesMigTest() {
    fake_.gpus = {nvidia::testing::a100_80gb_mig_gpu(), nvidia::testing::h100_80gb_mig_gpu()};
  }

  auto probe() -> GpuProbe {
    auto probed = probe_gpus({.library_symbol = [this](const char* name) { return fake_.lookup(name); },
                              .procfs_root = procfs_.root().string()});
    EXPECT_TRUE(probed.has_value()) << (probed ? "" : probed.error().message);
    return probed ? *probed : GpuProbe{};
  }

  FakeNvml fake_;
  FakeProcfsTree procfs_{nvidia::testing::nvidia_params(0), nvidia::testing::status_with_cap_eff(0)};
};

TEST_F(DevicesMigTest, text_lists_each_instance_under_its_gpu) {
  const std::string text = format_devices_text(probe());
  std::cout << "--- solscope devices, fake A100 3g.40gb+2x2g.20gb and H100 7x1g.10gb ---\n"
            << text << "---\n";
  const char* const lines[] = {
      "NVIDIA driver 565.57.01, 2 GPU(s), 10 MIG instance(s)\n",
      "\nGPU 0  NVIDIA A100-SXM4-80GB  GPU-a1000000-0000-4000-8000-000000000080  pci 00000000:07:00.0  80 "
      "GiB  "
      "MIG on\n  source: MIG on: sampled as its 3 MIG instance(s) below\n"
      "  GPU 0 \u00b7 MIG 3g.40gb #1  MIG-a1000000-0003-4000-8000-000000000001  42 SMs  39.25 GiB  source: "
      "NVML "
      "only: the instance's memory and processes, the GPU's clocks, power, temperature; SOL n/a\n"
      "    why: PM sampling not available on MIG instances (CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED); GPM: no "
      "per-instance counters on Ampere MIG: GPM is not supported on this GPU (Hopper and newer only)\n"
      "    fix: for every pipe and path, disable MIG (sudo nvidia-smi -i 0 -mig 0); per instance, DCGM's "
      "profiling fields give them (--dcgm-exporter)\n"
      "  GPU 0 \u00b7 MIG 2g.20gb #3  MIG-a1000000-0002-4000-8000-000000000003  28 SMs  19.50 GiB  source: "
      "NVML "
      "only:",
      "  GPU 0 \u00b7 MIG 2g.20gb #4  MIG-a1000000-0002-4000-8000-000000000004  28 SMs  19.50 GiB",
      "\nGPU 1  NVIDIA H100 80GB HBM3  GPU-0b100000-0000-4000-8000-000000000080  pci 00000000:18:00.0",
      "  source: MIG on: sampled as its 7 MIG instance(s) below\n"
      "  GPU 1 \u00b7 MIG 1g.10gb #7  MIG-0b100000-0001-4000-8000-000000000007  16 SMs  9.75 GiB  source: "
      "NVML "
      "GPM of the GPU instance (nvmlGpmMigSampleGet): tensor/FP pipes, DRAM, SM activity\n"
      "    why: PM sampling not available on MIG instances (CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED)\n",
      "  GPU 1 \u00b7 MIG 1g.10gb #13  MIG-0b100000-0001-4000-8000-00000000000d  16 SMs  9.75 GiB",
  };
  for (const char* line : lines) EXPECT_NE(text.find(line), std::string::npos) << "missing:\n" << line;
}

TEST_F(DevicesMigTest, json_gives_each_instance_its_dcgm_exporter_fields) {
  const nlohmann::json j = devices_json(probe());
  ASSERT_EQ(j["devices"].size(), 12u);
  const nlohmann::json& gpu = j["devices"][0];
  EXPECT_EQ(gpu["source"], "mig");
  EXPECT_EQ(gpu["mig_instances"], 3);
  const nlohmann::json& first = j["devices"][1];
  EXPECT_EQ(first["index"], 2);  // after the 2 whole GPUs
  EXPECT_EQ(first["label"], "GPU 0 \u00b7 MIG 3g.40gb #1");
  EXPECT_EQ(first["uuid"], "MIG-a1000000-0003-4000-8000-000000000001");
  EXPECT_EQ(first["parent_uuid"], "GPU-a1000000-0000-4000-8000-000000000080");
  EXPECT_EQ(first["gpu"], 0);
  EXPECT_EQ(first["mig_instance_id"], 1);
  EXPECT_EQ(first["mig_profile"], "3g.40gb");
  EXPECT_EQ(first["mig_compute_instance_id"], 0);
  EXPECT_EQ(first["sm_count"], 42);
  EXPECT_EQ(first["source"], "nvml");
  EXPECT_DOUBLE_EQ(first["mig_sm_share"].get<double>(), 42.0 / 98.0);
  EXPECT_DOUBLE_EQ(first["mig_memory_share"].get<double>(), 40192.0 / 80896.0);
  const nlohmann::json& hopper = j["devices"][5];
  EXPECT_EQ(hopper["gpu"], 1);
  EXPECT_EQ(hopper["mig_instance_id"], 7);
  EXPECT_EQ(hopper["source"], "gpm");
}

}  // namespace
}  // namespace solscope::app
