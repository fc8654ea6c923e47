// The per-workload roll-up of a node (core/workload_rollup.hpp): one row per workload identity with the GPUs
// it holds, in device order, and the sharing of each.
#include "core/workload_rollup.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace solscope::core {
namespace {

auto device(std::uint32_t index, GpuWorkloads workloads) -> DeviceState {
  DeviceState d;
  d.info.index = index;
  d.workloads = std::move(workloads);
  return d;
}

auto proc(std::int32_t pid, WorkloadIdentity id, std::optional<double> sm_pct) -> ProcessWorkload {
  return {.pid = pid, .id = std::move(id), .origin = WorkloadOrigin::kSlurm, .sm_pct = sm_pct};
}

TEST(WorkloadRollupTest, one_row_per_workload_with_its_gpus_in_device_order) {
  const WorkloadIdentity job{.hpc_job = "4242", .user = "alice"};
  const WorkloadIdentity other_user{.hpc_job = "4242", .user = "bob"};  // another identity: its own row
  std::vector<DeviceState> devices;
  devices.push_back(device(0, attribute_gpu(std::vector{proc(10, job, 50.0)}, {})));
  devices.push_back(
      device(1, attribute_gpu(std::vector{proc(20, other_user, 60.0), proc(21, job, 20.0)}, {})));
  devices.push_back(device(2, {}));
  devices.back().info.gpu_index = 1;
  devices.back().info.mig_profile = "3g.40gb";
  devices.back().info.mig_instance_id = 2;
  devices.back().workloads = attribute_gpu(std::vector{proc(30, job, std::nullopt)}, {});
  devices.push_back(device(3, {}));  // no workload: no row

  const std::vector<WorkloadRollup> rows = workload_rollup(devices);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].id, job);
  EXPECT_EQ(rows[0].origin, WorkloadOrigin::kSlurm);
  EXPECT_EQ(rows[0].gpus, (std::vector<WorkloadGpu>{{.device = 0,
                                                     .label = "GPU 0",
                                                     .sharing = WorkloadSharing::kExclusive,
                                                     .fraction = 1.0,
                                                     .sm_pct = 50.0,
                                                     .pids = {10}},
                                                    {.device = 1,
                                                     .label = "GPU 1",
                                                     .sharing = WorkloadSharing::kTimeSliced,
                                                     .fraction = 0.25,
                                                     .sm_pct = 20.0,
                                                     .pids = {21}},
                                                    {.device = 2,
                                                     .label = "GPU 1 \u00b7 MIG 3g.40gb #2",
                                                     .sharing = WorkloadSharing::kExclusive,
                                                     .fraction = 1.0,
                                                     .sm_pct = std::nullopt,
                                                     .pids = {30}}}));
  EXPECT_EQ(rows[0].sharing_text(), "exclusive, shared (time-sliced)");
  EXPECT_EQ(rows[1].id, other_user);
  ASSERT_EQ(rows[1].gpus.size(), 1U);
  EXPECT_EQ(rows[1].gpus[0].fraction, 0.75);
  EXPECT_EQ(rows[1].sharing_text(), "shared (time-sliced)");
  EXPECT_TRUE(workload_rollup({}).empty());
}

}  // namespace
}  // namespace solscope::core
