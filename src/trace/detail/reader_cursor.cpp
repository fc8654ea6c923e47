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
  std::string sql(reader->has_attainable ? kSelectSamplesSql : kSelectSamplesWithoutAttainableSql);
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

auto step_to_next(CursorState& cursor) -> bool {
  sqlite3_stmt* s = cursor.statement.get();
  while (!cursor.done) {
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) {
      cursor.done = true;
      break;
    }
    if (rc != SQLITE_ROW) {
      if (step_over_damage(cursor, rc)) continue;
      cursor.done = true;
      break;
    }
    const std::int64_t id = sqlite3_column_int64(s, kColId);
    if (cursor.rowid_order && cursor.last_id != CursorState::kNoId && id <= cursor.last_id) {
      // `ORDER BY s.id` walks the rowid b-tree upwards; an id that does not rise is a damaged page, where a
      // duplicate rowid can make SQLite hand out the same row forever (found by fuzzing). Step over it as
      // damage: the read resumes past the last good id.
      if (cursor.report.cause.empty())
        cursor.report.cause = "sample ids out of order (a damaged b-tree page)";
      ++cursor.report.skipped_rows;
      if (step_over_damage(cursor, SQLITE_CORRUPT)) continue;
      cursor.done = true;
      break;
    }
    cursor.last_id = id;
    const std::int64_t t_start_ns = sqlite3_column_int64(s, kColTStart);
    if (t_start_ns >= cursor.to_ns) {
      if (cursor.rowid_order) cursor.done = true;
      continue;
    }
    if (t_start_ns < cursor.from_ns) continue;
    cursor.row_t_start_ns = t_start_ns;
    if (!cursor.devices.empty()) {
      const auto device = static_cast<std::uint32_t>(sqlite3_column_int64(s, kColDevice));
      if (std::find(cursor.devices.begin(), cursor.devices.end(), device) == cursor.devices.end()) continue;
    }
    return true;
  }
  return false;
}

void read_raw(CursorState& cursor, core::RawSample& out) {
  sqlite3_stmt* s = cursor.statement.get();
  out.device_index = static_cast<std::uint32_t>(sqlite3_column_int64(s, kColDevice));
  out.t_start_ns = cursor.row_t_start_ns;
  out.t_end_ns = sqlite3_column_int64(s, kColTEnd);
  out.source = core::source_kind_from_string(column_text(s, kColSource)).value_or(core::SourceKind::None);
  out.flags = static_cast<std::uint32_t>(sqlite3_column_int64(s, kColFlags));
  const bool attainable = cursor.reader->has_attainable;
  out.attainable_compute_sol_pct = attainable ? column_real_or_nan(s, kColAttainableCompute) : core::kUnknown;
  out.attainable_memory_sol_pct = attainable ? column_real_or_nan(s, kColAttainableMemory) : core::kUnknown;
  // A number or NULL where the BLOB belongs must not decode as the digits' bytes; a TEXT of the right length
  // (what SQL such as `substr(raw, ...) || ...` yields) holds the same bytes and decodes.
  const int type = sqlite3_column_type(s, kColRaw);
  const bool is_blob = type == SQLITE_BLOB || type == SQLITE_TEXT;
  const void* blob = is_blob ? sqlite3_column_blob(s, kColRaw) : nullptr;
  const auto bytes = static_cast<std::size_t>(sqlite3_column_bytes(s, kColRaw));
  if (!decode_counters(*cursor.reader, blob, bytes, out)) {
    out.values = core::RawSample::unknown_values();
    note_unknown_counters(cursor, sqlite3_column_int64(s, kColId), bytes, is_blob);
  }
  ReadReport& report = cursor.report;
  if (report.samples == 0) report.first_t_start_ns = out.t_start_ns;
  ++report.samples;
  cursor.last_end_ns = out.t_end_ns;
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
  sqlite3_bind_int64(f, 1, sqlite3_column_int64(cursor.statement.get(), kColId));
  if (sqlite3_step(f) != SQLITE_ROW) return false;
  out.compute_sol_pct = column_real_or_nan(f, kFigComputeSol);
  out.compute_pipe = core::pipe_from_string(column_text(f, kFigComputePipe)).value_or(core::Pipe::kCount);
  out.memory_sol_pct = column_real_or_nan(f, kFigMemorySol);
  out.memory_path =
      core::mem_path_from_string(column_text(f, kFigMemoryPath)).value_or(core::MemPath::kCount);
  out.bound = core::bound_from_string(column_text(f, kFigBound)).value_or(core::Bound::Unknown);
  out.dram_bytes_per_s = column_real_or_nan(f, kFigDramBytesPerS);
  return true;
}

}  // namespace solscope::trace::detail
