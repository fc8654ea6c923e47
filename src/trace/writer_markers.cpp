// Writer::append_markers: the NVTX ranges and marks of the schema-6 `markers` table, buffered and committed
// with the kernel records (writer.cpp holds the rest of the Writer).
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
  const auto refusal = [](const core::MarkerRecord& m) {
    return core::Error{core::ErrorCode::InvalidArgument,
                       "NVTX range \"" + m.name.substr(0, 80) + "\" of thread " + std::to_string(m.tid) +
                           " ends (" + std::to_string(m.end_ns) + " ns) before it starts (" +
                           std::to_string(m.start_ns) + " ns)",
                       "drop incomplete ranges before appending them"};
  };
  const auto clip = [](core::MarkerRecord& m) {
    if (m.name.size() > kMaxKernelNameBytes) m.name = detail::clip_kernel_name(std::move(m.name));
    if (m.domain.size() > kMaxKernelNameBytes) m.domain = detail::clip_kernel_name(std::move(m.domain));
  };
  return w.buffer_kernel_log(markers, w.pending_markers, refusal, clip);
}

}  // namespace solscope::trace
