// The state of a trace::Writer (writer.cpp), in a header of its own so that writer.cpp stays one screenful of
// jobs: the buffered rows, the clocks that keep the file in time order, the statements and the lock.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/kernel_record.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "core/sol_terms.hpp"
#include "trace/detail/columns.hpp"
#include "trace/detail/file_lock.hpp"
#include "trace/detail/sqlite.hpp"
#include "trace/detail/workload_rows.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {
namespace detail {

/// One buffered sample: what the two INSERTs need.
struct WriterRow {
  core::RawSample raw;
  double compute_sol_pct = core::kUnknown;
  double memory_sol_pct = core::kUnknown;
  core::Pipe compute_pipe = core::Pipe::kCount;
  core::MemPath memory_path = core::MemPath::kCount;
  core::Bound bound = core::Bound::Unknown;
  std::array<double, detail::kFigureColumnCount> figures{};
};

/// The error of every call on a moved-from Writer (FailedPrecondition).
[[nodiscard]] auto moved_from_error() -> core::Error;

/// Marks a device announced by write_devices() that has delivered no sample yet.
constexpr std::int64_t kNoSampleYet = std::numeric_limits<std::int64_t>::min();

/// The newest t_start_ns appended for one device (kNoSampleYet before its first).
struct DeviceClock {
  std::uint32_t device = 0;
  std::int64_t last_t_start_ns = kNoSampleYet;
};
}  // namespace detail

struct Writer::Impl {
  std::filesystem::path path;
  WriterOptions options;
  detail::FileLock lock;  ///< declared before `db`: released after the connection closes (file_lock.hpp)
  bool created = false;   ///< this Writer created the file (detail::PreparedFile::created)
  detail::Connection db;
  detail::Statement insert_sample;
  detail::Statement insert_counters;
  detail::Statement mark_unordered;
  detail::Statement insert_kernel;
  detail::Statement insert_marker;
  detail::WorkloadRows workload_rows;
  /// Taken by every public method: add_workloads() comes from another thread than the samples.
  std::mutex mutex;
  std::vector<detail::WriterRow> pending;
  std::vector<detail::WorkloadChange> pending_workloads;  ///< committed whole at the next commit, in order
  /// The error of a commit that add_workloads() met, for the sampling thread's next call (stop()).
  std::optional<core::Error> unreported;
  std::vector<core::KernelRecord> pending_kernels;  ///< committed whole at the next commit (any order)
  std::vector<core::MarkerRecord> pending_markers;  ///< committed whole at the next commit (any order)
  std::vector<std::uint32_t> order;                 ///< scratch for commit(): pending indices in time order
  std::vector<char> keep;                           ///< scratch for commit(): 1 for rows held back
  std::vector<detail::DeviceClock> clocks;
  std::uint64_t committed = 0;
  std::uint64_t committed_kernels = 0;
  /// max end_ns of the kernel records and markers at the last commit
  std::int64_t kernel_mark_ns = std::numeric_limits<std::int64_t>::min();
  /// max end_ns of the kernel records and markers appended
  std::int64_t max_kernel_end_ns = std::numeric_limits<std::int64_t>::min();
  std::size_t appended_since_commit = 0;
  std::int64_t commit_mark_ns = std::numeric_limits<std::int64_t>::min();
  /// Wall time of the last commit (of the first sample or kernel record before the first commit).
  std::chrono::steady_clock::time_point commit_wall = std::chrono::steady_clock::now();
  std::int64_t max_t_start_ns = std::numeric_limits<std::int64_t>::min();
  std::int64_t first_t_start_ns = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_t_end_ns = std::numeric_limits<std::int64_t>::min();
  std::int64_t last_committed_t_start_ns = std::numeric_limits<std::int64_t>::min();
  bool time_ordered = true;
  bool closed = false;
  bool stopped = false;             ///< a write failed: nothing more is written (stop())
  bool attainable_flagged = false;  ///< meta has_attainable is written
  bool pause_flagged = false;       ///< meta has_pm_pause is written

  void note_clock(const core::RawSample& raw);
  /// True when a commit is due by time: `sample_span_ns` (sample or kernel time since the last commit) and
  /// the wall time since the last commit have both reached batch_span_ns.
  [[nodiscard]] auto span_due(std::int64_t sample_span_ns) const -> bool;
  /// INSERT OR REPLACE of one meta row, committed at once (autocommit: no transaction is open between
  /// batches).
  auto write_meta(std::string_view key, std::string_view value) -> core::Result<void>;
  [[nodiscard]] auto cutoff_ns(bool force) const -> std::int64_t;
  [[nodiscard]] auto commit(bool force) -> core::Result<void>;
  /// Sorts `order` over pending and returns how many of its first rows are ready to commit.
  [[nodiscard]] auto ready_rows(bool force) -> std::size_t;
  /// Keeps the pending rows past the first `ready` of `order` (the held-back ones).
  void keep_held_back(std::size_t ready);
  [[nodiscard]] auto insert_rows(std::span<const std::uint32_t> rows) -> core::Result<void>;
  [[nodiscard]] auto insert_row(const detail::WriterRow& row) -> core::Result<void>;
  /// Ends the recording after a failed write: drops the buffered samples and returns the one error to
  /// report, which says what failed, how many samples the file keeps and how many were not saved.
  [[nodiscard]] auto stop(const core::Error& cause) -> core::Error;
  /// The error of a write call after close() or stop(); empty when writing may go on.
  [[nodiscard]] auto unusable() const -> std::optional<core::Error>;
  /// unusable(), but first, once, the error add_workloads() met on another thread.
  [[nodiscard]] auto check_usable() -> std::optional<core::Error>;
  /// Ends the open workload rows at the last sample's end, in one transaction (close()).
  [[nodiscard]] auto end_workloads() -> core::Result<void>;
  /// Buffers `end_ns` as kernel-log time (kernel records and markers): the first one starts the span of the
  /// next commit (append_kernels, append_markers).
  void note_kernel_log_end(std::int64_t end_ns);
  /// The one path of kernel-log records (append_kernels, append_markers): refuses the whole batch when a
  /// record ends before it starts (`refusal(record)` is the error), buffers the others in `buffer`
  /// (pending_kernels or pending_markers) with `clip(kept)` applied, and commits when a batch is due
  /// (batch_samples buffered, or batch_span_ns of kernel-log time and wall time). Caller holds `mutex` and
  /// checked check_usable().
  template <class Record, class Refusal, class Clip>
  [[nodiscard]] auto buffer_kernel_log(std::span<const Record> records, std::vector<Record>& buffer,
                                       const Refusal& refusal, const Clip& clip) -> core::Result<void> {
    for (const Record& r : records) {
      if (r.end_ns < r.start_ns) return core::fail(refusal(r));
    }
    for (const Record& r : records) {
      clip(buffer.emplace_back(r));
      note_kernel_log_end(r.end_ns);
    }
    if (buffer.size() >= options.batch_samples || span_due(max_kernel_end_ns - kernel_mark_ns)) {
      return commit(false);
    }
    return core::ok();
  }
  /// Prepares the statements reused for every sample.
  [[nodiscard]] auto prepare_statements() -> core::Result<void>;
};

}  // namespace solscope::trace
