// The pieces of core::kernel_steps (kernel_steps.hpp): one GPU's kernels in start order with their names as
// small ids, the two boundary rules, and the per-iteration unions (docs/design/sol-metrics.md section 13).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/kernel_record.hpp"
#include "core/kernel_steps.hpp"

namespace solscope::core::detail {

/// A kernel sequence repeats at lag L when at least this share of the names compared are equal at lag L.
inline constexpr double kSequenceMatchRatio = 0.9;
/// The candidate lags come from the repeat distances of the commonest kernel name up to this many of its
/// occurrences apart (so the rule finds an iteration in which the commonest kernel runs up to this often),
/// and from the consecutive distances of this many of the rarest names that repeat.
inline constexpr std::size_t kMaxAnchorRepeats = 64;
inline constexpr std::size_t kRareAnchors = 4;
/// At most this many positions are compared per candidate lag (a window in the middle of the log, or
/// 2 x the lag when that is longer); a candidate is dropped as soon as its mismatches pass the 10 % allowed.
inline constexpr std::size_t kMaxComparedKernels = std::size_t{1} << 20;
/// Each occurrence distance median is taken over at most this many pairs (evenly spread).
inline constexpr std::size_t kMaxDistancePairs = 1024;

/// One GPU's kernels by start time, with each name replaced by a small id (first seen = 0).
struct DeviceKernels {
  std::vector<const KernelRecord*> order;
  std::vector<std::uint32_t> ids;         ///< per kernel of `order`
  std::vector<Collective> id_collective;  ///< per id: classify_kernel of its name
};

/// The kernels of `device` in `kernels` (any order), stably sorted by start_ns.
[[nodiscard]] auto device_kernels(std::uint32_t device, std::span<const KernelRecord> kernels)
    -> DeviceKernels;

/// NVTX rule: the positions (into ks.order) of each step's first kernel, the step being the range of the
/// chosen name that opened last at or before the kernel's start. Sets out.boundary = Nvtx and out.nvtx_range.
/// nullopt when no range name is used: none given and none repeats kMinIterations times at depth 0; or one
/// given that none of this GPU's processes opened (then out.note says so).
[[nodiscard]] auto nvtx_boundaries(const DeviceKernels& ks, std::span<const MarkerRecord> markers,
                                   const StepOptions& options, KernelSteps& out)
    -> std::optional<std::vector<std::size_t>>;

/// Sequence rule: the shortest lag L at which the name ids repeat (kSequenceMatchRatio), at least
/// kMinIterations times; the positions where iterations start: the name with the longest mean idle gap
/// before it, followed cycle by cycle (within max(1, L / 4) kernels of one lag on when a cycle drifted, with
/// a note). Sets out.boundary = KernelSequence, or out.note when there is no repeat.
[[nodiscard]] auto sequence_boundaries(const DeviceKernels& ks, KernelSteps& out) -> std::vector<std::size_t>;

/// The shortest lag at which `ids` repeat (0 = none); bounded cost, see the constants above.
[[nodiscard]] auto repeat_lag(std::span<const std::uint32_t> ids, std::size_t id_count) -> std::size_t;

/// The iterations between consecutive `starts` (positions into ks.order, increasing): [start of the kernel
/// at starts[k], start of the kernel at starts[k + 1]), with the unions of every kernel clipped to it.
[[nodiscard]] auto measure_iterations(const DeviceKernels& ks, std::span<const std::size_t> starts)
    -> std::vector<KernelIteration>;

}  // namespace solscope::core::detail
