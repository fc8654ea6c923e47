// Training iterations from the kernel log (docs/design/sol-metrics.md section 13): the classification of a
// kernel name, and one GPU's iterations (boundaries: detail/kernel_boundaries.cpp; unions:
// detail/kernel_unions.cpp). Ranks and the straggler: kernel_ranks.cpp.
#include "core/kernel_steps.hpp"

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "core/detail/kernel_sequence.hpp"

namespace solscope::core {
namespace {

/// NCCL's device kernel prefixes: `ncclDevKernel_` (NCCL >= 2.19, src/device/generate.py: `ncclDevKernel_` +
/// Func [+ RedOp + Type] + Algo + Proto, or `ncclDevKernel_SendRecv` / `ncclDevKernel_Generic`),
/// `ncclSymkDevKernel_` (symmetric kernels, src/device/symmetric/generate.py), and before 2.19
/// `ncclKernel_` / `ncclKernelDebug_` (src/collectives/device/common.h NCCL_KERN_NAME: Func, Algo, Proto,
/// RedOp, Type). RCCL keeps the same names.
constexpr std::string_view kNcclPrefixes[] = {"ncclDevKernel_", "ncclSymkDevKernel_", "ncclKernelDebug_",
                                              "ncclKernel_"};

struct CollectiveToken {
  std::string_view token;
  Collective collective;
};
/// The Func names of generate.py (all_colls) and of the older common.h; `Generic` runs any of them.
constexpr CollectiveToken kCollectiveTokens[] = {
    {"AllReduce", Collective::AllReduce},  {"AllGather", Collective::AllGather},
    {"AllGatherV", Collective::AllGather}, {"ReduceScatter", Collective::ReduceScatter},
    {"Broadcast", Collective::Broadcast},  {"Reduce", Collective::Reduce},
    {"SendRecv", Collective::SendRecv},    {"Send", Collective::SendRecv},
    {"Recv", Collective::SendRecv},
};

/// The name without a demangled `void ` return type or an Itanium `_Z<length>` mangling prefix.
auto bare_name(std::string_view name) -> std::string_view {
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  if (name.starts_with("void ")) name.remove_prefix(5);
  if (name.starts_with("_Z")) {
    name.remove_prefix(2);
    while (!name.empty() && name.front() >= '0' && name.front() <= '9') name.remove_prefix(1);
  }
  return name;
}

}  // namespace

auto classify_kernel(std::string_view name) -> Collective {
  name = bare_name(name);
  for (std::string_view prefix : kNcclPrefixes) {
    if (!name.starts_with(prefix)) continue;
    std::string_view rest = name.substr(prefix.size());
    const std::size_t end = rest.find_first_of("_(<");
    const std::string_view token = rest.substr(0, end);
    for (const CollectiveToken& t : kCollectiveTokens) {
      if (t.token == token) return t.collective;
    }
    return Collective::Other;
  }
  return Collective::None;
}

auto kernel_steps(std::uint32_t device, std::span<const KernelRecord> kernels,
                  std::span<const MarkerRecord> markers, const StepOptions& options) -> KernelSteps {
  KernelSteps out;
  out.device = device;
  const detail::DeviceKernels ks = detail::device_kernels(device, kernels);
  if (ks.order.empty()) {
    out.note = "no kernels on this GPU";
    return out;
  }
  std::vector<std::size_t> starts;  // positions in ks.order where an iteration starts
  if (auto nvtx = detail::nvtx_boundaries(ks, markers, options, out); nvtx) {
    starts = std::move(*nvtx);
  } else if (out.note.empty()) {
    starts = detail::sequence_boundaries(ks, out);
  }
  if (out.boundary == StepBoundary::None) return out;
  out.iterations = detail::measure_iterations(ks, starts);
  if (out.iterations.empty() && out.note.empty()) out.note = "no whole iteration";
  return out;
}

}  // namespace solscope::core
