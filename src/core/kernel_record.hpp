// KernelRecord: one GPU kernel execution, as `solscope run`'s injection library saw it (CUPTI Activity API,
// CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) and as a trace's `kernels` table keeps it (docs/trace-format.md).
// MarkerRecord: one NVTX range or mark of the same job (CUPTI_ACTIVITY_KIND_MARKER; the `markers` table).
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

/// One NVTX range or mark of one thread (`nvtxRangePush/Pop`, `nvtxDomainRangePush/Pop`, `nvtxMark`), as the
/// injection library saw it (CUPTI_ACTIVITY_KIND_MARKER) and a trace's `markers` table keeps it. Times are
/// CPU times on the samples' clock (epoch ns); a mark has end_ns == start_ns.
struct MarkerRecord {
  std::int32_t pid = 0;
  std::uint32_t tid = 0;  ///< the thread that pushed it
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;  ///< the pop; == start_ns for a mark
  std::uint32_t depth = 0;  ///< nesting level within its thread, 0 = outermost
  std::string domain;       ///< NVTX domain name; empty = the default domain
  std::string name;         ///< the message, cut to 512 bytes
  [[nodiscard]] auto is_mark() const -> bool { return end_ns == start_ns; }
};

}  // namespace solscope::core
