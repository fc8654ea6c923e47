// Workload attribution rules (core/workload.hpp): one workload owns the window, time-sliced workloads split
// it by SM share, and MPS or an unknown split keeps the figures the GPU's under the identity fields all agree
// on.
#include "core/workload.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace solscope::core {
namespace {

auto pod(std::string name, std::string ns = "ml", std::string container = "trainer") -> WorkloadIdentity {
  return {.pod = std::move(name), .pod_namespace = std::move(ns), .container = std::move(container)};
}

auto proc(std::int32_t pid, WorkloadIdentity id, std::optional<double> sm_pct, bool mps = false)
    -> ProcessWorkload {
  return {.pid = pid, .id = std::move(id), .origin = WorkloadOrigin::kKubelet, .sm_pct = sm_pct, .mps = mps};
}

TEST(WorkloadNames, round_trip) {
  for (const auto s : {WorkloadSharing::kNone, WorkloadSharing::kExclusive, WorkloadSharing::kTimeSliced,
                       WorkloadSharing::kConcurrent}) {
    EXPECT_EQ(parse_workload_sharing(to_string(s)), s);
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(WorkloadOrigin::kCount); ++i) {
    const auto o = static_cast<WorkloadOrigin>(i);
    EXPECT_EQ(parse_workload_origin(to_string(o)), o);
  }
  EXPECT_EQ(sharing_label(WorkloadSharing::kTimeSliced), "shared (time-sliced)");
  EXPECT_EQ(sharing_label(WorkloadSharing::kConcurrent), "shared (concurrent)");
  EXPECT_EQ(parse_workload_sharing("shared"), std::nullopt);
}

TEST(WorkloadIdentityTest, display_names_the_best_known_field) {
  EXPECT_EQ(pod("train-0").display(), "ml/train-0/trainer");
  EXPECT_EQ((WorkloadIdentity{.hpc_job = "4711", .user = "alice"}).display(), "job 4711 (alice)");
  EXPECT_EQ((WorkloadIdentity{.container = "0123456789ab"}).display(), "container 0123456789ab");
  EXPECT_EQ((WorkloadIdentity{.user = "bob"}).display(), "user bob");
  EXPECT_EQ(WorkloadIdentity{}.display(), "unknown");
  EXPECT_TRUE(WorkloadIdentity{}.empty());
  EXPECT_EQ((WorkloadIdentity{.hpc_job = "1", .user = "bob"}).label_fields().user, "");
}

TEST(AttributeGpu, no_process_and_no_allocation_is_none) {
  const GpuWorkloads gpu = attribute_gpu({}, {}, "kubelet PodResources");
  EXPECT_EQ(gpu.sharing, WorkloadSharing::kNone);
  EXPECT_TRUE(gpu.workloads.empty());
  EXPECT_EQ(gpu.note, "kubelet PodResources");
  EXPECT_TRUE(gpu.label_identity().empty());
}

TEST(AttributeGpu, one_workload_with_two_processes_is_exclusive) {
  const std::vector<ProcessWorkload> p{proc(20, pod("a"), 30.0), proc(10, pod("a"), 15.0)};
  const GpuWorkloads gpu = attribute_gpu(p, {});
  ASSERT_EQ(gpu.workloads.size(), 1U);
  EXPECT_EQ(gpu.sharing, WorkloadSharing::kExclusive);
  EXPECT_EQ(gpu.workloads[0].pids, (std::vector<std::int32_t>{10, 20}));
  EXPECT_DOUBLE_EQ(*gpu.workloads[0].sm_pct, 45.0);
  EXPECT_DOUBLE_EQ(*gpu.workloads[0].fraction, 1.0);
  EXPECT_EQ(gpu.label_identity(), pod("a"));
}

TEST(AttributeGpu, an_allocation_without_process_is_a_workload_with_no_pids) {
  const std::vector<WorkloadAllocation> alloc{{.id = pod("idle-pod")}};
  const GpuWorkloads gpu = attribute_gpu({}, alloc);
  ASSERT_EQ(gpu.workloads.size(), 1U);
  EXPECT_EQ(gpu.sharing, WorkloadSharing::kExclusive);
  EXPECT_TRUE(gpu.workloads[0].pids.empty());
  EXPECT_EQ(gpu.workloads[0].origin, WorkloadOrigin::kKubelet);
}

TEST(AttributeGpu, time_sliced_workloads_split_by_sm_share_exactly) {
  const std::vector<ProcessWorkload> p{proc(1, pod("a"), 60.0), proc(2, pod("b"), 20.0),
                                       proc(3, pod("a"), 0.0)};
  const GpuWorkloads gpu = attribute_gpu(p, {});
  ASSERT_EQ(gpu.workloads.size(), 2U);
  EXPECT_EQ(gpu.sharing, WorkloadSharing::kTimeSliced);
  EXPECT_DOUBLE_EQ(*gpu.workloads[0].fraction, 0.75);
  EXPECT_DOUBLE_EQ(*gpu.workloads[1].fraction, 0.25);
  // The GPU's own labels keep only what both agree on.
  EXPECT_EQ(gpu.label_identity(), (WorkloadIdentity{.pod_namespace = "ml", .container = "trainer"}));
}

TEST(AttributeGpu, mps_or_an_unknown_share_or_zero_shares_is_concurrent_with_no_split) {
  const std::vector<ProcessWorkload> mps{proc(1, pod("a"), 60.0, true), proc(2, pod("b"), 20.0, true)};
  const std::vector<ProcessWorkload> unknown{proc(1, pod("a"), 60.0), proc(2, pod("b"), std::nullopt)};
  const std::vector<ProcessWorkload> zero{proc(1, pod("a"), 0.0), proc(2, pod("b"), 0.0)};
  for (const auto& p : {mps, unknown, zero}) {
    const GpuWorkloads gpu = attribute_gpu(p, {});
    EXPECT_EQ(gpu.sharing, WorkloadSharing::kConcurrent);
    for (const auto& w : gpu.workloads) EXPECT_FALSE(w.fraction.has_value());
  }
  const std::vector<ProcessWorkload> nan{proc(1, pod("a"), 60.0), proc(2, pod("b"), std::nan(""))};
  EXPECT_EQ(attribute_gpu(nan, {}).sharing, WorkloadSharing::kConcurrent);
}

TEST(WorkloadCountersTest, exclusive_split_and_concurrent_seconds) {
  WorkloadCounters c;
  const std::vector<ProcessWorkload> sliced{proc(1, pod("a"), 60.0), proc(2, pod("b"), 20.0)};
  const std::vector<ProcessWorkload> mps{proc(1, pod("a"), 60.0, true), proc(2, pod("b"), 20.0, true)};
  c.add(attribute_gpu(sliced, {}), Bound::Compute, 2.0);
  c.add(attribute_gpu(mps, {}), Bound::Idle, 1.0);
  c.add(attribute_gpu(std::vector<ProcessWorkload>{proc(1, pod("a"), 5.0)}, {}), Bound::Idle, 0.5);
  c.add(attribute_gpu({}, {}), Bound::Idle, 10.0);      // no workload: not counted
  c.add(attribute_gpu(sliced, {}), Bound::Idle, -1.0);  // ignored
  const auto& s = c.series();
  ASSERT_EQ(s.size(), 4U);
  const auto at = [&](WorkloadIdentity id, WorkloadSharing sharing, Bound b) {
    return s.at(WorkloadSeriesKey{id, sharing})[static_cast<std::size_t>(b)];
  };
  EXPECT_DOUBLE_EQ(at(pod("a"), WorkloadSharing::kTimeSliced, Bound::Compute), 1.5);
  EXPECT_DOUBLE_EQ(at(pod("b"), WorkloadSharing::kTimeSliced, Bound::Compute), 0.5);
  EXPECT_DOUBLE_EQ(
      at({.pod_namespace = "ml", .container = "trainer"}, WorkloadSharing::kConcurrent, Bound::Idle), 1.0);
  EXPECT_DOUBLE_EQ(at(pod("a"), WorkloadSharing::kExclusive, Bound::Idle), 0.5);
  EXPECT_DOUBLE_EQ(c.dropped_seconds(), 0.0);
}

TEST(WorkloadPartsTest, the_one_rule_the_counters_and_the_report_share) {
  auto alice = [](std::string name) {
    WorkloadIdentity id = pod(std::move(name));
    id.user = "alice";
    return id;
  };
  const std::vector<ProcessWorkload> sliced{proc(1, alice("a"), 60.0), proc(2, alice("b"), 20.0)};
  const auto split = workload_parts(attribute_gpu(sliced, {}));
  ASSERT_EQ(split.size(), 2U);
  EXPECT_EQ(split[0].id, alice("a")) << "the whole identity, user included";
  EXPECT_EQ(split[0].sharing, WorkloadSharing::kTimeSliced);
  EXPECT_DOUBLE_EQ(split[0].fraction, 0.75);
  EXPECT_DOUBLE_EQ(split[1].fraction, 0.25);
  const std::vector<ProcessWorkload> mps{proc(1, alice("a"), 60.0, true), proc(2, alice("b"), 20.0, true)};
  const auto shared = workload_parts(attribute_gpu(mps, {}));
  ASSERT_EQ(shared.size(), 1U);
  EXPECT_EQ(shared[0].id, (WorkloadIdentity{.pod_namespace = "ml", .container = "trainer", .user = "alice"}));
  EXPECT_EQ(shared[0].sharing, WorkloadSharing::kConcurrent);
  EXPECT_DOUBLE_EQ(shared[0].fraction, 1.0);
  const auto alone =
      workload_parts(attribute_gpu(std::vector<ProcessWorkload>{proc(1, alice("a"), 5.0)}, {}));
  ASSERT_EQ(alone.size(), 1U);
  EXPECT_EQ(alone[0].sharing, WorkloadSharing::kExclusive);
  EXPECT_DOUBLE_EQ(alone[0].fraction, 1.0);
  EXPECT_TRUE(workload_parts(attribute_gpu({}, {})).empty());
}

TEST(WorkloadCountersTest, held_workloads_count_as_the_stateless_add_does) {
  const std::vector<ProcessWorkload> sliced{proc(1, pod("a"), 60.0), proc(2, pod("b"), 20.0)};
  const GpuWorkloads gpu = attribute_gpu(sliced, {});
  WorkloadCounters held;
  WorkloadCounters stateless;
  held.add(WorkloadCounters::Parts{}, Bound::Compute, 4.0);  // no parts (no workload): not counted
  EXPECT_TRUE(held.series().empty());
  const WorkloadCounters::Parts parts = WorkloadCounters::parts_of(gpu);
  held.add(parts, Bound::Compute, 2.0);
  held.add(parts, Bound::Idle, 1.0);
  stateless.add(gpu, Bound::Compute, 2.0);
  stateless.add(gpu, Bound::Idle, 1.0);
  EXPECT_EQ(held, stateless);
  EXPECT_DOUBLE_EQ(held.series().at(WorkloadSeriesKey{
                       pod("a"), WorkloadSharing::kTimeSliced})[static_cast<std::size_t>(Bound::Compute)],
                   1.5);
}

TEST(WorkloadCountersTest, series_are_bounded_and_the_rest_is_counted_as_dropped) {
  WorkloadCounters c;
  for (std::size_t i = 0; i < kMaxWorkloadSeriesPerGpu + 5; ++i) {
    const std::vector<WorkloadAllocation> a{{.id = pod("job-" + std::to_string(i))}};
    c.add(attribute_gpu({}, a), Bound::Idle, 1.0);
  }
  EXPECT_EQ(c.series().size(), kMaxWorkloadSeriesPerGpu);
  EXPECT_DOUBLE_EQ(c.dropped_seconds(), 5.0);
}

}  // namespace
}  // namespace solscope::core
