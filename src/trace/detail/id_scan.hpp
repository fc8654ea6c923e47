// The damage-tolerant scan of a table in id order, shared by the kernels (kernel_rows.cpp) and workloads
// (workload_scan.cpp) readers: damaged id ranges are stepped over, damaged rows refused and counted
// (row_account.hpp), and the account settled against the table's row count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "trace/detail/row_account.hpp"
#include "trace/detail/sqlite.hpp"

namespace solscope::trace::detail {

/// What differs between the tables an IdScan reads: the table's name and its damage wording.
struct IdScanWords {
  const char* table;          ///< the table, a trusted name ("kernels")
  const char* repeat;         ///< rows stepped past step_limit ("kernel rows repeat (a damaged b-tree page)")
  const char* out_of_order;   ///< a row stepped twice, or out of order with its neighbours
  const char* out_of_domain;  ///< a row whose decode refused it
};

/// A read's damage, in the fields of the readers' reports (KernelReadReport, WorkloadReadReport).
struct IdScanDamage {
  std::uint64_t skipped_rows = 0;
  std::optional<std::uint64_t> table_rows;
  std::uint64_t damaged_ranges = 0;
  std::int64_t first_skipped_id = 0;
  std::int64_t last_skipped_id = 0;
  bool stopped = false;
  std::string cause;
};

/// A scan in id order of a table whose SELECT (`select`: id in column 0, the row's start and end times in
/// columns 2 and 3, `WHERE id > ?1 ORDER BY id`) steps over damaged id ranges (the first readable id after
/// the damage is found by seeks of doubling distance) and refuses damaged rows: repeats, rows out of order
/// with their neighbours, and rows the caller's decode refuses.
class IdScan {
 public:
  /// Counts the table's rows (count_table_rows) and binds `select` to its start.
  IdScan(sqlite3* db, const IdScanWords& words, Statement select);

  /// Decodes each row with `decode(sqlite3_stmt*) -> std::optional<Row>` (nullopt: a damaged row, counted
  /// with words.out_of_domain) and passes the rows that fit between their neighbours to `take(Row&&)`, in
  /// id order.
  template <class Decode, class Take>
  void run(Decode decode, Take take) {
    std::optional<RowKey> kept;
    auto ahead = next(decode);
    while (ahead) {
      auto row = std::move(*ahead);
      ahead = next(decode);
      const std::optional<RowKey> following = ahead ? std::optional<RowKey>(ahead->first) : std::nullopt;
      if (!fits_between(kept, row.first, following, /*time_ordered=*/false)) {
        count_damaged_row(words_.out_of_order);
        continue;
      }
      kept = row.first;
      ++kept_rows_;
      take(std::move(row.second));
    }
  }

  /// Settles the account (settle_rows) and writes it into `report`'s damage fields. With `unfiltered` (every
  /// row taken was returned) a scan that reached the end is a whole read that returned `returned` rows;
  /// otherwise the rows that fitted count as read.
  template <class Report>
  void finish(Report& report, bool unfiltered, std::uint64_t returned) {
    const bool whole = unfiltered && ended_;
    const SettledRows settled =
        settle_rows(damage_.skipped_rows, whole ? returned : kept_rows_, damage_.table_rows, whole);
    report.skipped_rows = settled.skipped;
    report.table_rows = settled.table_rows;
    report.damaged_ranges = damage_.damaged_ranges;
    report.first_skipped_id = damage_.first_skipped_id;
    report.last_skipped_id = damage_.last_skipped_id;
    report.stopped = damage_.stopped;
    report.cause = damage_.cause;
  }

 private:
  /// The next row that decodes, with its key; nullopt at the end or where damage stops the read.
  template <class Decode>
  auto next(Decode& decode)
      -> std::optional<std::pair<RowKey, typename std::invoke_result_t<Decode&, sqlite3_stmt*>::value_type>> {
    while (const std::optional<std::int64_t> id = step()) {
      auto row = decode(select_.get());
      if (!row) {
        count_damaged_row(words_.out_of_domain);
        continue;
      }
      accept(*id);
      return std::pair{RowKey{*id, 0}, std::move(*row)};
    }
    return std::nullopt;
  }

  /// Steps to the next row not stepped before; its id, or nullopt at the end or where damage stops the read.
  auto step() -> std::optional<std::int64_t>;
  /// Takes `id`, a decoded row's, as the last id stepped when it is plausible (within the table's rows).
  void accept(std::int64_t id);
  void rebind(std::int64_t after_id);
  void count_damaged_row(const char* cause);
  /// The first readable id at or after `id`; nullopt when the seek fails or no row follows.
  auto readable_from(std::int64_t id) -> std::optional<std::int64_t>;
  /// After a failed step past `last_id_`: records the damage and resumes at the first readable id found by
  /// seeks at doubling distances. False when no later row can be read (the read stops).
  auto step_over(int rc) -> bool;
  /// max(id), read from the right edge of the b-tree; last_id_ when even that is unreadable.
  [[nodiscard]] auto max_readable_id() const -> std::int64_t;

  sqlite3* db_;
  IdScanWords words_;
  Statement select_;
  Statement probe_;  ///< SELECT id >= ?1 LIMIT 1, unfiltered: the first readable row at or after an id
  IdScanDamage damage_;
  std::int64_t last_id_ = 0;  ///< largest plausible id stepped: a resume after damage starts past it
  SteppedRow previous_;       ///< the row stepped before (a repeat is damage)
  std::uint64_t steps_ = 0;
  std::uint64_t kept_rows_ = 0;  ///< rows that fitted, before the caller's filters
  bool ended_ = false;
};

/// The note of a damaged id-scanned table: "trace P: its T table is damaged: read N <what>; ..." with the
/// skipped rows, the first damaged id range, whether the read stopped and SQLite's cause. `report` has the
/// damage fields of IdScanDamage (KernelReadReport, WorkloadReadReport).
template <class Report>
auto damage_note(const std::string& path, std::string_view table, std::uint64_t read, std::string_view what,
                 const Report& r) -> std::string {
  std::string note = "trace " + path + ": its " + std::string(table) + " table is damaged: read " +
                     std::to_string(read) + " " + std::string(what);
  if (r.skipped_rows > 0) note += "; " + skipped_rows_text(table, r.skipped_rows, r.table_rows);
  if (r.damaged_ranges > 0) {
    note += " (" + std::to_string(r.damaged_ranges) + " unreadable range(s), the first ids " +
            std::to_string(r.first_skipped_id) + "-" + std::to_string(r.last_skipped_id) + ")";
  }
  if (r.stopped) note += "; the rest of the table could not be read";
  if (!r.cause.empty()) note += " (SQLite: " + r.cause + ")";
  return note;
}

}  // namespace solscope::trace::detail
