// The one account of a damaged table (samples, kernels): which rows are damage, how many rows the table has,
// and how many a read skipped, so that rows read + rows skipped = the table's rows (docs/trace-format.md,
// "Durability and damage").
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.hpp"
#include "trace/detail/sqlite.hpp"

namespace solscope::trace::detail {

/// Where a row lies in its table's order: its id, and its time in ns (t_start_ns of a sample; unused for
/// kernels, which are in arrival order).
struct RowKey {
  std::int64_t id = 0;
  std::int64_t t_ns = 0;
};

/// A row as the statement stepped it: a damaged page can hand out the same row again and again (found by
/// fuzzing), which the same id and times tell; two rows of one id with other times are two damaged cells.
struct SteppedRow {
  std::int64_t id = std::numeric_limits<std::int64_t>::min();
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  auto operator==(const SteppedRow&) const -> bool = default;
};

/// Rows a scan of a table of `rows` rows may step before it stops as damage: an intact b-tree returns each
/// row once, a damaged page may repeat them forever; with no count, no limit.
[[nodiscard]] auto step_limit(std::optional<std::uint64_t> rows) -> std::uint64_t;

/// True when `row` fits between the last row a read kept (`kept`, nullopt at the start) and the row that
/// follows it in the file (`next`, nullopt at the end): ids rise, and with `time_ordered` times do not fall.
/// A row that breaks the order of its neighbours while they keep it among themselves is the damaged one
/// (a changed id or time in one cell), so one damaged cell costs one row, not the rows after it.
[[nodiscard]] auto fits_between(const std::optional<RowKey>& kept, const RowKey& row,
                                const std::optional<RowKey>& next, bool time_ordered) -> bool;

/// True when `device` (a stored device column, any int64) is a device of the trace: listed in `devices`,
/// or, when the devices table is empty or unreadable, a valid NVML index (0 to UINT32_MAX).
[[nodiscard]] auto device_in_trace(std::int64_t device, const std::vector<core::DeviceInfo>& devices) -> bool;

/// The rows of `table` by count(*), which counts the cells of its b-tree whatever their ids hold; when that
/// fails (an unreadable page), count(*) of `twin` (a table written row for row with it: sample_counters for
/// samples). Ids run 1, 2, 3, ... (the writer never deletes), so a max(id) below that count but above half of
/// it is taken instead (a damaged interior page can make count(*) count a subtree twice), and max(id) alone
/// when no count can be read; nullopt when nothing can be. `table` and `twin` are trusted names.
[[nodiscard]] auto count_table_rows(sqlite3* db, std::string_view table, std::string_view twin = {})
    -> std::optional<std::uint64_t>;

/// A read's account settled against its table's row count.
struct SettledRows {
  std::uint64_t skipped = 0;                ///< rows damaged and skipped
  std::optional<std::uint64_t> table_rows;  ///< the table's rows (never below the rows a whole read returned)
};

/// Settles `counted` (rows a read found damaged or could not read) against `total` (count_table_rows).
/// A read of the whole table (`whole_table`: unfiltered, to its end) that returned `read` rows skipped
/// exactly the rest: table_rows - read, where table_rows is `total`, or `read` if that is more (the table
/// holds at least the rows read). Any other read (`read` = rows it passed, filtered or not) skips at most
/// `total` - `read`. With no total, `counted` as it is.
[[nodiscard]] auto settle_rows(std::uint64_t counted, std::uint64_t read, std::optional<std::uint64_t> total,
                               bool whole_table) -> SettledRows;

/// "samples: 1,539 of 4,800 rows damaged and skipped" (`total` unknown: "samples: 1,539 rows damaged and
/// skipped").
[[nodiscard]] auto skipped_rows_text(std::string_view table, std::uint64_t skipped,
                                     std::optional<std::uint64_t> total) -> std::string;

/// `n` in decimal with a comma every three digits ("4,800").
[[nodiscard]] auto group_thousands(std::uint64_t n) -> std::string;

}  // namespace solscope::trace::detail
