// The reader's scan of the workloads table (schema 5): id order, damaged ranges stepped over, damaged rows
// refused and counted, as the kernels scan does (kernel_rows.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "trace/detail/row_account.hpp"
#include "trace/detail/workload_rows.hpp"
#include "trace/schema.hpp"

namespace solscope::trace::detail {
namespace {

#define SOLSCOPE_WORKLOAD_NAME(name, type) ", " #name
constexpr std::string_view kColumns = SOLSCOPE_TRACE_WORKLOAD_COLUMNS(SOLSCOPE_WORKLOAD_NAME);
#undef SOLSCOPE_WORKLOAD_NAME

auto select_sql() -> std::string {
  return "SELECT id, " + std::string(kColumns.substr(2)) + " FROM workloads WHERE id > ?1 ORDER BY id";
}

auto optional_real(sqlite3_stmt* s, int column) -> std::optional<double> {
  if (sqlite3_column_type(s, column) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(s, column);
}

/// The current row of `s` (select_sql()'s columns: id, then the workload columns from 1) as an interval;
/// nullopt when a value lies outside its domain (a damaged row).
auto read_interval(sqlite3_stmt* s, const std::vector<core::DeviceInfo>& devices)
    -> std::optional<core::WorkloadInterval> {
  core::WorkloadInterval w;
  const std::int64_t device = sqlite3_column_int64(s, 1);
  if (!device_in_trace(device, devices)) return std::nullopt;
  w.device = static_cast<std::uint32_t>(device);
  w.t_start_ns = sqlite3_column_int64(s, 2);
  if (sqlite3_column_type(s, 3) != SQLITE_NULL) {
    w.t_end_ns = sqlite3_column_int64(s, 3);
    if (*w.t_end_ns < w.t_start_ns) return std::nullopt;
  }
  const auto sharing = core::parse_workload_sharing(column_text(s, 4));
  const auto origin = core::parse_workload_origin(column_text(s, 5));
  auto pids = parse_pids(column_text(s, 11));
  if (!sharing || *sharing == core::WorkloadSharing::kNone || !origin || !pids) return std::nullopt;
  w.sharing = *sharing;
  w.share.origin = *origin;
  w.share.pids = std::move(*pids);
  w.share.id = core::WorkloadIdentity{.pod = column_utf8(s, 6),
                                      .pod_namespace = column_utf8(s, 7),
                                      .container = column_utf8(s, 8),
                                      .hpc_job = column_utf8(s, 9),
                                      .user = column_utf8(s, 10)};
  w.share.sm_pct = optional_real(s, 12);
  w.share.fraction = optional_real(s, 13);
  if (w.share.sm_pct && !(*w.share.sm_pct >= 0.0 && std::isfinite(*w.share.sm_pct))) return std::nullopt;
  if (w.share.fraction && !(*w.share.fraction >= 0.0 && *w.share.fraction <= 1.0)) return std::nullopt;
  return w;
}

struct Row {
  RowKey key;
  core::WorkloadInterval interval;
};

/// A scan in id order that steps over damaged id ranges and refuses damaged rows.
struct Scan {
  sqlite3* db;
  const std::vector<core::DeviceInfo>& devices;
  WorkloadTable& table;
  Statement select;
  Statement probe;           ///< the first readable id at or after ?1
  std::int64_t last_id = 0;  ///< largest plausible id stepped: a resume after damage starts past it
  SteppedRow previous;       ///< the row stepped before (a repeat is damage)
  std::uint64_t steps = 0;
  bool ended = false;

  void rebind(std::int64_t after_id) {
    sqlite3_reset(select.get());
    sqlite3_bind_int64(select.get(), 1, after_id);
  }

  void count_damaged_row(const char* cause) {
    ++table.report.skipped_rows;
    if (table.report.cause.empty()) table.report.cause = cause;
  }

  [[nodiscard]] auto max_readable_id() const -> std::int64_t {
    auto statement = prepare(db, "SELECT max(id) FROM workloads", "max id");
    if (!statement || sqlite3_step(statement->get()) != SQLITE_ROW) return last_id;
    return std::max<std::int64_t>(last_id, sqlite3_column_int64(statement->get(), 0));
  }

  auto readable_from(std::int64_t id) -> std::optional<std::int64_t> {
    sqlite3_reset(probe.get());
    sqlite3_bind_int64(probe.get(), 1, id);
    if (sqlite3_step(probe.get()) != SQLITE_ROW) return std::nullopt;
    return sqlite3_column_int64(probe.get(), 0);
  }

  /// After a failed step past `last_id`: records the damage and resumes at the first readable id found by
  /// seeks at doubling distances. False when no later row can be read (the read stops).
  auto step_over(int rc) -> bool {
    WorkloadReadReport& r = table.report;
    if (r.cause.empty()) r.cause = sqlite3_errstr(rc);
    if (!probe) {
      auto prepared = prepare(db, "SELECT id FROM workloads WHERE id >= ?1 ORDER BY id LIMIT 1", "probe");
      if (prepared) probe = std::move(*prepared);
    }
    const std::int64_t max_id = max_readable_id();
    for (std::int64_t gap = 1; probe && last_id <= max_id - gap && gap > 0; gap *= 2) {
      const auto next = readable_from(last_id + gap);
      if (!next || *next <= last_id + 1) continue;
      if (r.damaged_ranges++ == 0) {
        r.first_skipped_id = last_id + 1;
        r.last_skipped_id = *next - 1;
      }
      r.skipped_rows += static_cast<std::uint64_t>(*next - last_id - 1);
      last_id = *next - 1;
      rebind(last_id);
      return true;
    }
    r.stopped = true;
    if (max_id > last_id) r.skipped_rows += static_cast<std::uint64_t>(max_id - last_id);
    return false;
  }

  /// Steps to the next row whose values lie in their domain; nullopt at the end or where damage stops it.
  auto read_row() -> std::optional<Row> {
    sqlite3_stmt* s = select.get();
    const std::uint64_t limit = step_limit(table.report.table_rows);
    while (!ended) {
      if (++steps > limit) {
        count_damaged_row("workload rows repeat (a damaged b-tree page)");
        table.report.stopped = true;
        ended = true;
        break;
      }
      const int rc = sqlite3_step(s);
      if (rc == SQLITE_DONE || (rc != SQLITE_ROW && !step_over(rc))) {
        ended = true;
        break;
      }
      if (rc != SQLITE_ROW) continue;
      const std::int64_t id = sqlite3_column_int64(s, 0);
      const SteppedRow stepped{id, sqlite3_column_int64(s, 2), sqlite3_column_int64(s, 3)};
      if (stepped == previous) {
        count_damaged_row("workload ids out of order (a damaged b-tree page)");
        if (id == std::numeric_limits<std::int64_t>::max()) {
          ended = true;
          break;
        }
        rebind(id);
        continue;
      }
      previous = stepped;
      auto interval = read_interval(s, devices);
      if (!interval) {
        count_damaged_row("a workload row's values lie outside their domain (a damaged row)");
        continue;
      }
      const auto rows = table.report.table_rows;
      if (id > last_id && (!rows || id <= static_cast<std::int64_t>(std::min<std::uint64_t>(
                                              *rows, std::numeric_limits<std::int64_t>::max())))) {
        last_id = id;
      }
      return Row{RowKey{id, 0}, std::move(*interval)};
    }
    return std::nullopt;
  }

  void run() {
    WorkloadReadReport& r = table.report;
    r.table_rows = count_table_rows(db, "workloads");
    rebind(std::numeric_limits<std::int64_t>::min());
    std::optional<RowKey> kept;
    std::optional<Row> ahead = read_row();
    while (ahead) {
      Row row = std::move(*ahead);
      ahead = read_row();
      const std::optional<RowKey> next = ahead ? std::optional<RowKey>(ahead->key) : std::nullopt;
      if (!fits_between(kept, row.key, next, /*time_ordered=*/false)) {
        count_damaged_row("workload ids out of order (a damaged b-tree page)");
        continue;
      }
      kept = row.key;
      ++r.rows;
      table.rows.push_back(std::move(row.interval));
    }
    const SettledRows settled = settle_rows(r.skipped_rows, r.rows, r.table_rows, ended);
    r.skipped_rows = settled.skipped;
    r.table_rows = settled.table_rows;
  }
};

auto describe(const std::string& path, const WorkloadReadReport& r) -> std::string {
  std::string note =
      "trace " + path + ": its workloads table is damaged: read " + std::to_string(r.rows) + " workload rows";
  if (r.skipped_rows > 0) note += "; " + skipped_rows_text("workloads", r.skipped_rows, r.table_rows);
  if (r.damaged_ranges > 0) {
    note += " (" + std::to_string(r.damaged_ranges) + " unreadable range(s), the first ids " +
            std::to_string(r.first_skipped_id) + "-" + std::to_string(r.last_skipped_id) + ")";
  }
  if (r.stopped) note += "; the rest of the table could not be read";
  if (!r.cause.empty()) note += " (SQLite: " + r.cause + ")";
  return note;
}

}  // namespace

auto scan_workloads(sqlite3* db, const std::string& path, const std::vector<core::DeviceInfo>& devices)
    -> core::Result<WorkloadTable> {
  WorkloadTable table;
  table.present = true;
  auto select = prepare(db, select_sql(), "cannot read the workloads of trace " + path);
  if (!select) {
    // A schema entry that does not parse, or damage on the first page: nothing of the table can be read.
    table.report.stopped = true;
    table.report.cause = select.error().message;
    table.note = describe(path, table.report);
    if (select.error().code == core::ErrorCode::DataLoss || select.error().code == core::ErrorCode::Internal)
      return table;
    return core::propagate(select);
  }
  Scan scan{db, devices, table, std::move(*select)};
  scan.run();
  std::stable_sort(table.rows.begin(), table.rows.end(), [](const auto& a, const auto& b) {
    return a.t_start_ns != b.t_start_ns ? a.t_start_ns < b.t_start_ns : a.device < b.device;
  });
  if (table.report.damaged()) table.note = describe(path, table.report);
  return table;
}

}  // namespace solscope::trace::detail
