// The workloads table (schema 5, schema.hpp SOLSCOPE_TRACE_WORKLOAD_COLUMNS): the writer's rows, opened and
// ended as each device's workloads change, and the reader's damage-tolerant scan.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.hpp"
#include "core/result.hpp"
#include "core/workload.hpp"
#include "trace/detail/sqlite.hpp"
#include "trace/reader.hpp"

namespace solscope::trace::detail {

/// One device's workloads as they were from `t_ns` on (Writer::add_workloads), waiting for a commit.
struct WorkloadChange {
  std::uint32_t device = 0;
  std::int64_t t_ns = 0;
  core::GpuWorkloads workloads;
};

/// The "412,413" of a workload's PIDs (schema.hpp: the pids column); "" for none.
[[nodiscard]] auto pids_text(std::span<const std::int32_t> pids) -> std::string;
/// The PIDs of a pids cell, ascending as written; nullopt when the text is not a comma-separated list of
/// positive decimal integers (a damaged cell). "" gives none.
[[nodiscard]] auto parse_pids(std::string_view text) -> std::optional<std::vector<std::int32_t>>;

/// The writer's side of the table: which rows of each device are open (their ids), so that a change ends
/// them by id (no scan, no index) and starts the new set. Not thread-safe (the Writer locks around it).
class WorkloadRows {
 public:
  /// Prepares the INSERT and the UPDATE that ends a row. Errors: the SQLite error.
  [[nodiscard]] auto prepare(sqlite3* db) -> core::Result<void>;
  /// Drops the statements (before the connection closes).
  void reset();
  /// True when `workloads` differs from the last set this accepted for `device` (sharing or workloads; the
  /// note is not stored), which it then remembers; a device's first set differs unless it is empty.
  [[nodiscard]] auto changes(std::uint32_t device, const core::GpuWorkloads& workloads) -> bool;
  /// Writes `changes` in order inside the caller's transaction: each ends its device's open rows at its t_ns
  /// (at least their start) and inserts one open row per workload from t_ns (at least the start of the set
  /// it replaces: a clock that steps back cannot make a negative interval). Errors: the first failing row's
  /// SQLite error ("cannot write a workload row: ...").
  [[nodiscard]] auto write(sqlite3* db, std::span<const WorkloadChange> changes) -> core::Result<void>;
  /// Ends every open row at `end_ns` (at least its start), for close(): the recording ends there.
  [[nodiscard]] auto end_all(sqlite3* db, std::int64_t end_ns) -> core::Result<void>;
  /// Rows written so far.
  [[nodiscard]] auto rows() const -> std::uint64_t { return rows_; }

 private:
  struct Open {
    std::uint32_t device = 0;
    std::int64_t since_ns = 0;
    std::vector<std::int64_t> ids;  ///< rows of the device's current set
  };
  auto open_of(std::uint32_t device) -> Open&;
  [[nodiscard]] auto end_rows(sqlite3* db, Open& open, std::int64_t end_ns) -> core::Result<void>;
  [[nodiscard]] auto insert(sqlite3* db, const WorkloadChange& change, const core::WorkloadShare& share,
                            std::int64_t start_ns) -> core::Result<std::int64_t>;

  Statement insert_;
  Statement end_;
  std::vector<Open> open_;
  std::map<std::uint32_t, core::GpuWorkloads> accepted_;  ///< the last set changes() accepted per device
  std::uint64_t rows_ = 0;
};

/// Reads the workloads table of `db` in id order, steps over damaged id ranges (the first readable id after
/// the damage is found by seeks of doubling distance, as the kernels scan does), refuses damaged rows (a
/// device not in `devices`, an end before the start, a sharing or origin no solscope writes, a pids cell
/// that is not a PID list, an sm_pct below 0 or a fraction outside 0-1, an id out of order with its
/// neighbours: row_account.hpp), then sorts them by (t_start_ns, device, id). `path` names the file in the
/// note. Errors: only a failure that is not damage; damage is counted in the table's report and note,
/// settled against the table's row count (rows + skipped_rows = table_rows).
[[nodiscard]] auto scan_workloads(sqlite3* db, const std::string& path,
                                  const std::vector<core::DeviceInfo>& devices)
    -> core::Result<WorkloadTable>;

}  // namespace solscope::trace::detail
