// The reader's scan of the workloads table (schema 5): id order, damaged ranges stepped over, damaged rows
// refused and counted by the IdScan the kernels scan uses too (id_scan.hpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "trace/detail/id_scan.hpp"
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

/// The workloads table's name and damage wording for its IdScan.
constexpr IdScanWords kWords{"workloads", "workload rows repeat (a damaged b-tree page)",
                             "workload ids out of order (a damaged b-tree page)",
                             "a workload row's values lie outside their domain (a damaged row)"};

auto describe(const std::string& path, const WorkloadReadReport& r) -> std::string {
  return damage_note(path, kWords.table, r.rows, "workload rows", r);
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
  IdScan scan(db, kWords, std::move(*select));
  scan.run([&](sqlite3_stmt* s) { return read_interval(s, devices); },
           [&](core::WorkloadInterval&& w) {
             ++table.report.rows;
             table.rows.push_back(std::move(w));
           });
  scan.finish(table.report, /*unfiltered=*/true, table.report.rows);
  std::stable_sort(table.rows.begin(), table.rows.end(), [](const auto& a, const auto& b) {
    return a.t_start_ns != b.t_start_ns ? a.t_start_ns < b.t_start_ns : a.device < b.device;
  });
  if (table.report.damaged()) table.note = describe(path, table.report);
  return table;
}

}  // namespace solscope::trace::detail
