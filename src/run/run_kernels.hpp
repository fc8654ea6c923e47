// `solscope run`: the kernel log. Reads the injection library's pipe (src/inject/kernel_wire.hpp) on a
// thread of its own, maps each kernel to its NVML index and the samples' clock (and each NVTX marker to the
// clock), and appends the records to the trace through a bounded queue that drops its oldest records
// (counted) rather than ever stall the pipe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "core/bounded_queue.hpp"
#include "core/guarded_run.hpp"
#include "core/kernel_record.hpp"
#include "inject/kernel_wire.hpp"
#include "run/run_sink.hpp"

namespace solscope::app {

/// GPU UUID as NVML spells it ("GPU-xxxxxxxx-...") -> NVML index.
using GpuUuidIndex = std::map<std::string, std::uint32_t, std::less<>>;

/// One record queued between the pipe's reader and the trace.
using KernelLogRecord = std::variant<core::KernelRecord, core::MarkerRecord>;

/// Turns wire records into core::KernelRecords and core::MarkerRecords: per process, the latest Clock gives
/// the offset to CLOCK_REALTIME and its Device records the CUDA device -> GPU UUID -> NVML index mapping.
/// Pure; one thread.
class KernelRecordMapper {
 public:
  explicit KernelRecordMapper(GpuUuidIndex uuids) : uuids_(std::move(uuids)) {}
  /// Maps `record`: a Kernel gives a KernelRecord when its process has sent a Clock and a Device for its
  /// CUDA device whose UUID is in the index, otherwise it is counted in unmapped(); a Marker gives a
  /// MarkerRecord when its process has sent a Clock, otherwise it is counted in unmapped_markers(). Other
  /// records update the state and give nothing.
  auto map(const inject::WireRecord& record) -> std::optional<KernelLogRecord>;
  /// Markers that came before their process's first Clock.
  [[nodiscard]] auto unmapped_markers() const -> std::uint64_t { return unmapped_markers_; }
  /// Kernel records the job's processes said they lost (sum over processes of their latest Dropped totals).
  [[nodiscard]] auto dropped_by_job() const -> std::uint64_t;
  /// Kernels that could not be placed: no Clock yet, or a CUDA device without a known UUID.
  [[nodiscard]] auto unmapped() const -> std::uint64_t { return unmapped_; }
  /// The offset of the latest Clock of any process (CLOCK_REALTIME ns - CUPTI ns); nullopt before one.
  [[nodiscard]] auto clock_offset_ns() const -> std::optional<std::int64_t> { return offset_ns_; }
  /// Processes that sent anything.
  [[nodiscard]] auto processes() const -> std::size_t { return per_pid_.size(); }

 private:
  struct Process {
    std::optional<std::int64_t> offset_ns;
    std::map<std::uint32_t, std::uint32_t> nvml_of_cuda;  ///< CUDA device id -> NVML index
    std::set<std::uint32_t> unknown_cuda;                 ///< CUDA devices whose UUID NVML does not list
    inject::Dropped dropped;
  };
  GpuUuidIndex uuids_;
  std::map<std::int32_t, Process> per_pid_;
  std::optional<std::int64_t> offset_ns_;
  std::uint64_t unmapped_ = 0;
  std::uint64_t unmapped_markers_ = 0;
};

/// What the kernel log did, for the trace's meta and the summary.
struct KernelLogCounts {
  std::uint64_t written = 0;           ///< kernel records appended to the trace
  std::uint64_t markers_written = 0;   ///< NVTX ranges and marks appended to the trace (markers table)
  std::uint64_t unmapped_markers = 0;  ///< NVTX markers without a clock (not in dropped(): not kernels)
  std::uint64_t dropped_by_job = 0;    ///< lost in the job (full pipe, CUPTI without buffers)
  /// Kernel-log records (kernels or NVTX markers: the queue holds both) dropped by the recorder's full queue.
  std::uint64_t dropped_here = 0;
  std::uint64_t unmapped = 0;  ///< without a clock or a known GPU
  std::optional<std::int64_t> clock_offset_ns;
  std::size_t processes = 0;
  std::string wire_problem;  ///< the decoder's first complaint ("" when the stream was clean)
  /// Every record lost before the trace: the meta kernels_dropped.
  [[nodiscard]] auto dropped() const -> std::uint64_t { return dropped_by_job + dropped_here + unmapped; }
};

/// Reads `read_fd` (the pipe's read end, owned and closed here) until end-of-file or finish(). Both threads
/// (the pipe's reader, the trace's writer) run under core::guarded_run: an exception stops that thread only,
/// is booked in core::thread_faults(), and finish() keeps it as error() (Internal "the kernel log's pipe
/// reader stopped: <what>" or "the kernel log's trace writer stopped: <what>"); the job goes on.
class KernelLog {
 public:
  /// Records queued between the pipe's reader and the trace (kernels or markers, about 200 bytes each:
  /// 13 MiB).
  static constexpr std::size_t kQueueRecords = 65536;

  /// `on_device` is called (from the log's thread) with the NVML index of every kernel written.
  KernelLog(int read_fd, GpuUuidIndex uuids, SharedWriter& writer,
            std::function<void(std::uint32_t)> on_device, std::size_t queue_records = kQueueRecords);
  KernelLog(const KernelLog&) = delete;
  auto operator=(const KernelLog&) -> KernelLog& = delete;
  /// finish(0) when still running.
  ~KernelLog();

  /// Starts the reader and writer threads.
  void start();
  /// Waits up to `grace_ms` for end-of-file (every process of the job has closed the pipe; a daemon it left
  /// behind may keep it open) or a reader that stopped on a fault, then stops reading, writes what is queued
  /// and joins. Idempotent. Returns the counts; an append error (the trace writer stopped) or a thread's
  /// fault is kept in error().
  auto finish(std::int64_t grace_ms) -> KernelLogCounts;
  /// True once the reader has seen end-of-file and queued every record (the writer thread may still be
  /// appending them).
  [[nodiscard]] auto reached_end_of_file() const -> bool { return eof_.load(); }
  /// The first failed append or thread fault, if any; read it after finish().
  [[nodiscard]] auto error() const -> const std::optional<core::Error>& { return error_; }

 private:
  void read_loop();
  void write_loop();
  void keep_fault(const core::ThreadFault& fault);

  int fd_;
  KernelRecordMapper mapper_;
  inject::StreamDecoder decoder_;
  SharedWriter& writer_;
  std::function<void(std::uint32_t)> on_device_;
  core::BoundedQueue<KernelLogRecord> queue_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> eof_{false};
  core::ThreadFault reader_fault_;
  core::ThreadFault writer_fault_;
  std::thread reader_;
  std::thread writer_thread_;
  bool finished_ = false;
  std::uint64_t written_ = 0;
  std::uint64_t markers_written_ = 0;
  std::optional<core::Error> error_;
};

}  // namespace solscope::app
