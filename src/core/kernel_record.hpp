// KernelRecord: one GPU kernel execution, as `solscope run`'s injection library saw it (CUPTI Activity API,
// CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) and as a trace's `kernels` table keeps it (docs/trace-format.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace solscope::core {

/// One kernel execution. Times are on the samples' clock (ns since the Unix epoch, CLOCK_REALTIME), after the
/// recorder's measured offset between CUPTI timestamps and that clock; `[start_ns, end_ns)`.
struct KernelRecord {
  std::uint32_t device = 0;  ///< NVML index (the recorder maps the process's CUDA ordinal by GPU UUID)
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int32_t pid = 0;                  ///< the process that launched it
  std::uint32_t stream = 0;              ///< CUPTI streamId
  std::uint64_t correlation = 0;         ///< CUPTI correlationId (joins the launch API call)
  std::array<std::uint32_t, 3> grid{};   ///< gridX, gridY, gridZ
  std::array<std::uint32_t, 3> block{};  ///< blockX, blockY, blockZ
  std::string name;                      ///< demangled; cut to 512 bytes
  [[nodiscard]] auto duration_ns() const -> std::int64_t { return end_ns - start_ns; }
};

}  // namespace solscope::core
