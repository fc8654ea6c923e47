#include "core/derive.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <utility>

namespace solscope::core {
namespace {

constexpr double kNaN = kUnknown;

auto sample_with(std::initializer_list<std::pair<MetricId, double>> values) -> RawSample {
  RawSample raw;
  raw.device_index = 3;
  raw.t_start_ns = 1'000;
  raw.t_end_ns = 11'000;
  raw.source = SourceKind::PmSampling;
  for (auto [id, v] : values) raw.set(id, v);
  return raw;
}

struct DeriveCase {
  const char* name;
  RawSample raw;
  double compute_sol_pct;
  Pipe compute_pipe;
  double memory_sol_pct;
  MemPath memory_path;
  Bound bound;
};

auto same(double a, double b) -> bool {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

TEST(DeriveTest, table) {
  const DeriveCase cases[] = {
      {"tensor_bound_gemm",
       sample_with({{MetricId::TensorPipe, 88},
                    {MetricId::FmaPipe, 5},
                    {MetricId::IssueActive, 20},
                    {MetricId::DramThroughput, 30},
                    {MetricId::L2Throughput, 41},
                    {MetricId::GrActive, 99}}),
       88, Pipe::Tensor, 41, MemPath::L2, Bound::Compute},
      {"memory_bound_copy",
       sample_with({{MetricId::TensorPipe, 0},
                    {MetricId::AluPipe, 9},
                    {MetricId::DramThroughput, 91},
                    {MetricId::L2Throughput, 70},
                    {MetricId::L1Wavefronts, 20},
                    {MetricId::GrActive, 100}}),
       9, Pipe::Alu, 91, MemPath::Dram, Bound::Memory},
      {"busy_but_useless_is_latency_bound",
       sample_with({{MetricId::TensorPipe, 1},
                    {MetricId::IssueActive, 3},
                    {MetricId::DramThroughput, 2},
                    {MetricId::GrActive, 100},
                    {MetricId::GpuUtil, 100}}),
       3, Pipe::Issue, 2, MemPath::Dram, Bound::Latency},
      {"idle",
       sample_with({{MetricId::TensorPipe, 0}, {MetricId::DramThroughput, 0}, {MetricId::GrActive, 0.5}}), 0,
       Pipe::Tensor, 0, MemPath::Dram, Bound::Idle},
      {"nothing_known", sample_with({}), kNaN, Pipe::kCount, kNaN, MemPath::kCount, Bound::Unknown},
      {"nan_inputs_are_skipped_not_zero",
       sample_with({{MetricId::TensorPipe, kNaN},
                    {MetricId::FmaHeavyPipe, 12},
                    {MetricId::FmaLitePipe, kNaN},
                    {MetricId::L1Wavefronts, kNaN},
                    {MetricId::L1TexThroughput, 33},
                    {MetricId::GrActive, 50}}),
       12, Pipe::FmaHeavy, 33, MemPath::L1, Bound::Latency},
      {"over_100_is_kept_raw",
       sample_with(
           {{MetricId::TensorPipe, 101.5}, {MetricId::DramThroughput, 100.2}, {MetricId::GrActive, 100}}),
       101.5, Pipe::Tensor, 100.2, MemPath::Dram, Bound::Compute},
      {"l1_takes_the_larger_of_its_two_counters",
       sample_with({{MetricId::L1Wavefronts, 65}, {MetricId::L1TexThroughput, 72}, {MetricId::GrActive, 90}}),
       kNaN, Pipe::kCount, 72, MemPath::L1, Bound::Memory},
      {"nvml_only_has_no_sol_and_uses_classic_util",
       sample_with({{MetricId::GpuUtil, 100}, {MetricId::PowerW, 300}}), kNaN, Pipe::kCount, kNaN,
       MemPath::kCount, Bound::Unknown},
      {"nvml_only_idle_by_classic_util", sample_with({{MetricId::GpuUtil, 0}}), kNaN, Pipe::kCount, kNaN,
       MemPath::kCount, Bound::Idle},
      {"tie_goes_to_compute",
       sample_with({{MetricId::TensorPipe, 70}, {MetricId::DramThroughput, 70}, {MetricId::GrActive, 100}}),
       70, Pipe::Tensor, 70, MemPath::Dram, Bound::Compute},
  };
  DeviceInfo device;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const SolSample s = derive(c.raw, device);
    EXPECT_TRUE(same(s.compute_sol_pct, c.compute_sol_pct)) << s.compute_sol_pct;
    EXPECT_EQ(s.compute_pipe, c.compute_pipe);
    EXPECT_TRUE(same(s.memory_sol_pct, c.memory_sol_pct)) << s.memory_sol_pct;
    EXPECT_EQ(s.memory_path, c.memory_path);
    EXPECT_EQ(s.bound, c.bound) << to_string(s.bound);
  }
}

TEST(DeriveTest, copies_identity_and_every_metric) {
  const RawSample raw = sample_with({{MetricId::SmActive, 77}, {MetricId::PowerW, 412.5}});
  const SolSample s = derive(raw, DeviceInfo{});
  EXPECT_EQ(s.device_index, 3u);
  EXPECT_EQ(s.t_start_ns, 1'000);
  EXPECT_EQ(s.t_end_ns, 11'000);
  EXPECT_EQ(s.source, SourceKind::PmSampling);
  EXPECT_EQ(s.sm_active_pct(), 77);
  EXPECT_EQ(s.metric(MetricId::PowerW), 412.5);
  EXPECT_TRUE(std::isnan(s.sm_occupancy_pct()));
  EXPECT_TRUE(std::isnan(s.attainable_compute_sol_pct));
}

TEST(DeriveTest, dram_bytes_per_s_uses_peak_bandwidth) {
  DeviceInfo h100;
  h100.dram_peak_bytes_per_s = 5120.0 / 8 * 2619e6 * 2;  // 3.352e12 B/s
  const SolSample s = derive(sample_with({{MetricId::DramThroughput, 50}}), h100);
  EXPECT_NEAR(s.dram_bytes_per_s, 1.676e12, 1e9);
  EXPECT_TRUE(
      std::isnan(derive(sample_with({{MetricId::DramThroughput, 50}}), DeviceInfo{}).dram_bytes_per_s));
}

TEST(DeriveTest, per_pipe_breakdown_is_kept) {
  const SolSample s =
      derive(sample_with({{MetricId::TensorPipe, 10}, {MetricId::LsuPipe, 45}}), DeviceInfo{});
  EXPECT_EQ(s.pipe_pct[static_cast<std::size_t>(Pipe::Tensor)], 10);
  EXPECT_EQ(s.pipe_pct[static_cast<std::size_t>(Pipe::Lsu)], 45);
  EXPECT_TRUE(std::isnan(s.pipe_pct[static_cast<std::size_t>(Pipe::Fma)]));
  EXPECT_EQ(s.compute_pipe, Pipe::Lsu);
}

TEST(DeriveTest, clamp_pct_is_for_display_only) {
  EXPECT_EQ(clamp_pct(104.0), 100.0);
  EXPECT_EQ(clamp_pct(-0.2), 0.0);
  EXPECT_EQ(clamp_pct(42.0), 42.0);
  EXPECT_TRUE(std::isnan(clamp_pct(kNaN)));
}

TEST(DeriveTest, classify_bound_thresholds) {
  EXPECT_EQ(classify_bound(59.9, 10, 100), Bound::Latency);
  EXPECT_EQ(classify_bound(60, 10, 100), Bound::Compute);
  EXPECT_EQ(classify_bound(10, 60, 100), Bound::Memory);
  EXPECT_EQ(classify_bound(90, 95, 100), Bound::Memory);
  EXPECT_EQ(classify_bound(90, 95, 4.9), Bound::Idle);
  EXPECT_EQ(classify_bound(kNaN, 80, 100), Bound::Memory);
  EXPECT_EQ(classify_bound(10, 10, kNaN), Bound::Unknown);
  EXPECT_EQ(classify_bound(80, 10, kNaN), Bound::Compute);
}

// The BF16 GEMM measured on an H100 (tests/data/real/h100-proof): tensor 93.4%, L1 95.0%, L2 45.6%,
// DRAM 25.2%. L1 is the tensor pipe's operand feed there, so the kernel is compute-bound; the Memory SOL
// shown stays L1's.
TEST(DeriveTest, l1_feeding_the_tensor_pipe_does_not_make_it_memory_bound) {
  const RawSample gemm = sample_with({{MetricId::TensorPipe, 93.4},
                                      {MetricId::L1TexThroughput, 95.0},
                                      {MetricId::L2Throughput, 45.6},
                                      {MetricId::DramThroughput, 25.2},
                                      {MetricId::GrActive, 100}});
  const SolSample s = derive(gemm, DeviceInfo{});
  EXPECT_EQ(s.memory_path, MemPath::L1);
  EXPECT_DOUBLE_EQ(s.memory_sol_pct, 95.0);
  EXPECT_DOUBLE_EQ(bound_memory_sol_pct(s), 45.6);
  EXPECT_EQ(s.bound, Bound::Compute);

  // DRAM above the tensor pipe still makes it memory-bound; L1 above another pipe (FMA) does too.
  RawSample dram_heavy = gemm;
  dram_heavy.set(MetricId::DramThroughput, 96.0);
  EXPECT_EQ(derive(dram_heavy, DeviceInfo{}).bound, Bound::Memory);
  const RawSample fma =
      sample_with({{MetricId::FmaPipe, 70}, {MetricId::L1TexThroughput, 95.0}, {MetricId::GrActive, 100}});
  EXPECT_EQ(derive(fma, DeviceInfo{}).bound, Bound::Memory);
  SolSample unknown_beyond =
      derive(sample_with({{MetricId::TensorPipe, 80}, {MetricId::L1TexThroughput, 90}}), DeviceInfo{});
  EXPECT_TRUE(std::isnan(bound_memory_sol_pct(unknown_beyond)));
}

}  // namespace
}  // namespace solscope::core
