// Identifiers of every figure solscope samples: GPU counters, NVML GPM metrics and NVML device fields.
//
// A `MetricId` indexes `RawSample::values` and the metric catalog (metric_catalog.hpp), which holds the
// names, units and per-chip counter names of each id. Append new ids before `kCount`; never reorder (trace
// files store the catalog name, not the number, so reordering is safe for traces but not for readers of
// `values`).
#pragma once

#include <cstddef>
#include <cstdint>

namespace solscope::core {

/// One sampled figure. Percentages are of the unit's peak sustained rate over the sample (0-100, may exceed
/// 100 slightly from counter skew); rates are bytes per second; clocks MHz; power W; temperature degrees
/// Celsius.
enum class MetricId : std::uint8_t {
  // Compute pipes (instruction or cycle rate against the pipe's peak).
  TensorPipe,
  FmaPipe,
  FmaHeavyPipe,
  FmaLitePipe,
  AluPipe,
  AluLitePipe,
  Fp64Pipe,
  Fp16Pipe,
  IssueActive,
  LsuPipe,
  SmThroughput,
  // Memory paths (throughput against the path's peak).
  DramThroughput,
  L2Throughput,
  L1Wavefronts,
  L1TexThroughput,
  // Activity: what DCGM and nvidia-smi show.
  SmActive,
  SmOccupancy,
  GrActive,
  GpuUtil,
  MemCopyUtil,
  // Interconnect byte rates.
  PcieReadBytesPerS,
  PcieWriteBytesPerS,
  NvlinkRxBytesPerS,
  NvlinkTxBytesPerS,
  // Device state from NVML.
  SmClockMhz,
  MemClockMhz,
  PowerW,
  PowerLimitW,
  TemperatureC,
  MemoryUsedBytes,
  MemoryTotalBytes,
  kCount,
};

/// Number of metric ids; the size of `RawSample::values`.
inline constexpr std::size_t kMetricCount = static_cast<std::size_t>(MetricId::kCount);

/// Array index of a metric id.
[[nodiscard]] constexpr auto index_of(MetricId id) -> std::size_t {
  return static_cast<std::size_t>(id);
}

}  // namespace solscope::core
