// The kernel join: calls, GPU time, share, overlap flag and the sample-overlap-weighted SOL.
#include "report/detail/kernel_join.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "report/report_test_support.hpp"

namespace solscope::report {
namespace {

using testing::kMs;
using testing::Load;

auto kernel(std::uint32_t device, std::int64_t start_ms, std::int64_t end_ms, const char* name)
    -> core::KernelRecord {
  core::KernelRecord k;
  k.device = device;
  k.start_ns = start_ms * kMs;
  k.end_ns = end_ms * kMs;
  k.name = name;
  return k;
}

/// Two 100 ms samples on GPU 0: 40 % tensor + 70 % dram, then 80 % fma + 30 % L2 (tensor 20 % beside it).
auto two_samples() -> std::vector<core::SolSample> {
  auto s0 = testing::sample(0, 0, 100, Load{.bound = core::Bound::Memory, .compute = 40.0, .memory = 70.0});
  s0.pipe_pct[static_cast<std::size_t>(core::Pipe::Fma)] = 10.0;
  auto s1 = testing::sample(0, 100, 100,
                            Load{.bound = core::Bound::Compute,
                                 .compute = 80.0,
                                 .pipe = core::Pipe::Fma,
                                 .memory = 30.0,
                                 .path = core::MemPath::L2});
  s1.pipe_pct[static_cast<std::size_t>(core::Pipe::Tensor)] = 20.0;
  return {s0, s1};
}

TEST(KernelJoin, WeightsSamplesByOverlapAndFlagsOverlappedCalls) {
  const std::vector<core::KernelRecord> kernels = {
      kernel(0, 50, 150, "gemm"),   // half in each sample; overlapped by "relu"
      kernel(0, 120, 140, "relu"),  // inside sample 1
      kernel(0, 150, 160, "gemm"),  // starts as the first call ends: no overlap
      kernel(0, 300, 400, "copy"),  // after the samples: SOL unknown
      kernel(1, 0, 10, "other"),    // another GPU
  };
  KernelJoin join(kernels);
  for (const auto& s : two_samples()) join.add(s);
  EXPECT_EQ(join.devices(), (std::vector<std::uint32_t>{0, 1}));

  GpuReport gpu;
  gpu.device.index = 0;
  join.fill(gpu);
  EXPECT_EQ(gpu.kernel_calls, 4U);
  EXPECT_EQ(gpu.kernel_names, 3U);
  EXPECT_EQ(gpu.kernel_total_ns, 230 * kMs);
  ASSERT_EQ(gpu.top_kernels.size(), 3U);

  const KernelRow& gemm = gpu.top_kernels[0];
  EXPECT_EQ(gemm.name, "gemm");
  EXPECT_EQ(gemm.calls, 2U);
  EXPECT_EQ(gemm.total_ns, 110 * kMs);
  EXPECT_DOUBLE_EQ(gemm.time_share_pct, 100.0 * 110.0 / 230.0);
  EXPECT_EQ(gemm.sampled_ns, 110 * kMs);
  EXPECT_EQ(gemm.overlapped_calls, 1U);
  EXPECT_TRUE(gemm.overlapped());
  // 50 ms of sample 0 and 60 ms of sample 1.
  EXPECT_DOUBLE_EQ(gemm.compute_sol_pct, (40.0 * 50 + 80.0 * 60) / 110.0);
  EXPECT_DOUBLE_EQ(gemm.memory_sol_pct, (70.0 * 50 + 30.0 * 60) / 110.0);
  // Highest weighted pipe mean: fma (10 x 50 + 80 x 60) / 110 = 48.2 against tensor (40 x 50 + 20 x 60) /
  // 110.
  EXPECT_EQ(gemm.compute_pipe, core::Pipe::Fma);

  const KernelRow& copy = gpu.top_kernels[1];
  EXPECT_EQ(copy.name, "copy");
  EXPECT_EQ(copy.sampled_ns, 0);
  EXPECT_TRUE(std::isnan(copy.compute_sol_pct));
  EXPECT_TRUE(std::isnan(copy.memory_sol_pct));
  EXPECT_EQ(copy.compute_pipe, core::Pipe::kCount);
  EXPECT_FALSE(copy.overlapped());

  const KernelRow& relu = gpu.top_kernels[2];
  EXPECT_EQ(relu.name, "relu");
  EXPECT_EQ(relu.overlapped_calls, 1U);
  EXPECT_DOUBLE_EQ(relu.compute_sol_pct, 80.0);
  EXPECT_EQ(relu.memory_path, core::MemPath::L2);
  EXPECT_DOUBLE_EQ(relu.time_share_pct, 100.0 * 20.0 / 230.0);

  GpuReport other;
  other.device.index = 1;
  join.fill(other);
  EXPECT_EQ(other.kernel_calls, 1U);
  ASSERT_EQ(other.top_kernels.size(), 1U);
  EXPECT_TRUE(std::isnan(other.top_kernels[0].compute_sol_pct));
}

TEST(KernelJoin, OverlapFlagSeesLongEarlierCallsAndIgnoresEmptyCalls) {
  const std::vector<core::KernelRecord> kernels = {
      kernel(0, 0, 1000, "long"),     // spans both below
      kernel(0, 100, 200, "a"),       // overlapped by long
      kernel(0, 500, 600, "b"),       // overlapped by long (not by a)
      kernel(0, 2000, 2000, "zero"),  // no duration: a call with no time, never overlapped
      kernel(0, 1500, 1600, "alone"),
  };
  KernelJoin join(kernels);
  GpuReport gpu;
  join.fill(gpu);
  ASSERT_EQ(gpu.top_kernels.size(), 5U);
  for (const auto& row : gpu.top_kernels) {
    const bool expected = row.name == "long" || row.name == "a" || row.name == "b";
    EXPECT_EQ(row.overlapped(), expected) << row.name;
  }
  EXPECT_EQ(gpu.top_kernels.back().name, "zero");
  EXPECT_EQ(gpu.top_kernels.back().total_ns, 0);
}

TEST(KernelJoin, KeepsTheTopTwentyByTimeThenName) {
  std::vector<core::KernelRecord> kernels;
  std::vector<std::string> names;
  for (int i = 0; i < 25; ++i) names.push_back("k" + std::to_string(100 + i));
  for (int i = 0; i < 25; ++i) {
    // k100..k124 take 1..25 ms; k123 and k124 tie with k124 when both take 25 ms.
    const int length = i == 23 ? 25 : i + 1;
    kernels.push_back(kernel(0, i * 100, i * 100 + length, names[static_cast<std::size_t>(i)].c_str()));
  }
  KernelJoin join(kernels);
  GpuReport gpu;
  join.fill(gpu);
  ASSERT_EQ(gpu.top_kernels.size(), kTopKernels);
  EXPECT_EQ(gpu.kernel_names, 25U);
  EXPECT_EQ(gpu.top_kernels[0].name, "k123");
  EXPECT_EQ(gpu.top_kernels[1].name, "k124");
  EXPECT_EQ(gpu.top_kernels[2].name, "k122");
  EXPECT_EQ(gpu.top_kernels[19].name, "k105");
}

TEST(KernelJoin, CallsStreamedOneByOneInAnyOrderJoinAsTheWholeLog) {
  std::vector<core::KernelRecord> kernels;
  for (int i = 0; i < 300; ++i) {
    kernels.push_back(kernel(0, i, i + 2, i % 3 == 0 ? "gemm" : (i % 3 == 1 ? "relu" : "copy")));
  }
  KernelJoin whole(kernels);
  KernelJoin streamed;
  for (auto it = kernels.rbegin(); it != kernels.rend(); ++it) streamed.add_call(*it);  // arrival order
  for (const auto& s : two_samples()) {
    whole.add(s);
    streamed.add(s);
  }
  streamed.add_call(kernel(0, 0, 1, "late"));  // after the first sample: ignored
  GpuReport a;
  GpuReport b;
  whole.fill(a);
  streamed.fill(b);
  EXPECT_EQ(b.kernel_calls, 300U);
  EXPECT_EQ(b.kernel_names, 3U);
  ASSERT_EQ(b.top_kernels.size(), a.top_kernels.size());
  for (std::size_t i = 0; i < a.top_kernels.size(); ++i) {
    EXPECT_EQ(b.top_kernels[i].name, a.top_kernels[i].name);
    EXPECT_EQ(b.top_kernels[i].calls, a.top_kernels[i].calls);
    EXPECT_EQ(b.top_kernels[i].overlapped_calls, a.top_kernels[i].overlapped_calls);
    EXPECT_EQ(b.top_kernels[i].sampled_ns, a.top_kernels[i].sampled_ns);
    EXPECT_DOUBLE_EQ(b.top_kernels[i].compute_sol_pct, a.top_kernels[i].compute_sol_pct);
  }
  // Each call keeps its start, end and name id; the name is interned once per GPU.
  EXPECT_EQ(KernelJoin::kBytesPerCall, 24U);
}

}  // namespace
}  // namespace solscope::report
