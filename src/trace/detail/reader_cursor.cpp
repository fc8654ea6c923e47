// Cursor mechanics: the sample query for a ReadOptions, stepping with filters, and decoding a row.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

#include "core/sol_terms.hpp"
#include "trace/detail/columns.hpp"
#include "trace/detail/reader_state.hpp"
#include "trace/schema.hpp"

namespace solscope::trace::detail {
namespace {

constexpr std::int64_t kMinNs = std::numeric_limits<std::int64_t>::min();

/// The smallest id from which every row has t_start_ns >= from_ns (rows are in time order): a binary search
/// over ids, each probe one b-tree descent. Falls back to the first id when a probe fails (the scan then
/// filters).
auto first_id_at_or_after(const ReaderState& reader, std::int64_t from_ns) -> std::int64_t {
  auto probe = prepare(reader.db.get(),
                       "SELECT id, t_start_ns FROM samples WHERE id >= ?1 ORDER BY id LIMIT 1", "seek");
  if (!probe || reader.min_id > reader.max_id || reader.max_id == std::numeric_limits<std::int64_t>::max()) {
    return reader.min_id;
  }
  std::int64_t lo = reader.min_id;
  std::int64_t hi = reader.max_id + 1;
  while (lo < hi) {
    // std::midpoint: rowids may be negative, so hi - lo can exceed INT64_MAX (found by fuzzing).
    const std::int64_t mid = std::midpoint(lo, hi);
    sqlite3_stmt* s = probe->get();
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, mid);
    const int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) return reader.min_id;
    // No row at or after `mid`, or the first one starts at or after from_ns: the answer is at or below mid.
    if (rc == SQLITE_ROW && sqlite3_column_int64(s, 1) < from_ns) {
      // A damaged b-tree may answer an id past max(id), or below mid (a bad divider key); the bound still
      // only moves up, past mid, so the search ends (found by fuzzing).
      const std::int64_t id = sqlite3_column_int64(s, 0);
      lo = id < hi ? std::max(id, mid) + 1 : hi;
    } else {
      hi = mid;
    }
  }
  return lo;
}

auto decode_counters(const ReaderState& reader, const void* blob, std::size_t bytes, core::RawSample& out)
    -> bool {
  const std::size_t positions = reader.file_to_catalog.size();
  if (blob == nullptr || bytes != positions * kRawValueBytes) return false;
  const auto* data = static_cast<const unsigned char*>(blob);
  if constexpr (std::endian::native == std::endian::little) {
    if (reader.identity_layout) {
      std::memcpy(out.values.data(), data, bytes);
      return true;
    }
  }
  out.values = core::RawSample::unknown_values();
  for (std::size_t i = 0; i < positions; ++i) {
    const int metric = reader.file_to_catalog[i];
    if (metric >= 0)
      out.values[static_cast<std::size_t>(metric)] = decode_raw_value(data + i * kRawValueBytes);
  }
  return true;
}

}  // namespace

auto make_cursor_state(const std::shared_ptr<const ReaderState>& reader, const ReadOptions& options)
    -> core::Result<std::unique_ptr<CursorState>> {
  auto cursor = std::make_unique<CursorState>();
  cursor->reader = reader;
  cursor->devices = options.devices;
  cursor->from_ns = options.from_ns;
  cursor->to_ns = options.to_ns;
  cursor->rowid_order = reader->metadata.time_ordered;
  cursor->whole_table = options.devices.empty() && options.from_ns == kMinNs &&
                        options.to_ns == std::numeric_limits<std::int64_t>::max();
  cursor->step_limit = step_limit(reader->table_rows);
  cursor->report.table_rows = reader->table_rows;
  std::string sql(reader->has_pm_pause     ? kSelectSamplesWithPauseSql
                  : reader->has_attainable ? kSelectSamplesSql
                                           : kSelectSamplesWithoutAttainableSql);
  sql += cursor->rowid_order
             ? "WHERE s.id >= ?1 ORDER BY s.id"
             : "WHERE s.t_start_ns >= ?1 AND s.t_start_ns < ?2 ORDER BY s.t_start_ns, s.device, s.id";
  auto statement =
      prepare(reader->db.get(), sql, "cannot read the samples of trace " + reader->path.string());
  if (!statement) return core::propagate(statement);
  cursor->statement = std::move(*statement);
  cursor->sql = std::move(sql);
  sqlite3_stmt* s = cursor->statement.get();
  if (cursor->rowid_order) {
    const std::int64_t first_id =
        options.from_ns == kMinNs ? reader->min_id : first_id_at_or_after(*reader, options.from_ns);
    sqlite3_bind_int64(s, 1, options.from_ns == kMinNs ? kMinNs : first_id);
    // The row before the first one this read may return; with an unknown min(id), none is assumed.
    cursor->last_id = first_id == kMinNs ? kMinNs : first_id - 1;
  } else {
    sqlite3_bind_int64(s, 1, options.from_ns);
    sqlite3_bind_int64(s, 2, options.to_ns);
  }
  return cursor;
}

namespace {

/// Counts one damaged row (a value outside its domain, out of order, repeated) and names the first cause.
void count_damaged_row(CursorState& cursor, const char* cause) {
  ++cursor.report.skipped_rows;
  if (cursor.report.cause.empty()) cursor.report.cause = cause;
}

/// True when the identity of the statement's row lies in its domain: a device of the trace, and an interval
/// that does not end before it starts or cover more than kMaxSampleSpanNs.
auto in_domain(const CursorState& cursor, std::int64_t device, std::int64_t t_start_ns, std::int64_t t_end_ns)
    -> bool {
  if (!device_in_trace(device, cursor.reader->devices)) return false;
  if (t_end_ns < t_start_ns) return false;
  // As unsigned: the difference of two damaged times may overflow int64.
  const auto span_ns = static_cast<std::uint64_t>(t_end_ns) - static_cast<std::uint64_t>(t_start_ns);
  return span_ns <= static_cast<std::uint64_t>(kMaxSampleSpanNs);
}

/// Decodes the statement's row (identity, times, counters) into `row`.
void decode_row(const CursorState& cursor, sqlite3_stmt* s, CursorState::Row& row) {
  core::RawSample& out = row.raw;
  out.device_index = static_cast<std::uint32_t>(sqlite3_column_int64(s, kColDevice));
  out.t_start_ns = row.key.t_ns;
  out.t_end_ns = sqlite3_column_int64(s, kColTEnd);
  out.source = core::source_kind_from_string(column_text(s, kColSource)).value_or(core::SourceKind::None);
  out.flags = static_cast<std::uint32_t>(sqlite3_column_int64(s, kColFlags));
  const bool attainable = cursor.reader->has_attainable || cursor.reader->has_pm_pause;
  out.attainable_compute_sol_pct = attainable ? column_real_or_nan(s, kColAttainableCompute) : core::kUnknown;
  out.attainable_memory_sol_pct = attainable ? column_real_or_nan(s, kColAttainableMemory) : core::kUnknown;
  // NULL, or a reason name this build does not know (a newer writer's), reads as kNone; the flags keep
  // kSamplePmPaused either way.
  out.pm_pause =
      cursor.reader->has_pm_pause
          ? core::parse_pm_pause_reason(column_text(s, kColPmPause)).value_or(core::PmPauseReason::kNone)
          : core::PmPauseReason::kNone;
  // A number or NULL where the BLOB belongs must not decode as the digits' bytes; a TEXT of the right length
  // (what SQL such as `substr(raw, ...) || ...` yields) holds the same bytes and decodes.
  const int type = sqlite3_column_type(s, kColRaw);
  row.counters_blob = type == SQLITE_BLOB || type == SQLITE_TEXT;
  const void* blob = row.counters_blob ? sqlite3_column_blob(s, kColRaw) : nullptr;
  row.counter_bytes = static_cast<std::size_t>(sqlite3_column_bytes(s, kColRaw));
  row.counters_ok = decode_counters(*cursor.reader, blob, row.counter_bytes, out);
  if (!row.counters_ok) out.values = core::RawSample::unknown_values();
}

/// Steps the statement to its next row whose values lie in their domain (others are counted as damaged
/// rows) and decodes it into `into`; false at the end or where damage stops the read.
auto read_row(CursorState& cursor, CursorState::Row& into) -> bool {
  sqlite3_stmt* s = cursor.statement.get();
  while (!cursor.ended) {
    if (++cursor.steps > cursor.step_limit) {
      count_damaged_row(cursor, "sample rows repeat (a damaged b-tree page)");
      cursor.report.stopped = true;
      cursor.report.stopped_at_id = cursor.last_id == CursorState::kNoId ? 1 : cursor.last_id + 1;
      cursor.ended = true;
      break;
    }
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE || (rc != SQLITE_ROW && !step_over_damage(cursor, rc))) {
      cursor.ended = true;
      break;
    }
    if (rc != SQLITE_ROW) continue;
    const std::int64_t id = sqlite3_column_int64(s, kColId);
    const std::int64_t device = sqlite3_column_int64(s, kColDevice);
    const std::int64_t t_start_ns = sqlite3_column_int64(s, kColTStart);
    const std::int64_t t_end_ns = sqlite3_column_int64(s, kColTEnd);
    const SteppedRow stepped{id, t_start_ns, t_end_ns};
    if (cursor.rowid_order && stepped == cursor.previous) {
      // A damaged page can hand out one row again and again (found by fuzzing): count it once and seek on.
      count_damaged_row(cursor, "sample ids out of order (a damaged b-tree page)");
      if (id == std::numeric_limits<std::int64_t>::max()) {
        cursor.ended = true;
        break;
      }
      sqlite3_reset(s);
      sqlite3_bind_int64(s, 1, id + 1);
      continue;
    }
    cursor.previous = stepped;
    if (!in_domain(cursor, device, t_start_ns, t_end_ns)) {
      count_damaged_row(cursor, "a sample's device or times lie outside the trace (a damaged row)");
      continue;
    }
    // Resumes after damage start past the largest id read; an id above the table's row count is damage
    // itself and must not move them.
    const auto rows = cursor.reader->table_rows;
    if (id > cursor.last_id && (!rows || id <= static_cast<std::int64_t>(std::min<std::uint64_t>(
                                                   *rows, std::numeric_limits<std::int64_t>::max())))) {
      cursor.last_id = id;
    }
    cursor.last_end_ns = t_end_ns;
    cursor.stepped_any = true;
    into.key = RowKey{id, t_start_ns};
    decode_row(cursor, s, into);
    return true;
  }
  return false;
}

/// Ends the read: the rows it skipped are settled against the table's row count.
void finish(CursorState& cursor) {
  cursor.done = true;
  cursor.has_ahead = false;
  ReadReport& report = cursor.report;
  const bool whole = cursor.whole_table && cursor.ended;
  const SettledRows settled = settle_rows(report.skipped_rows, whole ? report.samples : cursor.kept_rows,
                                          cursor.reader->table_rows, whole);
  report.skipped_rows = settled.skipped;
  report.table_rows = settled.table_rows;
}

}  // namespace

auto step_to_next(CursorState& cursor) -> bool {
  while (!cursor.done) {
    if (!cursor.has_ahead) cursor.has_ahead = read_row(cursor, cursor.rows[cursor.ahead]);
    if (!cursor.has_ahead) break;
    const std::size_t judged = cursor.ahead;
    const CursorState::Row& row = cursor.rows[judged];
    cursor.ahead = 1 - judged;
    cursor.has_ahead = read_row(cursor, cursor.rows[cursor.ahead]);
    // A time-sorted read (SQLite sorts) has no order of ids to keep; rowid order is id and time order.
    if (cursor.rowid_order) {
      const std::optional<RowKey> next =
          cursor.has_ahead ? std::optional<RowKey>(cursor.rows[cursor.ahead].key) : std::nullopt;
      if (!fits_between(cursor.kept, row.key, next, /*time_ordered=*/true)) {
        count_damaged_row(cursor, "sample ids out of order (a damaged b-tree page)");
        continue;
      }
    }
    cursor.kept = row.key;
    ++cursor.kept_rows;
    const std::int64_t t_start_ns = row.key.t_ns;
    if (t_start_ns >= cursor.to_ns) {
      if (cursor.rowid_order && !cursor.whole_table) break;  // time order: no later row is wanted
      continue;
    }
    if (t_start_ns < cursor.from_ns) continue;
    if (!cursor.devices.empty() && std::find(cursor.devices.begin(), cursor.devices.end(),
                                             row.raw.device_index) == cursor.devices.end()) {
      continue;
    }
    cursor.current = judged;
    return true;
  }
  if (!cursor.done) finish(cursor);
  return false;
}

void read_raw(CursorState& cursor, core::RawSample& out) {
  const CursorState::Row& row = cursor.rows[cursor.current];
  out = row.raw;
  if (!row.counters_ok) note_unknown_counters(cursor, row.key.id, row.counter_bytes, row.counters_blob);
  ReadReport& report = cursor.report;
  if (report.samples == 0) report.first_t_start_ns = out.t_start_ns;
  ++report.samples;
}

auto read_stored_figures(CursorState& cursor, core::SolSample& out) -> bool {
  const ReaderState& reader = *cursor.reader;
  if (!cursor.figures) {
    auto statement = prepare(reader.db.get(), kSelectFiguresSql, "figures", true);
    if (!statement) return false;
    cursor.figures = std::move(*statement);
  }
  sqlite3_stmt* f = cursor.figures.get();
  sqlite3_reset(f);
  sqlite3_bind_int64(f, 1, cursor.rows[cursor.current].key.id);
  const bool found = sqlite3_step(f) == SQLITE_ROW;
  if (found) {
    out.compute_sol_pct = column_real_or_nan(f, kFigComputeSol);
    out.compute_pipe = core::pipe_from_string(column_text(f, kFigComputePipe)).value_or(core::Pipe::kCount);
    out.memory_sol_pct = column_real_or_nan(f, kFigMemorySol);
    out.memory_path =
        core::mem_path_from_string(column_text(f, kFigMemoryPath)).value_or(core::MemPath::kCount);
    out.bound = core::bound_from_string(column_text(f, kFigBound)).value_or(core::Bound::Unknown);
    out.dram_bytes_per_s = column_real_or_nan(f, kFigDramBytesPerS);
  }
  sqlite3_reset(f);  // no read of the table stays open between samples
  return found;
}

}  // namespace solscope::trace::detail
