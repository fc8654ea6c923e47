#include "trace/writer.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "core/sol_terms.hpp"
#include "trace/detail/columns.hpp"
#include "trace/detail/disk_room.hpp"
#include "trace/detail/kernel_rows.hpp"
#include "trace/detail/marker_rows.hpp"
#include "trace/detail/sqlite.hpp"
#include "trace/detail/workload_rows.hpp"
#include "trace/detail/writer_impl.hpp"
#include "trace/detail/writer_setup.hpp"
#include "trace/schema.hpp"

namespace solscope::trace {
namespace {

/// The hint of every error that a full disk caused.
constexpr const char* kDiskFullHint = "free space on that filesystem and record again";

auto make_row(const core::RawSample& raw, const core::SolSample& sol) -> detail::WriterRow {
  detail::WriterRow row;
  row.raw = raw;
  row.compute_sol_pct = sol.compute_sol_pct;
  row.memory_sol_pct = sol.memory_sol_pct;
  row.compute_pipe = sol.compute_pipe;
  row.memory_path = sol.memory_path;
  row.bound = sol.bound;
  const auto columns = detail::figure_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) row.figures[i] = columns[i].get(sol);
  return row;
}

}  // namespace

auto Writer::Impl::stop(const core::Error& failure) -> core::Error {
  const core::Error cause = detail::classify_write_error(failure, path);
  stopped = true;
  const std::size_t lost = pending.size();
  const std::size_t lost_kernels = pending_kernels.size();
  const std::size_t lost_workloads = pending_workloads.size();
  const std::size_t lost_markers = pending_markers.size();
  pending.clear();
  pending_kernels.clear();
  pending_markers.clear();
  pending_workloads.clear();
  std::string message = "recording to trace " + path.string() + " stopped: " + cause.message + "; ";
  if (committed == 0 && committed_kernels == 0) {
    message += created ? "no sample was saved, the empty trace is removed" : "no sample was saved";
  } else {
    message += "the trace keeps the " + std::to_string(committed) + " samples committed before";
    if (committed_kernels > 0) message += " and " + std::to_string(committed_kernels) + " kernel records";
    if (lost > 0) message += ", " + std::to_string(lost) + " buffered samples were not saved";
  }
  if (lost_kernels > 0)
    message += ", " + std::to_string(lost_kernels) + " buffered kernel records were not saved";
  if (lost_workloads > 0)
    message += ", " + std::to_string(lost_workloads) + " workload changes were not saved";
  if (lost_markers > 0) message += ", " + std::to_string(lost_markers) + " NVTX markers were not saved";
  std::string hint = cause.code == core::ErrorCode::ResourceExhausted
                         ? std::string(kDiskFullHint)
                         : "check the disk and its permissions, and record again";
  return core::Error{cause.code, std::move(message), std::move(hint)};
}

auto Writer::Impl::unusable() const -> std::optional<core::Error> {
  if (closed) {
    return core::Error{
        core::ErrorCode::FailedPrecondition, "trace " + path.string() + " is already closed", {}};
  }
  if (stopped) {
    return core::Error{core::ErrorCode::FailedPrecondition,
                       "recording to trace " + path.string() + " stopped after an earlier error",
                       {}};
  }
  return std::nullopt;
}

auto Writer::Impl::check_usable() -> std::optional<core::Error> {
  if (unreported) {
    std::optional<core::Error> error = std::move(unreported);
    unreported.reset();
    return error;
  }
  return unusable();
}

auto detail::moved_from_error() -> core::Error {
  return core::Error{core::ErrorCode::FailedPrecondition, "this trace writer was moved from",
                     "use the Writer it was moved to"};
}

void Writer::Impl::note_kernel_log_end(std::int64_t end_ns) {
  max_kernel_end_ns = std::max(max_kernel_end_ns, end_ns);
  if (kernel_mark_ns != std::numeric_limits<std::int64_t>::min()) return;
  kernel_mark_ns = end_ns;
  if (commit_mark_ns == std::numeric_limits<std::int64_t>::min())
    commit_wall = std::chrono::steady_clock::now();
}

void Writer::Impl::note_clock(const core::RawSample& raw) {
  max_t_start_ns = std::max(max_t_start_ns, raw.t_start_ns);
  first_t_start_ns = std::min(first_t_start_ns, raw.t_start_ns);
  max_t_end_ns = std::max(max_t_end_ns, raw.t_end_ns);
  if (commit_mark_ns == std::numeric_limits<std::int64_t>::min()) {
    commit_mark_ns = raw.t_start_ns;
    commit_wall = std::chrono::steady_clock::now();
  }
  for (detail::DeviceClock& clock : clocks) {
    if (clock.device == raw.device_index) {
      clock.last_t_start_ns = std::max(clock.last_t_start_ns, raw.t_start_ns);
      return;
    }
  }
  clocks.push_back({raw.device_index, raw.t_start_ns});
}

auto Writer::Impl::cutoff_ns(bool force) const -> std::int64_t {
  if (force || pending.size() >= 4 * options.batch_samples) return std::numeric_limits<std::int64_t>::max();
  // A live device may still deliver samples as old as its newest one; everything up to the oldest such
  // "newest" can be committed without breaking time order. An announced device without samples yet counts as
  // having one at the first sample time, so it is waited for during the first reorder window.
  const std::int64_t live_after = max_t_start_ns - options.reorder_window_ns;
  std::int64_t cutoff = std::numeric_limits<std::int64_t>::max();
  for (const detail::DeviceClock& clock : clocks) {
    const std::int64_t last =
        clock.last_t_start_ns == detail::kNoSampleYet ? first_t_start_ns : clock.last_t_start_ns;
    if (last >= live_after) cutoff = std::min(cutoff, last);
  }
  return cutoff;
}

auto Writer::Impl::insert_row(const detail::WriterRow& row) -> core::Result<void> {
  sqlite3_stmt* s = insert_sample.get();
  const core::RawSample& raw = row.raw;
  sqlite3_bind_int64(s, 1, raw.device_index);
  sqlite3_bind_int64(s, 2, raw.t_start_ns);
  sqlite3_bind_int64(s, 3, raw.t_end_ns);
  detail::bind_text_or_null(s, 4, core::to_string(raw.source));
  sqlite3_bind_int64(s, 5, raw.flags);
  detail::bind_real_or_null(s, 6, row.compute_sol_pct);
  detail::bind_text_or_null(s, 7,
                            row.compute_pipe == core::Pipe::kCount ? "" : core::to_string(row.compute_pipe));
  detail::bind_real_or_null(s, 8, row.memory_sol_pct);
  detail::bind_text_or_null(s, 9,
                            row.memory_path == core::MemPath::kCount ? "" : core::to_string(row.memory_path));
  detail::bind_text_or_null(s, 10, core::to_string(row.bound));
  for (std::size_t i = 0; i < row.figures.size(); ++i) {
    detail::bind_real_or_null(s, detail::kFirstFigureParam + static_cast<int>(i), row.figures[i]);
  }
  detail::bind_text_or_null(s, detail::kPmPauseParam,
                            raw.pm_pause == core::PmPauseReason::kNone ? "" : core::to_string(raw.pm_pause));
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) return core::fail(detail::sqlite_error(db.get(), rc, "cannot insert a sample"));

  std::array<unsigned char, core::kMetricCount * detail::kRawValueBytes> blob{};
  detail::encode_raw(raw.values, blob);
  sqlite3_stmt* c = insert_counters.get();
  sqlite3_bind_int64(c, 1, sqlite3_last_insert_rowid(db.get()));
  sqlite3_bind_blob(c, 2, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC);
  rc = sqlite3_step(c);
  sqlite3_reset(c);
  if (rc != SQLITE_DONE)
    return core::fail(detail::sqlite_error(db.get(), rc, "cannot insert sample counters"));
  return core::ok();
}

auto Writer::Impl::insert_rows(std::span<const std::uint32_t> rows) -> core::Result<void> {
  for (const std::uint32_t i : rows) {
    const detail::WriterRow& row = pending[i];
    if (row.raw.t_start_ns < last_committed_t_start_ns && time_ordered) {
      const int rc = sqlite3_step(mark_unordered.get());
      sqlite3_reset(mark_unordered.get());
      if (rc != SQLITE_DONE)
        return core::fail(detail::sqlite_error(db.get(), rc, "cannot update trace meta"));
      time_ordered = false;
    }
    last_committed_t_start_ns = std::max(last_committed_t_start_ns, row.raw.t_start_ns);
    if (auto done = insert_row(row); !done) return done;
  }
  return core::ok();
}

auto Writer::Impl::ready_rows(bool force) -> std::size_t {
  if (pending.empty()) return 0;
  order.resize(pending.size());
  std::iota(order.begin(), order.end(), 0u);
  const auto earlier = [this](std::uint32_t a, std::uint32_t b) {
    return pending[a].raw.t_start_ns < pending[b].raw.t_start_ns;
  };
  if (!std::is_sorted(order.begin(), order.end(), earlier))
    std::stable_sort(order.begin(), order.end(), earlier);
  const std::int64_t cutoff = cutoff_ns(force);
  return static_cast<std::size_t>(
      std::find_if(order.begin(), order.end(),
                   [&](std::uint32_t i) { return pending[i].raw.t_start_ns > cutoff; }) -
      order.begin());
}

void Writer::Impl::keep_held_back(std::size_t ready) {
  // Keep the held-back rows (any order: the next commit sorts) without giving up the buffer's capacity.
  keep.assign(pending.size(), 0);
  for (std::size_t k = ready; k < order.size(); ++k) keep[order[k]] = 1;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (keep[i] != 0) {
      if (kept != i) pending[kept] = pending[i];
      ++kept;
    }
  }
  pending.resize(kept);
}

auto Writer::Impl::span_due(std::int64_t sample_span_ns) const -> bool {
  if (sample_span_ns < options.batch_span_ns) return false;
  const auto wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - commit_wall);
  return wall_ns.count() >= options.batch_span_ns;
}

auto Writer::Impl::commit(bool force) -> core::Result<void> {
  appended_since_commit = 0;
  commit_wall = std::chrono::steady_clock::now();
  commit_mark_ns = max_t_end_ns;
  kernel_mark_ns = max_kernel_end_ns;
  const std::size_t ready = ready_rows(force);
  if (ready == 0 && pending_kernels.empty() && pending_markers.empty() && pending_workloads.empty())
    return core::ok();

  const std::string what = "cannot commit " + std::to_string(ready) + " samples and " +
                           std::to_string(pending_kernels.size()) + " kernel records";
  const bool was_ordered = time_ordered;
  const std::int64_t was_last = last_committed_t_start_ns;
  auto done = detail::exec(db.get(), "BEGIN", what);
  if (done) done = insert_rows(std::span(order).first(ready));
  if (done) done = detail::insert_kernels(db.get(), insert_kernel.get(), pending_kernels);
  if (done) done = detail::insert_markers(db.get(), insert_marker.get(), pending_markers);
  if (done) done = workload_rows.write(db.get(), pending_workloads);
  if (done) done = detail::exec(db.get(), "COMMIT", what);
  if (!done) {
    (void)detail::exec(db.get(), "ROLLBACK", what);  // the first error is the one to report
    time_ordered = was_ordered;
    last_committed_t_start_ns = was_last;
    return core::fail(stop(done.error()));
  }
  committed += ready;
  committed_kernels += pending_kernels.size();
  pending_kernels.clear();
  pending_markers.clear();
  pending_workloads.clear();
  if (ready > 0) keep_held_back(ready);
  return core::ok();
}

Writer::Writer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Writer::Writer(Writer&& other) noexcept = default;
auto Writer::operator=(Writer&& other) noexcept -> Writer& {
  if (this != &other) {
    if (impl_) (void)close();
    impl_ = std::move(other.impl_);
  }
  return *this;
}
Writer::~Writer() {
  if (impl_) (void)close();  // documented: errors of an implicit close are dropped
}

auto Writer::Impl::prepare_statements() -> core::Result<void> {
  sqlite3* conn = db.get();
  auto sample = detail::prepare(conn, detail::kInsertSampleSql, "cannot prepare sample insert", true);
  if (!sample) return core::propagate(sample);
  auto counters = detail::prepare(conn, detail::kInsertCountersSql, "cannot prepare counter insert", true);
  if (!counters) return core::propagate(counters);
  auto unordered = detail::prepare(conn, "UPDATE meta SET value = '0' WHERE key = 'time_ordered'",
                                   "cannot prepare meta update", true);
  if (!unordered) return core::propagate(unordered);
  auto kernel = detail::prepare(conn, detail::insert_kernel_sql(), "cannot prepare kernel insert", true);
  if (!kernel) return core::propagate(kernel);
  auto marker = detail::prepare(conn, detail::insert_marker_sql(), "cannot prepare marker insert", true);
  if (!marker) return core::propagate(marker);
  if (auto workloads = workload_rows.prepare(conn); !workloads) return workloads;
  insert_kernel = std::move(*kernel);
  insert_marker = std::move(*marker);
  insert_sample = std::move(*sample);
  insert_counters = std::move(*counters);
  mark_unordered = std::move(*unordered);
  return core::ok();
}

auto Writer::open(const std::filesystem::path& path, const WriterOptions& options) -> core::Result<Writer> {
  if (options.batch_samples == 0 || options.batch_span_ns <= 0 || options.reorder_window_ns < 0) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "trace batching must be at least 1 sample and 1 ns with a reorder window >= 0 (got " +
                          std::to_string(options.batch_samples) + " samples, " +
                          std::to_string(options.batch_span_ns) + " ns, " +
                          std::to_string(options.reorder_window_ns) + " ns)");
  }
  auto prepared = detail::prepare_trace_file(path, options.overwrite);
  if (!prepared) return core::propagate(prepared);
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->options = options;
  impl->created = prepared->created;
  impl->lock = std::move(prepared->lock);
  auto db = detail::create_trace_database(path, options);
  auto ready = db ? core::Result<void>{} : core::Result<void>{core::propagate(db)};
  if (ready) {
    impl->db = std::move(*db);
    ready = impl->prepare_statements();
  }
  if (!ready) {
    // A file this call created and could not set up (e.g. a full disk) is removed, not left empty. The
    // statements are still empty here (prepare_statements() sets them only all together, on success).
    core::Error error = detail::classify_write_error(ready.error(), path);
    impl->db.reset();
    if (impl->created) {
      detail::remove_trace_files(path);
      error.message += " (the new file was removed)";
    }
    if (error.hint.empty() && error.code == core::ErrorCode::ResourceExhausted) error.hint = kDiskFullHint;
    return core::fail(std::move(error));
  }
  impl->pending.reserve(options.batch_samples);
  return Writer(std::move(impl));
}

auto Writer::write_devices(std::span<const core::DeviceInfo> devices) -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  const std::scoped_lock lock(impl_->mutex);
  if (auto error = impl_->check_usable()) return core::fail(*error);
  if (auto done = detail::write_device_rows(impl_->db.get(), devices, "cannot write the devices"); !done) {
    return core::fail(impl_->stop(done.error()));
  }
  for (const core::DeviceInfo& device : devices) {
    const bool known = std::any_of(impl_->clocks.begin(), impl_->clocks.end(),
                                   [&](const auto& clock) { return clock.device == device.index; });
    if (!known) impl_->clocks.push_back({device.index, detail::kNoSampleYet});
  }
  return core::ok();
}

auto Writer::Impl::write_meta(std::string_view key, std::string_view value) -> core::Result<void> {
  auto done = detail::write_meta_row(db.get(), key, value, "cannot write meta key " + std::string(key));
  if (!done) return core::fail(stop(done.error()));
  return done;
}

auto Writer::set_metadata(std::string_view key, std::string_view value) -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  const std::scoped_lock lock(impl_->mutex);
  if (auto error = impl_->check_usable()) return core::fail(*error);
  constexpr std::string_view kReserved[] = {
      kMetaSchemaVersion,  kMetaOldestReadableVersion, kMetaToolVersion,
      kMetaHost,           kMetaStartTimeNs,           kMetaSynthetic,
      kMetaTimeOrdered,    kMetaHasAttainable,         kMetaHasPmPause,
      kMetaKernelLog,      kMetaKernelClockOffsetNs,   kMetaKernelsDropped,
      kMetaWorkloadRefresh};
  if (key.empty() || std::find(std::begin(kReserved), std::end(kReserved), key) != std::end(kReserved)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "trace meta key \"" + std::string(key) + "\" is reserved or empty",
                      "use another key name");
  }
  return impl_->write_meta(key, value);
}

auto Writer::append(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  Impl& w = *impl_;
  const std::scoped_lock lock(w.mutex);
  if (auto error = w.check_usable()) return core::fail(*error);
  if (sol.device_index != raw.device_index || sol.t_start_ns != raw.t_start_ns ||
      sol.t_end_ns != raw.t_end_ns) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "sample of device " + std::to_string(raw.device_index) + " at " +
                          std::to_string(raw.t_start_ns) + " ns paired with figures of device " +
                          std::to_string(sol.device_index) + " at " + std::to_string(sol.t_start_ns) + " ns",
                      "pass the SolSample derived from this RawSample");
  }
  if (!w.attainable_flagged &&
      (!std::isnan(sol.attainable_compute_sol_pct) || !std::isnan(sol.attainable_memory_sol_pct))) {
    // Committed at once, before the sample: a reader that sees the sample also sees the flag.
    if (auto flagged = w.write_meta(kMetaHasAttainable, "1"); !flagged) return flagged;
    w.attainable_flagged = true;
  }
  if (!w.pause_flagged && raw.pm_pause != core::PmPauseReason::kNone) {
    if (auto flagged = w.write_meta(kMetaHasPmPause, "1"); !flagged) return flagged;
    w.pause_flagged = true;
  }
  w.pending.push_back(make_row(raw, sol));
  w.note_clock(raw);
  ++w.appended_since_commit;
  if (w.appended_since_commit >= w.options.batch_samples || w.span_due(w.max_t_end_ns - w.commit_mark_ns)) {
    return w.commit(false);
  }
  return core::ok();
}

auto Writer::append_kernels(std::span<const core::KernelRecord> kernels) -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  Impl& w = *impl_;
  const std::scoped_lock lock(w.mutex);
  if (auto error = w.check_usable()) return core::fail(*error);
  const auto refusal = [](const core::KernelRecord& k) {
    return core::Error{core::ErrorCode::InvalidArgument,
                       "kernel record \"" + k.name.substr(0, 80) + "\" of device " +
                           std::to_string(k.device) + " ends (" + std::to_string(k.end_ns) +
                           " ns) before it starts (" + std::to_string(k.start_ns) + " ns)",
                       "drop incomplete records before appending them"};
  };
  const auto clip = [](core::KernelRecord& k) {
    if (k.name.size() > kMaxKernelNameBytes) k.name = detail::clip_kernel_name(std::move(k.name));
  };
  return w.buffer_kernel_log(kernels, w.pending_kernels, refusal, clip);
}

auto Writer::add_workloads(std::uint32_t device, std::int64_t t_ns, const core::GpuWorkloads& workloads)
    -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  Impl& w = *impl_;
  const std::scoped_lock lock(w.mutex);
  if (auto error = w.unusable()) return core::fail(*error);
  if (!w.workload_rows.changes(device, workloads)) return core::ok();
  w.pending_workloads.push_back({device, t_ns, workloads});
  w.pending_workloads.back().workloads.note.clear();  // not stored
  if (w.pending_workloads.size() < kMaxPendingWorkloadChanges) return core::ok();
  auto done = w.commit(false);
  if (!done) w.unreported = done.error();
  return done;
}

auto Writer::Impl::end_workloads() -> core::Result<void> {
  auto done = detail::exec(db.get(), "BEGIN", "cannot end the workload rows");
  if (done) done = workload_rows.end_all(db.get(), max_t_end_ns);
  if (done) done = detail::exec(db.get(), "COMMIT", "cannot end the workload rows");
  if (done) return done;
  (void)detail::exec(db.get(), "ROLLBACK", "cannot end the workload rows");
  return core::fail(stop(done.error()));
}

auto Writer::set_kernel_log(std::string_view source) -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  const std::scoped_lock lock(impl_->mutex);
  if (auto error = impl_->check_usable()) return core::fail(*error);
  if (source.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "the kernel log source is empty",
                      "name it: \"cupti\" or \"synthetic\"");
  }
  return impl_->write_meta(kMetaKernelLog, source);
}

auto Writer::set_kernel_clock_offset_ns(std::int64_t offset_ns) -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  const std::scoped_lock lock(impl_->mutex);
  if (auto error = impl_->check_usable()) return core::fail(*error);
  return impl_->write_meta(kMetaKernelClockOffsetNs, std::to_string(offset_ns));
}

auto Writer::set_workload_refresh() -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  const std::scoped_lock lock(impl_->mutex);
  if (auto error = impl_->check_usable()) return core::fail(*error);
  return impl_->write_meta(kMetaWorkloadRefresh, "1");
}

auto Writer::set_kernels_dropped(std::uint64_t dropped) -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  const std::scoped_lock lock(impl_->mutex);
  if (auto error = impl_->check_usable()) return core::fail(*error);
  return impl_->write_meta(kMetaKernelsDropped, std::to_string(dropped));
}

auto Writer::flush() -> core::Result<void> {
  if (!impl_) return core::fail(detail::moved_from_error());
  const std::scoped_lock lock(impl_->mutex);
  if (auto error = impl_->check_usable()) return core::fail(*error);
  return impl_->commit(true);
}

auto Writer::close() -> core::Result<void> {
  if (!impl_) return core::ok();  // moved from: nothing is open
  Impl& w = *impl_;
  const std::scoped_lock lock(w.mutex);
  if (w.closed) return core::ok();
  // After stop() the error was reported once already (unless add_workloads() met it on another thread); the
  // buffered samples are gone.
  auto flushed = w.stopped ? core::Result<void>{} : w.commit(true);
  if (flushed && !w.stopped) flushed = w.end_workloads();
  if (flushed && w.unreported) flushed = core::fail(*w.unreported);
  w.unreported.reset();
  w.closed = true;
  w.workload_rows.reset();
  w.insert_sample.reset();
  w.insert_counters.reset();
  w.mark_unordered.reset();
  w.insert_kernel.reset();
  w.insert_marker.reset();
  // Checkpoint and leave WAL mode so that the finished trace is one file. A reader holding the file open
  // makes this fail with SQLITE_BUSY; the trace then simply stays in WAL mode, which every reader handles.
  // After stop() the file stays in WAL mode, not even checkpointed on close: no more writes to a disk that
  // just failed.
  sqlite3_busy_timeout(w.db.get(), 0);
  if (w.stopped) {
    (void)sqlite3_db_config(w.db.get(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  } else {
    (void)detail::exec(w.db.get(), "PRAGMA journal_mode=DELETE", "cannot leave WAL mode");
  }
  const int rc = sqlite3_close(w.db.get());
  if (rc == SQLITE_OK) {
    (void)w.db.release();
    // A recording stopped before its first sample leaves nothing worth keeping. Removed while still locked,
    // so that no other Writer can have taken the path meanwhile.
    if (w.stopped && w.committed == 0 && w.committed_kernels == 0 && w.created)
      detail::remove_trace_files(w.path);
    w.lock.reset();
  }
  if (!flushed) return flushed;
  if (rc != SQLITE_OK) {
    return core::fail(detail::sqlite_error(nullptr, rc, "cannot close trace " + w.path.string()));
  }
  return core::ok();
}

auto Writer::stopped() const -> bool {
  if (!impl_) return false;
  const std::scoped_lock lock(impl_->mutex);
  return impl_->stopped;
}
auto Writer::committed_samples() const -> std::uint64_t {
  if (!impl_) return 0;
  const std::scoped_lock lock(impl_->mutex);
  return impl_->committed;
}
auto Writer::committed_kernels() const -> std::uint64_t {
  if (!impl_) return 0;
  const std::scoped_lock lock(impl_->mutex);
  return impl_->committed_kernels;
}
auto Writer::workload_rows() const -> std::uint64_t {
  if (!impl_) return 0;
  const std::scoped_lock lock(impl_->mutex);
  return impl_->workload_rows.rows();
}
auto Writer::buffered_samples() const -> std::size_t {
  if (!impl_) return 0;
  const std::scoped_lock lock(impl_->mutex);
  return impl_->pending.size();
}
auto Writer::path() const -> const std::filesystem::path& {
  static const std::filesystem::path kNone;
  return impl_ ? impl_->path : kNone;
}

void remove_trace_files(const std::filesystem::path& path) {
  detail::remove_trace_files(path);
}

}  // namespace solscope::trace
