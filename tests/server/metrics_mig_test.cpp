// /metrics of MIG instances (issue 23): each instance's series carry dcgm-exporter's labels as dcgm-exporter
// sets them (its metric template: `gpu` the physical GPU, `UUID` the physical GPU's "GPU-..." UUID,
// GPU_I_PROFILE and GPU_I_ID only on instances), so that they join with DCGM's series of the same
// instance. Before, an instance's `gpu` was its own device index and it had no GPU_I_* labels.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "server/detail/metrics.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

/// A whole H100 (device 0) and, on the GPU with NVML index 1, two MIG instances (devices 1 and 2).
auto mig_layout() -> std::vector<core::DeviceState> {
  std::vector<core::DeviceState> devices{testing::synthetic_device(0), testing::synthetic_device(1),
                                         testing::synthetic_device(2)};
  for (std::uint32_t i = 1; i <= 2; ++i) {
    core::DeviceInfo& d = devices[i].info;
    d.uuid = "MIG-SYNTHETIC-" + std::to_string(i);
    d.parent_uuid = "GPU-SYNTHETIC-PARENT";
    d.gpu_index = 1;
    d.mig_compute_instance_id = 0;
  }
  devices[1].info.mig_profile = "3g.40gb";
  devices[1].info.mig_instance_id = 2;
  devices[2].info.mig_profile = "1g.10gb";
  devices[2].info.mig_instance_id = 9;
  return devices;
}

using testing::lines_starting;

TEST(MetricsMigTest, instances_carry_dcgm_exporters_labels) {
  core::LiveState state;
  state.set_devices(mig_layout());
  for (std::uint32_t d = 0; d < 3; ++d)
    state.add(testing::synthetic_sample(d, testing::kT0, 10.0 * d + 40.0));
  const std::string text = render_metrics(state, {.hostname = "node-17", .version = "0.1.0"});
  EXPECT_EQ(
      lines_starting(text, "solscope_compute_sol_ratio{"),
      (std::vector<std::string>{
          "solscope_compute_sol_ratio{gpu=\"0\",UUID=\"GPU-SYNTHETIC-0\",modelName=\"SYNTHETIC test GPU\","
          "hostname=\"node-17\",pipe=\"tensor\"} 0.4",
          "solscope_compute_sol_ratio{gpu=\"1\",UUID=\"GPU-SYNTHETIC-PARENT\",modelName=\"SYNTHETIC test "
          "GPU\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\",hostname=\"node-17\",pipe=\"tensor\"} 0.5",
          "solscope_compute_sol_ratio{gpu=\"1\",UUID=\"GPU-SYNTHETIC-PARENT\",modelName=\"SYNTHETIC test "
          "GPU\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"9\",hostname=\"node-17\",pipe=\"tensor\"} 0.6"}))
      << text;
  EXPECT_EQ(lines_starting(text, "solscope_gpu_info{"),
            (std::vector<std::string>{
                "solscope_gpu_info{gpu=\"0\",UUID=\"GPU-SYNTHETIC-0\",modelName=\"SYNTHETIC test GPU\","
                "hostname=\"node-17\",chip=\"GH100\",pci_bus_id=\"00000000:10:00.0\",source=\"replay\"} 1",
                "solscope_gpu_info{gpu=\"1\",UUID=\"GPU-SYNTHETIC-PARENT\",modelName=\"SYNTHETIC test GPU\","
                "GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\",hostname=\"node-17\",chip=\"GH100\",pci_bus_id="
                "\"00000000:11:00.0\",source=\"replay\"} 1",
                "solscope_gpu_info{gpu=\"1\",UUID=\"GPU-SYNTHETIC-PARENT\",modelName=\"SYNTHETIC test GPU\","
                "GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"9\",hostname=\"node-17\",chip=\"GH100\",pci_bus_id="
                "\"00000000:12:00.0\",source=\"replay\"} 1"}));
  // A whole GPU has no GPU_I_* labels at all, as in dcgm-exporter (not empty ones).
  EXPECT_EQ(lines_starting(text,
                           "solscope_gpu_lost{gpu=\"0\",UUID=\"GPU-SYNTHETIC-0\",modelName=\"SYNTHETIC "
                           "test GPU\",hostname=")
                .size(),
            1U);
}

}  // namespace
}  // namespace solscope::server
