// The traces the damage tests spoil: the demo trace (4,800 samples of 4 GPUs) and a kernels trace written
// here (2 GPUs, 400 samples, 20,000 kernel records), each with its row counts before any damage.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/derive.hpp"
#include "core/kernel_record.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/writer.hpp"

namespace solscope::trace::testing {

inline const std::filesystem::path kDemoTrace = SOLSCOPE_TEST_DATA_DIR "/demo-trace.sqlite";
inline constexpr std::uint64_t kDemoTraceSamples = 4800;
/// Columns of a samples row in the demo trace (id and 22 more) and of a kernels row (id and 13 more).
inline constexpr std::size_t kSampleColumns = 23;
inline constexpr std::size_t kKernelColumns = 14;

inline constexpr std::uint32_t kKernelTraceDevices = 2;
inline constexpr std::uint64_t kKernelTraceSamplesPerDevice = 200;
inline constexpr std::uint64_t kKernelTraceKernels = 20'000;

/// Kernel `i` (1-based, its id in the table) of the kernels trace: device i % 2, 10 us every 100 us.
inline auto kernel_trace_record(std::uint64_t i) -> core::KernelRecord {
  core::KernelRecord k;
  k.device = static_cast<std::uint32_t>(i % kKernelTraceDevices);
  k.start_ns = synthetic::kStartNs + static_cast<std::int64_t>(i) * 100'000;
  k.end_ns = k.start_ns + 10'000;
  k.pid = 4242;
  k.stream = 7;
  k.correlation = i;
  k.grid = {132, 1, 1};
  k.block = {256, 1, 1};
  k.name = "damage_kernel_" + std::to_string(i);
  return k;
}

/// Writes the kernels trace to `path` (kernels in batches of 1,000 between the samples).
inline void write_kernels_trace(const std::filesystem::path& path) {
  auto writer = Writer::open(path);
  ASSERT_TRUE(writer) << writer.error().describe();
  const auto devices = synthetic::devices(kKernelTraceDevices);
  ASSERT_TRUE(writer->write_devices(devices));
  ASSERT_TRUE(writer->set_kernel_log("synthetic"));
  std::uint64_t next = 1;
  for (const core::RawSample& raw :
       synthetic::samples(kKernelTraceDevices, kKernelTraceSamplesPerDevice, 5)) {
    ASSERT_TRUE(writer->append(raw, core::derive(raw, devices[raw.device_index])));
    std::vector<core::KernelRecord> batch;
    for (; next <= kKernelTraceKernels && batch.size() < 1000; ++next)
      batch.push_back(kernel_trace_record(next));
    if (!batch.empty()) {
      ASSERT_TRUE(writer->append_kernels(batch));
    }
  }
  ASSERT_TRUE(writer->close());
}

}  // namespace solscope::trace::testing
