// Writer::append_markers: the NVTX ranges and marks of the schema-6 `markers` table, buffered and committed
// with the kernel records (writer.cpp holds the rest of the Writer).
#include <chrono>
#include <mutex>
#include <string>
#include <utility>

#include "trace/detail/kernel_rows.hpp"
#include "trace/detail/writer_impl.hpp"
#include "trace/schema.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {

auto Writer::append_markers(std::span<const core::MarkerRecord> markers) -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  Impl& w = *impl_;
  const std::scoped_lock lock(w.mutex);
  if (auto error = w.check_usable()) return core::fail(*error);
  for (const core::MarkerRecord& m : markers) {
    if (m.end_ns < m.start_ns) {
      return core::fail(core::ErrorCode::InvalidArgument,
                        "NVTX range \"" + m.name.substr(0, 80) + "\" of thread " + std::to_string(m.tid) +
                            " ends (" + std::to_string(m.end_ns) + " ns) before it starts (" +
                            std::to_string(m.start_ns) + " ns)",
                        "drop incomplete ranges before appending them");
    }
  }
  for (const core::MarkerRecord& m : markers) {
    core::MarkerRecord& kept = w.pending_markers.emplace_back(m);
    if (kept.name.size() > kMaxKernelNameBytes) kept.name = detail::clip_kernel_name(std::move(kept.name));
    if (kept.domain.size() > kMaxKernelNameBytes)
      kept.domain = detail::clip_kernel_name(std::move(kept.domain));
    w.note_kernel_log_end(m.end_ns);
  }
  if (w.pending_markers.size() >= w.options.batch_samples ||
      w.span_due(w.max_kernel_end_ns - w.kernel_mark_ns))
    return w.commit(false);
  return core::ok();
}

}  // namespace solscope::trace
