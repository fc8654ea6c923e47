// The injection library's side of the kernel pipe: packs records into frames and writes each frame with one
// non-blocking write(2). A full pipe never blocks the workload: the frame is dropped and its kernels counted,
// and the next frame that gets through re-sends the process's hello, devices, last clock and the drop totals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "inject/detail/activity_parse.hpp"
#include "inject/kernel_wire.hpp"

namespace solscope::inject {

/// What the writer did so far.
struct WriterStats {
  std::uint64_t frames_sent = 0;
  std::uint64_t frames_dropped = 0;  ///< frames lost to a full (or closed) pipe
  std::uint64_t kernels_sent = 0;
  std::uint64_t kernels_dropped = 0;  ///< kernels in the dropped frames (Dropped::pipe_full)
  bool broken = false;  ///< the pipe failed for good (EPIPE, EBADF): nothing is written any more
};

/// Not thread-safe: the library holds a lock around it. The fd is made non-blocking (O_NONBLOCK) and left
/// open.
class PipeWriter final : public RecordSink {
 public:
  PipeWriter(int fd, std::int32_t pid);
  /// Adds a record; writes the frame when it is full. Hello, Device and Clock records are also kept to
  /// re-send.
  void on_record(const RecordBody& body) override;
  /// Adds `n` records CUPTI reported dropped (cuptiActivityGetNumDroppedRecords).
  void add_cupti_dropped(std::uint64_t n);
  /// Appends the drop totals when they changed since last sent, then writes the partial frame.
  void flush();
  [[nodiscard]] auto stats() const -> const WriterStats& { return stats_; }
  /// errno of the write that broke the pipe, 0 while it works.
  [[nodiscard]] auto broken_errno() const -> int { return broken_errno_; }

 private:
  void add(const RecordBody& body);
  void send_frame();
  void add_resend();
  void remember(const RecordBody& body);

  int fd_;
  FrameEncoder encoder_;
  std::size_t kernels_in_frame_ = 0;
  bool resend_pending_ = false;  ///< a frame was dropped: re-send the sticky records and the totals
  bool resend_in_frame_ = false;
  std::optional<Dropped> dropped_in_frame_;  ///< the totals the frame being built carries
  std::optional<Hello> hello_;
  std::vector<Device> devices_;
  std::optional<Clock> clock_;
  Dropped dropped_;
  Dropped dropped_sent_;
  WriterStats stats_;
  int broken_errno_ = 0;
};

/// One write(2) of `frame` to a non-blocking pipe, retried on EINTR, with SIGPIPE held off for the calling
/// thread (a closed reader gives EPIPE, never a signal that would kill the workload). Returns 0 or the errno.
[[nodiscard]] auto write_frame(int fd, std::span<const std::uint8_t> frame) -> int;

}  // namespace solscope::inject
