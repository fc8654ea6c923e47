// /metrics of the synthetic NVML's two MIG layouts, from the NVIDIA source through derive() and the live
// state to the exposition: each instance's series carry dcgm-exporter's labels (gpu = the physical GPU,
// UUID = its "GPU-" UUID, GPU_I_PROFILE, GPU_I_ID), and the Hopper instances' GPM figures are their own.
// Every figure is synthetic. The test log shows an excerpt (`ctest -R app_mig -V`).
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "core/derive.hpp"
#include "core/live_state.hpp"
#include "server/detail/metrics.hpp"
#include "sources/nvidia/nvidia_source.hpp"
#include "support/fake_nvml.hpp"
#include "support/text_lines.hpp"

namespace solscope::app {
namespace {

using nvidia::testing::FakeNvml;
using nvidia::testing::FakeProcfsTree;

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;  // synthetic epoch time
constexpr std::int64_t kInterval = 100'000'000;
constexpr unsigned int kAnyTensorUtil = 5;  // nvml.h nvmlGpmMetricId_t NVML_GPM_METRIC_ANY_TENSOR_UTIL
constexpr unsigned int kDramBwUtil = 10;    // NVML_GPM_METRIC_DRAM_BW_UTIL

auto lines_with(const std::string& text, const std::string& prefix, const std::string& part)
    -> std::vector<std::string> {
  std::vector<std::string> out = solscope::testing::lines_starting(text, prefix);
  std::erase_if(out, [&part](const std::string& line) { return line.find(part) == std::string::npos; });
  return out;
}

TEST(MigMetricsTest, both_fake_layouts_reach_metrics_with_dcgm_exporters_labels) {
  FakeNvml fake;
  fake.gpus = {nvidia::testing::a100_80gb_mig_gpu(), nvidia::testing::h100_80gb_mig_gpu()};
  auto& hopper = fake.gpus[1].mig_devices;
  for (auto& instance : hopper) instance.gpm_counters = {{kAnyTensorUtil, 0.0}, {kDramBwUtil, 0.0}};
  const FakeProcfsTree procfs(nvidia::testing::nvidia_params(0), nvidia::testing::status_with_cap_eff(0));
  std::int64_t now = kT0;
  nvidia::NvidiaSourceDeps deps;
  deps.load_nvml = [&fake]() -> core::Result<nvidia::NvmlApi> { return fake.api(); };
  deps.procfs_root = procfs.root();
  deps.euid = [] { return 1000U; };
  deps.now_ns = [&now] { return now; };
  nvidia::NvidiaSource source(deps);
  ASSERT_TRUE(source.start({.interval_ns = kInterval}).has_value());
  const std::vector<core::DeviceInfo> infos = source.devices();
  ASSERT_EQ(infos.size(), 10U) << "3 A100 instances and 7 H100 instances";

  for (std::size_t i = 0; i < hopper.size(); ++i) {
    hopper[i].gpm_counters = {{kAnyTensorUtil, 10.0 * static_cast<double>(i + 1)}, {kDramBwUtil, 20.0}};
  }
  now += kInterval;
  auto samples = source.poll();
  ASSERT_TRUE(samples.has_value());

  core::LiveState state;
  std::vector<core::DeviceState> devices;
  for (const core::DeviceInfo& info : infos) {
    devices.push_back({.info = info, .source = source.status(info.index).source});
  }
  state.set_devices(devices);
  for (const core::RawSample& raw : *samples) {
    for (const core::DeviceInfo& info : infos) {
      if (info.index == raw.device_index) state.add(core::derive(raw, info));
    }
  }
  const std::string text = server::render_metrics(state, {.hostname = "node-1", .version = "0.1.0"});
  std::cout << "--- /metrics excerpt, fake A100 3g.40gb+2x2g.20gb and H100 7x1g.10gb ---\n";
  for (const std::string& l : lines_with(text, "solscope_gpu_info{", "")) std::cout << l << "\n";
  for (const std::string& l : lines_with(text, "solscope_compute_sol_ratio{", "")) std::cout << l << "\n";
  std::cout << "---\n";

  const auto info_lines = lines_with(text, "solscope_gpu_info{", "GPU_I_PROFILE=");
  EXPECT_EQ(info_lines.size(), 10U) << text;
  EXPECT_EQ(lines_with(text, "solscope_gpu_info{gpu=\"0\",UUID=\"GPU-a1000000-0000-4000-8000-000000000080\"",
                       "GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"1\"")
                .size(),
            1U)
      << text;
  EXPECT_EQ(lines_with(text, "solscope_gpu_info{gpu=\"0\"", "GPU_I_PROFILE=\"2g.20gb\"").size(), 2U) << text;
  EXPECT_EQ(lines_with(text, "solscope_gpu_info{gpu=\"1\"", "GPU_I_PROFILE=\"1g.10gb\"").size(), 7U) << text;
  // Each Hopper instance's tensor pipe is its own GPU instance's GPM figure: 10%, 20%, ... 70%.
  for (std::size_t i = 0; i < hopper.size(); ++i) {
    const std::string id = "GPU_I_ID=\"" + std::to_string(7 + i) + "\"";
    const auto sol = lines_with(text, "solscope_compute_sol_ratio{gpu=\"1\"", id);
    ASSERT_EQ(sol.size(), 1U) << text;
    EXPECT_NE(
        sol[0].find("pipe=\"tensor\"} " + std::to_string(i + 1 == 10 ? 1 : 0) + "." + std::to_string(i + 1)),
        std::string::npos)
        << sol[0];
  }
  source.stop();
}

}  // namespace
}  // namespace solscope::app
