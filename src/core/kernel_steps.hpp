// Training iterations found in the kernel log of `solscope run`: NCCL kernels are communication, the others
// compute; each iteration's compute time, communication time, the communication no compute kernel overlaps
// (exposed), and its collective mix; boundaries from NVTX step ranges or the repeating kernel sequence; and
// across the ranks of one job, the straggler (docs/design/sol-metrics.md section 13).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_table.hpp"
#include "core/iteration.hpp"
#include "core/kernel_record.hpp"

namespace solscope::core {

/// The collective an NCCL kernel runs, from its name (NCCL's src/device/generate.py names device kernels
/// `ncclDevKernel_<Func>_<RedOp>_<Type>_<Algo>_<Proto>`, older NCCL `ncclKernel_<Func>_<Algo>_<Proto>_...`;
/// SendRecv is point-to-point, which all-to-all is built from).
enum class Collective : std::uint8_t {
  None,  ///< not an NCCL kernel: compute
  AllReduce,
  AllGather,
  ReduceScatter,
  Broadcast,
  Reduce,
  SendRecv,
  Other,  ///< an NCCL kernel whose collective is not one of the above
  kCount
};
inline constexpr std::size_t kCollectiveCount = static_cast<std::size_t>(Collective::kCount);
inline constexpr EnumNames<Collective, kCollectiveCount> kCollectiveNames({"none", "all_reduce", "all_gather",
                                                                           "reduce_scatter", "broadcast",
                                                                           "reduce", "send_recv", "other"},
                                                                          "unknown");
[[nodiscard]] constexpr auto to_string(Collective c) -> std::string_view {
  return kCollectiveNames(c);
}

/// The collective of a kernel name (demangled, with or without a `void ` prefix and an argument list, or
/// mangled `_Z<length>...`); Collective::None for anything that is not NCCL's. An NCCL kernel is a name that
/// starts with `ncclDevKernel_` (NCCL >= 2.19, src/device/generate.py), `ncclSymkDevKernel_` (symmetric
/// kernels, src/device/symmetric/generate.py), `ncclKernel_` or `ncclKernelDebug_` (NCCL < 2.19,
/// src/collectives/device/common.h NCCL_KERN_NAME); the Func after the prefix names the collective
/// (AllGatherV is AllGather, Send/Recv/SendRecv is SendRecv, Generic and unknown ones Other). A name in a
/// namespace or merely containing "nccl" (a framework's own all-reduce kernel) is compute. Pure.
[[nodiscard]] auto classify_kernel(std::string_view name) -> Collective;

/// Where iteration boundaries came from.
enum class StepBoundary : std::uint8_t { None, Nvtx, KernelSequence };
inline constexpr EnumNames<StepBoundary, 3> kStepBoundaryNames({"none", "nvtx", "kernel_sequence"},
                                                               "unknown");
[[nodiscard]] constexpr auto to_string(StepBoundary b) -> std::string_view {
  return kStepBoundaryNames(b);
}

/// One iteration on one GPU, [start_ns, end_ns) on the samples' clock. Every duration is a union of kernel
/// intervals clipped to the iteration, ns: compute_ns of compute kernels, communication_ns of NCCL kernels,
/// exposed_communication_ns of the NCCL time when no compute kernel runs (<= communication_ns).
struct KernelIteration {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t compute_ns = 0;
  std::int64_t communication_ns = 0;
  std::int64_t exposed_communication_ns = 0;
  /// Union time per collective (index Collective; Collective::None, compute, stays 0).
  std::array<std::int64_t, kCollectiveCount> collective_ns{};
  std::uint32_t kernels = 0;
  [[nodiscard]] auto duration_ns() const -> std::int64_t { return end_ns - start_ns; }
};

/// What the caller knows about boundaries.
struct StepOptions {
  /// Use NVTX ranges with exactly this name (any domain) as iterations; empty = pick the outermost range name
  /// repeated most often (at least kMinIterations times), else the kernel sequence.
  std::string nvtx_range;
};

/// At least this many iterations before a boundary rule counts as found.
inline constexpr std::size_t kMinIterations = 3;

/// The iterations of one GPU's kernels.
struct KernelSteps {
  std::uint32_t device = 0;
  StepBoundary boundary = StepBoundary::None;
  std::string nvtx_range;                   ///< the NVTX range name used, when boundary == Nvtx
  std::vector<KernelIteration> iterations;  ///< whole iterations only, in time order
  std::string note;                         ///< why none were found, or what was approximate; empty otherwise
};

/// Splits one GPU's kernels into iterations (docs/design/sol-metrics.md section 13). `kernels` may hold
/// other devices' kernels (ignored) and come in any order (sorted here when they are not by start_ns).
/// `markers` are the job's NVTX records (any process; those of processes with no kernel on this device are
/// ignored). NVTX rule: a kernel belongs to the step whose range opened last at or before the kernel's start
/// (kernels launched inside a range cannot start before it; exact when the host does not run more than one
/// step ahead); an iteration runs from a step's first kernel start to the next step's; a range name given in
/// `options` that none of the GPU's processes opened gives boundary None and a note. Sequence rule (no NVTX
/// range used): the shortest lag L at which the kernel-name sequence repeats (>= 90% of names equal at lag L,
/// at least kMinIterations times; candidate lags from the names' repeat distances, so the cost stays near
/// linear in the kernels); an iteration starts at the kernel with the longest mean idle gap before it,
/// followed cycle by cycle (a cycle with an extra or a missing kernel: the same name within L/4, and a note
/// that the boundaries are approximate). Kernels before the first boundary and after the last are partial
/// iterations and dropped. No kernel, or no repeat: boundary None, no iterations, and a note.
[[nodiscard]] auto kernel_steps(std::uint32_t device, std::span<const KernelRecord> kernels,
                                std::span<const MarkerRecord> markers, const StepOptions& options = {})
    -> KernelSteps;

/// One rank (GPU) of a job over its iterations: the medians of its iterations, seconds.
struct RankSteps {
  std::string rank;  ///< its label: "GPU 3", "node-2 GPU 3"
  double iteration_s = 0.0;
  double compute_s = 0.0;
  double communication_s = 0.0;
  double exposed_communication_s = 0.0;
};

/// The ranks of a job compared. The straggler is the rank whose compute takes longest (the others wait for it
/// in their communication); spread_pct = (its compute - the ranks' median compute) / median x 100, >= 0.
struct StragglerVerdict {
  std::size_t straggler = 0;  ///< index into the ranks given
  double spread_pct = 0.0;
  double median_compute_s = 0.0;      ///< the ranks' median compute_s (core::median_known), seconds
  double iteration_spread_pct = 0.0;  ///< (max - min iteration_s) / median iteration_s x 100
};

/// nullopt with fewer than two ranks.
[[nodiscard]] auto find_straggler(std::span<const RankSteps> ranks) -> std::optional<StragglerVerdict>;

/// A rank's medians over its iterations (nullopt when there are none).
[[nodiscard]] auto rank_steps(std::string rank, std::span<const KernelIteration> iterations)
    -> std::optional<RankSteps>;

/// A rank from its samples alone (iteration.hpp): iteration_s = period_s, communication_s and
/// exposed_communication_s the ratios x period, compute_s = period x compute_ratio (the compute, memory and
/// latency parts). nullopt when the estimate is not periodic.
[[nodiscard]] auto rank_steps(std::string rank, const IterationEstimate& estimate)
    -> std::optional<RankSteps>;

}  // namespace solscope::core
