// The small vocabularies of a SOL figure: compute pipes, memory paths, bound classes and counter sources.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace solscope::core {

/// Compute pipes whose busiest one sets Compute SOL. Where a chip splits FMA or ALU into heavy and lite
/// pipes, both are listed; `Issue` is the SM's instruction issue rate (IPC against its peak).
enum class Pipe : std::uint8_t {
  Tensor,
  Fma,
  FmaHeavy,
  FmaLite,
  Alu,
  AluLite,
  Fp64,
  Fp16,
  Issue,
  Lsu,
  kCount
};
inline constexpr std::size_t kPipeCount = static_cast<std::size_t>(Pipe::kCount);

/// Memory paths whose busiest one sets Memory SOL: device memory, L2 cache (LTS slices), L1/TEX.
enum class MemPath : std::uint8_t { Dram, L2, L1, kCount };
inline constexpr std::size_t kMemPathCount = static_cast<std::size_t>(MemPath::kCount);

/// What limits a GPU over a sample (see derive.hpp for the thresholds).
enum class Bound : std::uint8_t {
  Unknown,  ///< too few figures to classify
  Idle,     ///< the graphics/compute engine was almost never busy
  Compute,  ///< a compute pipe is near its peak
  Memory,   ///< a memory path is near its peak
  Latency,  ///< the engine is busy but no pipe or path is near its peak: latency, launch or sync bound
};

/// Where a device's figures come from, best first (docs/design/architecture.md section 3).
enum class SourceKind : std::uint8_t {
  None,        ///< nothing could be read
  PmSampling,  ///< CUPTI PM sampling: every pipe and path, GPU-timestamped
  Gpm,         ///< NVML GPM (Hopper+): tensor/FP pipes, DRAM, SM activity; coarser
  NvmlOnly,    ///< NVML basic: classic utilization, clocks, power; no SOL
  Replay,      ///< a recorded trace
  Dcgm,        ///< DCGM profiling fields (dcgm-exporter, dcgmi dmon): tensor/FP pipes, DRAM active; coarser
  Nsys,        ///< Nsight Systems GPU metrics sampling (an nsys SQLite export); coarser
};

/// Lowercase names used in JSON, traces, Prometheus labels and the UI: "tensor", "dram", "memory",
/// "pm_sampling".
[[nodiscard]] auto to_string(Pipe pipe) -> std::string_view;
[[nodiscard]] auto to_string(MemPath path) -> std::string_view;
[[nodiscard]] auto to_string(Bound bound) -> std::string_view;
[[nodiscard]] auto to_string(SourceKind source) -> std::string_view;

/// Inverse of to_string; nullopt for an unknown name.
[[nodiscard]] auto pipe_from_string(std::string_view name) -> std::optional<Pipe>;
[[nodiscard]] auto mem_path_from_string(std::string_view name) -> std::optional<MemPath>;
[[nodiscard]] auto bound_from_string(std::string_view name) -> std::optional<Bound>;
[[nodiscard]] auto source_kind_from_string(std::string_view name) -> std::optional<SourceKind>;

}  // namespace solscope::core
