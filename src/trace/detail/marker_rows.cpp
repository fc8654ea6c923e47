#include "trace/detail/marker_rows.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "trace/detail/id_scan.hpp"
#include "trace/schema.hpp"

namespace solscope::trace::detail {
namespace {

#define SOLSCOPE_MARKER_NAME(name, type) ", " #name
#define SOLSCOPE_MARKER_PARAM(name, type) ", ?"
/// The marker columns, comma-separated (", pid, tid, ..." with the leading ", " cut).
constexpr std::string_view kColumns = SOLSCOPE_TRACE_MARKER_COLUMNS(SOLSCOPE_MARKER_NAME);
constexpr std::string_view kParams = SOLSCOPE_TRACE_MARKER_COLUMNS(SOLSCOPE_MARKER_PARAM);
#undef SOLSCOPE_MARKER_NAME
#undef SOLSCOPE_MARKER_PARAM

/// The scan's SELECT: IdScan wants the id in column 0 and the row's times in columns 2 and 3.
constexpr const char* kSelectSql =
    "SELECT id, pid, start_ns, end_ns, tid, depth, domain, name FROM markers WHERE id > ?1 ORDER BY id";

/// The markers table's name and damage wording for its IdScan.
constexpr IdScanWords kWords{"markers", "marker rows repeat (a damaged b-tree page)",
                             "marker ids out of order (a damaged b-tree page)",
                             "a marker's ids or times lie outside their domain (a damaged row)"};

/// The damage fields IdScan::finish and damage_note fill.
struct MarkerAccount : IdScanDamage {
  [[nodiscard]] auto damaged() const -> bool { return skipped_rows > 0 || damaged_ranges > 0 || stopped; }
};

auto in_u32(std::int64_t v) -> bool {
  return v >= 0 && v <= std::numeric_limits<std::uint32_t>::max();
}
auto in_i32(std::int64_t v) -> bool {
  return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
}

/// The current row of `s` (kSelectSql's columns) as a record; nullopt for a damaged row.
auto decode(sqlite3_stmt* s) -> std::optional<core::MarkerRecord> {
  const std::int64_t pid = sqlite3_column_int64(s, 1);
  const std::int64_t start_ns = sqlite3_column_int64(s, 2);
  const std::int64_t end_ns = sqlite3_column_int64(s, 3);
  const std::int64_t tid = sqlite3_column_int64(s, 4);
  const std::int64_t depth = sqlite3_column_int64(s, 5);
  if (end_ns < start_ns || !in_i32(pid) || !in_u32(tid) || !in_u32(depth)) return std::nullopt;
  core::MarkerRecord m;
  m.pid = static_cast<std::int32_t>(pid);
  m.tid = static_cast<std::uint32_t>(tid);
  m.start_ns = start_ns;
  m.end_ns = end_ns;
  m.depth = static_cast<std::uint32_t>(depth);
  m.domain = column_utf8(s, 6);
  m.name = column_utf8(s, 7);
  return m;
}

auto describe(const std::string& path, std::uint64_t read, const MarkerAccount& r) -> std::string {
  return damage_note(path, kWords.table, read, "NVTX markers", r);
}

}  // namespace

auto insert_marker_sql() -> const std::string& {
  static const std::string sql = "INSERT INTO markers(" + std::string(kColumns.substr(2)) + ") VALUES (" +
                                 std::string(kParams.substr(2)) + ")";
  return sql;
}

auto insert_markers(sqlite3* db, sqlite3_stmt* insert, std::span<const core::MarkerRecord> records)
    -> core::Result<void> {
  for (const core::MarkerRecord& m : records) {
    sqlite3_bind_int64(insert, 1, m.pid);
    sqlite3_bind_int64(insert, 2, m.tid);
    sqlite3_bind_int64(insert, 3, m.start_ns);
    sqlite3_bind_int64(insert, 4, m.end_ns);
    sqlite3_bind_int64(insert, 5, m.depth);
    sqlite3_bind_text(insert, 6, m.domain.data(), static_cast<int>(m.domain.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 7, m.name.data(), static_cast<int>(m.name.size()), SQLITE_STATIC);
    const int rc = sqlite3_step(insert);
    sqlite3_reset(insert);
    if (rc != SQLITE_DONE) return core::fail(sqlite_error(db, rc, "cannot insert an NVTX marker"));
  }
  return core::ok();
}

auto scan_markers(sqlite3* db, const std::string& path, std::uint64_t max_rows) -> core::Result<MarkerTable> {
  MarkerTable table;
  table.present = true;
  MarkerAccount account;
  auto select = prepare(db, kSelectSql, "cannot read the markers of trace " + path);
  if (!select) {
    // A schema entry that does not parse, or damage on the first page: nothing of the table can be read.
    if (select.error().code != core::ErrorCode::DataLoss && select.error().code != core::ErrorCode::Internal)
      return core::propagate(select);
    account.stopped = true;
    account.cause = select.error().message;
    table.note = describe(path, 0, account);
    return table;
  }
  IdScan scan(db, kWords, std::move(*select));
  scan.run([](sqlite3_stmt* s) { return decode(s); },
           [&](core::MarkerRecord&& m) {
             if (table.rows.size() < max_rows) {
               table.rows.push_back(std::move(m));
             } else {
               ++table.left_out_rows;
             }
           });
  scan.finish(account, /*unfiltered=*/true, table.rows.size() + table.left_out_rows);
  table.skipped_rows = account.skipped_rows;
  std::stable_sort(table.rows.begin(), table.rows.end(), [](const auto& a, const auto& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid;
  });
  if (account.damaged()) table.note = describe(path, table.rows.size(), account);
  if (table.left_out_rows > 0) {
    if (!table.note.empty()) table.note += "; ";
    table.note += "trace " + path + ": read the first " + std::to_string(table.rows.size()) +
                  " NVTX markers, " + std::to_string(table.left_out_rows) + " more left out (at most " +
                  std::to_string(max_rows) + " are read)";
  }
  return table;
}

}  // namespace solscope::trace::detail
