// Damage met while reading: recording where it begins, and stepping over a damaged id range of a
// time-ordered trace so that a read loses only the rows SQLite cannot decode.
//
// A rowid table's leaf pages hold contiguous id ranges, and a seek (`WHERE id >= ?`) descends the b-tree
// from its root, so a seek can land past a damaged leaf or cell even where a forward scan stops at it. The
// first readable id after the damage is found with seeks: doubling steps to some readable id, then a binary
// search back to the first one.
#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "trace/detail/columns.hpp"
#include "trace/detail/reader_state.hpp"

namespace solscope::trace::detail {
namespace {

constexpr std::int64_t kMaxId = std::numeric_limits<std::int64_t>::max();
/// Doubling steps of the search (2^62 ids: any id space).
constexpr int kMaxDoublings = 62;

/// True when the cursor's query, started at `id`, yields a row or ends cleanly.
auto readable_from(CursorState& cursor, std::int64_t id) -> bool {
  sqlite3_stmt* p = cursor.probe.get();
  sqlite3_reset(p);
  sqlite3_bind_int64(p, 1, id);
  const int rc = sqlite3_step(p);
  return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

/// The smallest id > `bad` from which the query reads, up to `max_id` + 1 (past every row); nullopt when
/// none is found.
auto first_readable_after(CursorState& cursor, std::int64_t bad, std::int64_t max_id)
    -> std::optional<std::int64_t> {
  std::int64_t lo = bad;  // reading from lo fails
  std::optional<std::int64_t> good;
  // Distances between ids are taken as unsigned: ids may span the whole int64 range (found by fuzzing).
  const auto distance = [](std::int64_t from, std::int64_t to) {
    return static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from);  // to >= from
  };
  for (int i = 0; i <= kMaxDoublings && !good && lo < max_id; ++i) {
    const std::uint64_t step = std::uint64_t{1} << i;
    const std::int64_t candidate = step >= distance(lo, max_id)
                                       ? max_id
                                       : static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + step);
    if (readable_from(cursor, candidate)) {
      good = candidate;
    } else {
      lo = candidate;
    }
  }
  if (!good) return std::nullopt;
  while (distance(lo, *good) > 1) {
    const std::int64_t mid = std::midpoint(lo, *good);  // no overflow with negative ids
    if (readable_from(cursor, mid)) {
      good = mid;
    } else {
      lo = mid;
    }
  }
  return good;
}

/// Records the rows [first, last] as skipped (the first such range also marks where the damage begins).
void count_skipped(CursorState& cursor, std::int64_t first, std::int64_t last) {
  if (last < first) return;
  ReadReport& report = cursor.report;
  if (report.damaged_ranges == 0) {
    report.first_skipped_id = first;
    report.last_skipped_id = last;
    if (cursor.stepped_any) report.damage_after_ns = cursor.last_end_ns;
  }
  ++report.damaged_ranges;
  // An id range across damaged ids can be absurdly wide (as unsigned: it may span all of int64): never more
  // rows than the table has left.
  const std::uint64_t width = static_cast<std::uint64_t>(last) - static_cast<std::uint64_t>(first) + 1;
  const std::uint64_t sum = report.skipped_rows + width;
  report.skipped_rows = settle_rows(sum < width ? std::numeric_limits<std::uint64_t>::max() : sum,
                                    cursor.kept_rows, cursor.reader->table_rows, false)
                            .skipped;
}

}  // namespace

auto step_over_damage(CursorState& cursor, int rc) -> bool {
  const ReaderState& reader = *cursor.reader;
  sqlite3* db = reader.db.get();
  ReadReport& report = cursor.report;
  if (report.cause.empty()) {
    report.cause = sqlite3_errmsg(db);
    // Rows out of time order are sorted by SQLite, which must read every row before the first is returned.
    if (!cursor.rowid_order)
      report.cause += "; this trace is not in time order, so it is read all or nothing";
  }
  if (!cursor.damage) {
    cursor.damage = sqlite_error(
        db, rc,
        "trace " + reader.path.string() + " cannot be read past sample " + std::to_string(report.samples));
  }
  // The writer numbers rows from 1: with an unknown min(id), the search starts there.
  std::int64_t bad = cursor.last_id == CursorState::kNoId ? 1 : cursor.last_id + 1;
  // Never back: a damaged page can hand out a bogus id, and each resume must lie past the one before (so
  // the read ends).
  if (cursor.resumed_at != CursorState::kNoId) bad = std::max(bad, cursor.resumed_at);
  const std::int64_t max_id = reader.max_id;
  const bool searchable = cursor.rowid_order && is_damage(rc);
  if (searchable && !cursor.probe) {
    if (auto probe = prepare(db, cursor.sql, "probe"); probe) cursor.probe = std::move(*probe);
  }
  std::optional<std::int64_t> resume;
  if (searchable && cursor.probe) {
    // Resume at the failing row itself once (a scan can fail where a seek succeeds); then step past it.
    if (cursor.resumed_at != bad && readable_from(cursor, bad)) {
      resume = bad;
    } else {
      resume = first_readable_after(cursor, bad, max_id);
    }
  }
  if (!resume) {
    report.stopped = true;
    report.stopped_at_id = bad;
    // A time-sorted read fails before its first row (SQLite sorts them all first): nothing to count by id.
    if (cursor.rowid_order && max_id != kMaxId) count_skipped(cursor, bad, max_id);
    return false;
  }
  count_skipped(cursor, bad, std::min(*resume, max_id == kMaxId ? *resume : max_id + 1) - 1);
  cursor.resumed_at = *resume;
  sqlite3_stmt* s = cursor.statement.get();
  sqlite3_reset(s);
  sqlite3_bind_int64(s, 1, *resume);
  return true;
}

void note_unknown_counters(CursorState& cursor, std::int64_t id, std::size_t bytes, bool is_blob) {
  ReadReport& report = cursor.report;
  if (report.unknown_counters++ == 0) report.first_unknown_counters_id = id;
  if (cursor.damage) return;
  const std::string what = is_blob ? std::to_string(bytes) + " bytes" : "not a BLOB";
  cursor.damage =
      core::Error{core::ErrorCode::DataLoss,
                  "trace " + cursor.reader->path.string() + ": the counters of sample " + std::to_string(id) +
                      " are missing or malformed (" + what + ", expected " +
                      std::to_string(cursor.reader->file_to_catalog.size() * kRawValueBytes) + " bytes)",
                  "its values read as unknown"};
}

}  // namespace solscope::trace::detail
