// Training iterations from the kernel log (core/kernel_steps.hpp): NCCL kernel names of both generations, the
// SYNTHETIC 4-rank data-parallel step (tests/data/synthetic/dp_step_scenario.md) under both boundary rules to
// the microsecond, the straggler and its spread, partial iterations, no repeat, a user-given NVTX range,
// and the ranks of a sample-based estimate.
#include "core/kernel_steps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/detail/kernel_sequence.hpp"
#include "core/units.hpp"
#include "data/synthetic/dp_step.hpp"

namespace solscope::core {
namespace {

using synthetic::kDpStepPeriodNs;
using synthetic::kDpStepStartNs;

constexpr std::int64_t us(std::int64_t v) {
  return v * kNsPerUs;
}

TEST(ClassifyKernelTest, nccl_device_kernels_of_nccl_2_19_and_later) {
  // src/device/generate.py: ncclDevKernel_<Func>[_<RedOp>_<Type>]_<Algo>_<Proto>, SendRecv, Generic.
  EXPECT_EQ(classify_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), Collective::AllReduce);
  EXPECT_EQ(classify_kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            Collective::AllReduce);
  EXPECT_EQ(classify_kernel("void ncclDevKernel_AllReduce_Sum_f16_TREE_LL(ncclDevKernelArgsStorage<4096ul>)"),
            Collective::AllReduce);
  EXPECT_EQ(classify_kernel("ncclDevKernel_AllGather_RING_LL"), Collective::AllGather);
  EXPECT_EQ(classify_kernel("ncclDevKernel_AllGatherV_RING_LL"), Collective::AllGather);
  EXPECT_EQ(classify_kernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), Collective::ReduceScatter);
  EXPECT_EQ(classify_kernel("ncclDevKernel_Broadcast_RING_LL"), Collective::Broadcast);
  EXPECT_EQ(classify_kernel("ncclDevKernel_Reduce_Sum_u8_RING_LL"), Collective::Reduce);
  EXPECT_EQ(classify_kernel("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"),
            Collective::SendRecv);
  EXPECT_EQ(classify_kernel("ncclDevKernel_SendRecv"), Collective::SendRecv);
  EXPECT_EQ(classify_kernel("ncclDevKernel_Generic"), Collective::Other);
  EXPECT_EQ(classify_kernel("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"), Collective::Other);
  // src/device/symmetric/generate.py: ncclSymkDevKernel_<Coll>_<Algo>[_<red>_<ty>].
  EXPECT_EQ(classify_kernel("ncclSymkDevKernel_AllReduce_AGxLL_R_sum_bf16"), Collective::AllReduce);
  EXPECT_EQ(classify_kernel("ncclSymkDevKernel_AllGather_LL"), Collective::AllGather);
  // Mangled (no demangler): _Z<length><name>.
  EXPECT_EQ(classify_kernel("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"),
            Collective::AllReduce);
}

TEST(ClassifyKernelTest, nccl_kernels_before_2_19) {
  // src/collectives/device/common.h NCCL_KERN_NAME: ncclKernel_<func>_<algo>_<proto>_<devredop>_<type>.
  EXPECT_EQ(classify_kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            Collective::AllReduce);
  EXPECT_EQ(classify_kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"), Collective::SendRecv);
  EXPECT_EQ(classify_kernel("void ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, "
                            "ncclWork*)"),
            Collective::AllGather);
  EXPECT_EQ(classify_kernel("ncclKernel_ReduceScatter_RING_SIMPLE_Sum_half"), Collective::ReduceScatter);
  EXPECT_EQ(classify_kernel("ncclKernel_Broadcast_RING_LL_Sum_int8_t"), Collective::Broadcast);
  EXPECT_EQ(classify_kernel("ncclKernel_Reduce_TREE_LL128_Sum_double"), Collective::Reduce);
  EXPECT_EQ(classify_kernel("ncclKernelDebug_AllReduce_TREE_LL_Sum_float"), Collective::AllReduce);
}

TEST(ClassifyKernelTest, names_that_merely_mention_nccl_are_compute) {
  // NCCL's device kernels are global-namespace names starting with its prefix; anything else is compute,
  // even in a namespace called nccl or with "nccl"/"allreduce" in its name (custom all-reduce kernels
  // are not NCCL's and are counted as compute: docs/design/sol-metrics.md section 13).
  EXPECT_EQ(classify_kernel("void at::cuda::nccl::detail::ncclKernel_AllReduce_fake(float*)"),
            Collective::None);
  EXPECT_EQ(classify_kernel("my_ncclDevKernel_AllReduce_Sum_f32_RING_LL"), Collective::None);
  EXPECT_EQ(classify_kernel("nccl_allreduce_custom_kernel"), Collective::None);
  EXPECT_EQ(classify_kernel("ncclDevFunc_AllReduce_Sum_f32_RING_LL"), Collective::None);  // a device function
  EXPECT_EQ(classify_kernel("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(...)"),
            Collective::None);
  EXPECT_EQ(classify_kernel(synthetic::kDpForwardKernel), Collective::None);
  EXPECT_EQ(classify_kernel(synthetic::kDpOptimizerKernel), Collective::None);
  EXPECT_EQ(classify_kernel(""), Collective::None);
  EXPECT_EQ(to_string(Collective::AllReduce), "all_reduce");
  EXPECT_EQ(to_string(Collective::SendRecv), "send_recv");
}

/// Expected per-iteration figures of each rank, us (tests/data/synthetic/dp_step_scenario.md).
struct RankFigures {
  std::int64_t compute_us, communication_us, exposed_us;
};
constexpr RankFigures kExpected[] = {
    {76'125, 28'500, 14'275}, {76'250, 28'250, 14'150}, {82'400, 15'950, 8'000}, {76'000, 28'750, 14'400}};

void expect_scenario_iterations(const KernelSteps& steps, std::uint32_t rank) {
  SCOPED_TRACE("rank " + std::to_string(rank));
  EXPECT_EQ(steps.device, rank);
  ASSERT_EQ(steps.iterations.size(), 5U);  // steps 0..4; step 5 has no successor
  for (std::size_t i = 0; i < steps.iterations.size(); ++i) {
    const KernelIteration& it = steps.iterations[i];
    EXPECT_EQ(it.start_ns, kDpStepStartNs + static_cast<std::int64_t>(i) * kDpStepPeriodNs);
    EXPECT_EQ(it.duration_ns(), us(100'000));
    EXPECT_EQ(it.compute_ns, us(kExpected[rank].compute_us));
    EXPECT_EQ(it.communication_ns, us(kExpected[rank].communication_us));
    EXPECT_EQ(it.exposed_communication_ns, us(kExpected[rank].exposed_us));
    EXPECT_EQ(it.collective_ns[static_cast<std::size_t>(Collective::AllReduce)],
              us(kExpected[rank].communication_us));
    EXPECT_EQ(it.collective_ns[static_cast<std::size_t>(Collective::SendRecv)], 0);
    EXPECT_EQ(it.kernels, 6U);
  }
}

TEST(KernelStepsTest, scenario_by_kernel_sequence) {
  const synthetic::DpStep d = synthetic::dp_step();
  const std::vector<KernelRecord> all = d.all_kernels();  // every device's: each call keeps its own
  for (std::uint32_t r = 0; r < synthetic::kDpStepRanks; ++r) {
    const KernelSteps steps = kernel_steps(r, all, {});
    EXPECT_EQ(steps.boundary, StepBoundary::KernelSequence);
    EXPECT_EQ(steps.note, "");
    expect_scenario_iterations(steps, r);
  }
}

TEST(KernelStepsTest, scenario_by_nvtx_picks_the_outermost_repeated_range) {
  const synthetic::DpStep d = synthetic::dp_step();
  for (std::uint32_t r = 0; r < synthetic::kDpStepRanks; ++r) {
    const KernelSteps steps = kernel_steps(r, d.kernels[r], d.markers);
    EXPECT_EQ(steps.boundary, StepBoundary::Nvtx);
    EXPECT_EQ(steps.nvtx_range, "train_step");
    EXPECT_EQ(steps.note, "");
    expect_scenario_iterations(steps, r);
  }
}

TEST(KernelStepsTest, straggler_and_spread_of_the_scenario) {
  const synthetic::DpStep d = synthetic::dp_step();
  std::vector<RankSteps> ranks;
  for (std::uint32_t r = 0; r < synthetic::kDpStepRanks; ++r) {
    auto rank = rank_steps("GPU " + std::to_string(r), kernel_steps(r, d.kernels[r], d.markers).iterations);
    ASSERT_TRUE(rank.has_value());
    ranks.push_back(*rank);
  }
  EXPECT_EQ(ranks[0].rank, "GPU 0");
  EXPECT_DOUBLE_EQ(ranks[0].iteration_s, 0.1);
  EXPECT_DOUBLE_EQ(ranks[0].compute_s, 0.076125);
  EXPECT_DOUBLE_EQ(ranks[0].communication_s, 0.0285);
  EXPECT_DOUBLE_EQ(ranks[0].exposed_communication_s, 0.014275);
  EXPECT_DOUBLE_EQ(ranks[2].compute_s, 0.0824);
  EXPECT_DOUBLE_EQ(ranks[2].exposed_communication_s, 0.008);
  const auto verdict = find_straggler(ranks);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->straggler, 2U);
  // (82,400 - 76,187.5) / 76,187.5 x 100: the median of the four ranks' compute is (76,125 + 76,250) / 2.
  EXPECT_NEAR(verdict->spread_pct, 8.154224774405250, 1e-9);
  EXPECT_DOUBLE_EQ(verdict->iteration_spread_pct, 0.0);
}

TEST(KernelStepsTest, partial_iterations_are_dropped) {
  const synthetic::DpStep d = synthetic::dp_step();
  // The log starts inside step 0 (its first 3 kernels lost) and ends inside step 5.
  std::vector<KernelRecord> cut(d.kernels[0].begin() + 3, d.kernels[0].end() - 2);
  const KernelSteps by_sequence = kernel_steps(0, cut, {});
  EXPECT_EQ(by_sequence.boundary, StepBoundary::KernelSequence);
  ASSERT_EQ(by_sequence.iterations.size(), 4U);  // steps 1..4
  EXPECT_EQ(by_sequence.iterations.front().start_ns, kDpStepStartNs + kDpStepPeriodNs);
  EXPECT_EQ(by_sequence.iterations.front().compute_ns, us(76'125));
  EXPECT_EQ(by_sequence.iterations.back().exposed_communication_ns, us(14'275));
  // NVTX: the recording began after step 0's range opened; its kernels belong to no step.
  std::vector<MarkerRecord> late;
  for (const MarkerRecord& m : d.markers) {
    if (m.start_ns >= kDpStepStartNs) late.push_back(m);
  }
  const KernelSteps by_nvtx = kernel_steps(0, d.kernels[0], late);
  EXPECT_EQ(by_nvtx.boundary, StepBoundary::Nvtx);
  ASSERT_EQ(by_nvtx.iterations.size(), 4U);
  EXPECT_EQ(by_nvtx.iterations.front().start_ns, kDpStepStartNs + kDpStepPeriodNs);
  EXPECT_EQ(by_nvtx.iterations.front().communication_ns, us(28'500));
}

TEST(KernelStepsTest, no_repeat_gives_no_boundary_and_says_why) {
  const synthetic::DpStep d = synthetic::dp_step();
  const std::vector<KernelRecord> one_step(d.kernels[1].begin(), d.kernels[1].begin() + 6);
  const KernelSteps steps = kernel_steps(1, one_step, {});
  EXPECT_EQ(steps.boundary, StepBoundary::None);
  EXPECT_TRUE(steps.iterations.empty());
  EXPECT_EQ(steps.note,
            "no repeating kernel sequence (none repeats 3 times with 90 % of names equal) and no NVTX step "
            "range");
  EXPECT_FALSE(rank_steps("GPU 1", steps.iterations).has_value());  // a rank with no iterations

  const KernelSteps empty = kernel_steps(7, d.all_kernels(), d.markers);  // no kernel ran on GPU 7
  EXPECT_EQ(empty.boundary, StepBoundary::None);
  EXPECT_EQ(empty.note, "no kernels on this GPU");
}

TEST(KernelStepsTest, a_user_given_nvtx_range_sets_the_boundaries) {
  const synthetic::DpStep d = synthetic::dp_step();
  std::vector<MarkerRecord> markers = d.markers;
  for (std::uint32_t step = 0; step < synthetic::kDpStepSteps; ++step) {  // "grad_sync" from 50,000 us on
    const std::int64_t s = kDpStepStartNs + step * kDpStepPeriodNs;
    markers.push_back({.pid = 4100,
                       .tid = 4100,
                       .start_ns = s + us(50'000),
                       .end_ns = s + us(50'010),
                       .depth = 1,
                       .domain = "ddp",
                       .name = "grad_sync"});
  }
  const KernelSteps steps = kernel_steps(0, d.kernels[0], markers, {.nvtx_range = "grad_sync"});
  EXPECT_EQ(steps.boundary, StepBoundary::Nvtx);
  EXPECT_EQ(steps.nvtx_range, "grad_sync");
  ASSERT_EQ(steps.iterations.size(), 5U);
  for (std::size_t i = 0; i < steps.iterations.size(); ++i) {
    // From backward 2 (the first kernel at or after 50,000 us) to the next step's.
    EXPECT_EQ(steps.iterations[i].start_ns,
              kDpStepStartNs + static_cast<std::int64_t>(i) * kDpStepPeriodNs + us(50'125));
    EXPECT_EQ(steps.iterations[i].duration_ns(), us(100'000));
    EXPECT_EQ(steps.iterations[i].compute_ns, us(76'125));
    EXPECT_EQ(steps.iterations[i].exposed_communication_ns, us(14'275));
  }
  const KernelSteps missing = kernel_steps(0, d.kernels[0], markers, {.nvtx_range = "no_such_step"});
  EXPECT_EQ(missing.boundary, StepBoundary::None);
  EXPECT_EQ(missing.note, "no NVTX range named \"no_such_step\" from this GPU's processes");
  // The ranges of another process (rank 1's) do not mark rank 0's steps.
  std::vector<MarkerRecord> others;
  for (const MarkerRecord& m : d.markers) {
    if (m.pid == 4101) others.push_back(m);
  }
  EXPECT_EQ(kernel_steps(0, d.kernels[0], others).boundary, StepBoundary::KernelSequence);
}

/// A step of three kernels (forward, backward, an all-reduce) every 100 ms, 40 steps.
auto simple_steps(std::size_t steps) -> std::vector<KernelRecord> {
  std::vector<KernelRecord> out;
  for (std::size_t i = 0; i < steps; ++i) {
    const std::int64_t s = kDpStepStartNs + static_cast<std::int64_t>(i) * kDpStepPeriodNs;
    out.push_back({.start_ns = s, .end_ns = s + us(30'000), .name = "fwd"});
    out.push_back({.start_ns = s + us(30'000), .end_ns = s + us(60'000), .name = "bwd"});
    out.push_back({.start_ns = s + us(60'000), .end_ns = s + us(80'000), .name = "ncclDevKernel_SendRecv"});
  }
  return out;
}

TEST(KernelStepsTest, an_extra_kernel_in_one_iteration_keeps_the_boundaries) {
  std::vector<KernelRecord> kernels = simple_steps(40);
  const std::int64_t s10 = kDpStepStartNs + 10 * kDpStepPeriodNs;
  kernels.insert(kernels.begin() + 33,
                 {.start_ns = s10 + us(85'000), .end_ns = s10 + us(86'000), .name = "x"});
  const KernelSteps steps = kernel_steps(0, kernels, {});
  EXPECT_EQ(steps.boundary, StepBoundary::KernelSequence);
  EXPECT_EQ(steps.note, "the kernel sequence varies between iterations: boundaries are approximate");
  ASSERT_EQ(steps.iterations.size(), 39U);
  for (std::size_t i = 0; i < steps.iterations.size(); ++i) {
    EXPECT_EQ(steps.iterations[i].start_ns, kDpStepStartNs + static_cast<std::int64_t>(i) * kDpStepPeriodNs);
    EXPECT_EQ(steps.iterations[i].compute_ns, us(i == 10 ? 61'000 : 60'000));
    EXPECT_EQ(steps.iterations[i].exposed_communication_ns, us(20'000));
    EXPECT_EQ(steps.iterations[i].collective_ns[static_cast<std::size_t>(Collective::SendRecv)], us(20'000));
    EXPECT_EQ(steps.iterations[i].kernels, i == 10 ? 4U : 3U);
  }
}

TEST(RepeatLagTest, long_logs_with_many_kernels_per_iteration) {
  // 2,000,000 kernels, 1,000 per iteration, one name 300 times per iteration (beyond kMaxAnchorRepeats:
  // the rarest names find the lag), 3 % of the names replaced by noise.
  constexpr std::size_t kLag = 1'000;
  std::vector<std::uint32_t> ids(2'000'000);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto ph = static_cast<std::uint32_t>(i % kLag);
    ids[i] = ph % 10 < 3 ? 0 : ph;
    if (i % 33 == 7) ids[i] = 5000;
  }
  EXPECT_EQ(detail::repeat_lag(ids, 5001), kLag);
  std::vector<std::uint32_t> none(10'000);
  for (std::size_t i = 0; i < none.size(); ++i) none[i] = static_cast<std::uint32_t>((i * i) % 9973 % 50);
  EXPECT_EQ(detail::repeat_lag(none, 50), 0U);
}

TEST(RankStepsTest, from_a_sample_based_estimate) {
  IterationEstimate e;
  e.periodic = true;
  e.period_s = 0.2;
  e.part_ratio = {0.5, 0.2, 0.15, 0.05, 0.1};  // compute, memory, communication, latency, idle
  e.compute_ratio = 0.75;                      // compute + memory + latency, as the estimator sets it
  e.communication_ratio = 0.25;
  e.exposed_communication_ratio = 0.15;
  const auto r = rank_steps("node-2 GPU 3", e);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rank, "node-2 GPU 3");
  EXPECT_DOUBLE_EQ(r->iteration_s, 0.2);
  EXPECT_DOUBLE_EQ(r->compute_s, 0.2 * (0.5 + 0.2 + 0.05));
  EXPECT_DOUBLE_EQ(r->communication_s, 0.05);
  EXPECT_DOUBLE_EQ(r->exposed_communication_s, 0.03);
  e.periodic = false;
  EXPECT_FALSE(rank_steps("GPU 0", e).has_value());
}

TEST(FindStragglerTest, needs_two_ranks_with_a_compute_time) {
  EXPECT_FALSE(find_straggler({}).has_value());
  std::vector<RankSteps> ranks{{.rank = "a", .iteration_s = 0.1, .compute_s = 0.05}};
  EXPECT_FALSE(find_straggler(ranks).has_value());
  ranks.push_back({.rank = "b", .iteration_s = 0.1, .compute_s = kUnknown});
  EXPECT_FALSE(find_straggler(ranks).has_value());
  ranks.push_back({.rank = "c", .iteration_s = 0.12, .compute_s = 0.07});
  const auto v = find_straggler(ranks);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->straggler, 2U);
  EXPECT_DOUBLE_EQ(v->spread_pct, (0.07 - 0.06) / 0.06 * 100.0);  // median of 0.05 and 0.07
  EXPECT_DOUBLE_EQ(v->iteration_spread_pct, (0.12 - 0.1) / 0.11 * 100.0);
}

}  // namespace
}  // namespace solscope::core
