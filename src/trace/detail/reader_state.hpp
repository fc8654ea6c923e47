// What an open trace holds in memory (shared by a Reader and its cursors), and how it is opened.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/metric_id.hpp"
#include "core/result.hpp"
#include "trace/detail/row_account.hpp"
#include "trace/detail/sqlite.hpp"
#include "trace/reader.hpp"

namespace solscope::trace::detail {

/// An open trace: the read-only connection and everything read at open.
struct ReaderState {
  std::filesystem::path path;
  Connection db;
  TraceMetadata metadata;
  std::vector<core::DeviceInfo> devices;
  /// For each position in sample_counters.raw (metrics.id), the catalog index it maps to, or -1 (unknown
  /// name).
  std::vector<int> file_to_catalog;
  /// file_to_catalog is 0, 1, 2, ... kMetricCount - 1: the blob copies straight into RawSample::values.
  bool identity_layout = false;
  std::uint64_t sample_count = 0;
  /// Rows of the samples table (count_table_rows: count(*), else sample_counters' count(*), else max(id));
  /// nullopt when none can be read. A read's skipped rows are settled against it (row_account.hpp).
  std::optional<std::uint64_t> table_rows;
  /// meta has_attainable = 1 (some sample has an attainable SOL): only then does the sample query fetch those
  /// two columns.
  bool has_attainable = false;
  /// Schema 4 and meta has_pm_pause = 1 (some sample was taken while PM sampling was paused): only then does
  /// the sample query fetch pm_pause (kSelectSamplesWithPauseSql, which has the attainable columns too).
  bool has_pm_pause = false;
  std::int64_t min_id = 0;
  std::int64_t max_id = 0;
  std::string recovery_note;
  /// What open() found, without the count: "is cut short (64.0 KiB of the 2.0 MiB its header declares)";
  /// empty for an intact file.
  std::string recovery_what;
  /// The file is cut short or damaged (open() found something to say in recovery_what).
  [[nodiscard]] auto recovered() const -> bool { return !recovery_what.empty(); }
  bool wal_commits_lost = false;    ///< the -wal holds commits past a damaged frame (wal_probe.hpp)
  bool has_kernel_table = false;    ///< sqlite_schema lists a `kernels` table (schema 2)
  bool has_workload_table = false;  ///< sqlite_schema lists a `workloads` table (schema 5)
  bool has_marker_table = false;    ///< sqlite_schema lists a `markers` table (schema 6)
};

/// Reads `path` into a ReaderState (probe, connection with fallbacks, schema and version checks, devices,
/// metrics, counts). Errors as documented on Reader::open.
[[nodiscard]] auto open_reader_state(const std::filesystem::path& path)
    -> core::Result<std::shared_ptr<ReaderState>>;

/// Reader::problem: the open's recovery note and `report` in one DataLoss error; nullopt when both are clean
/// (reader_report.cpp).
[[nodiscard]] auto describe_read(const ReaderState& reader, const ReadReport& report)
    -> std::optional<core::Error>;

/// A cursor's state: its statement and filters, and the reader it keeps alive.
struct CursorState {
  static constexpr std::int64_t kNoId = std::numeric_limits<std::int64_t>::min();
  /// A row of the statement, decoded and past the domain checks, waiting to be judged against its neighbours.
  struct Row {
    RowKey key;  ///< id and t_start_ns
    core::RawSample raw;
    bool counters_ok = true;        ///< the counters BLOB decoded
    bool counters_blob = true;      ///< it was a BLOB (or TEXT) at all
    std::size_t counter_bytes = 0;  ///< its size in bytes
  };
  std::shared_ptr<const ReaderState> reader;
  Statement statement;
  Statement figures;                   ///< kSelectFiguresSql, prepared on the first next(SolSample&)
  std::vector<std::uint32_t> devices;  ///< empty = all
  std::int64_t from_ns = 0;
  std::int64_t to_ns = 0;
  bool rowid_order = true;  ///< stop at the first t_start_ns >= to_ns
  /// Unfiltered and from the first row: a read to its end then accounts for every row of the table.
  bool whole_table = true;
  /// Two rows decoded in place (no copy per row): the one being judged or handed out, and the next one of the
  /// statement, read ahead to judge it.
  std::array<Row, 2> rows;
  std::size_t ahead = 0;         ///< index in rows of the row read ahead
  bool has_ahead = false;        ///< rows[ahead] holds a row
  std::size_t current = 1;       ///< index in rows of the row step_to_next() accepted last (read_raw)
  std::optional<RowKey> kept;    ///< the last row that fitted its neighbours (row_account.hpp)
  std::uint64_t kept_rows = 0;   ///< rows that fitted, before the device and time filters
  SteppedRow previous;           ///< the row the statement returned before (a repeat is damage)
  std::uint64_t steps = 0;       ///< rows the statement returned
  std::uint64_t step_limit = 0;  ///< past this many, the rows repeat: the read stops
  bool ended = false;            ///< the statement has no more rows (or stopped at damage)
  bool done = false;             ///< the read is over: nothing more to hand out
  std::optional<core::Error> damage;
  ReadReport report;                ///< samples read, rows skipped, where the damage begins
  std::string sql;                  ///< the statement's SQL, for the probes that step over damage
  Statement probe;                  ///< the same query, for those probes (prepared at the first damage)
  std::int64_t last_id = 0;         ///< largest plausible id the statement returned (resumes start past it)
  std::int64_t last_end_ns = 0;     ///< t_end_ns of the last row the statement returned before the damage
  bool stepped_any = false;         ///< the statement returned a row that passed the domain checks
  std::int64_t resumed_at = kNoId;  ///< id the read last resumed at after damage (kNoId: never)
};

/// Prepares a cursor over `reader` for `options` (fast rowid-order path when the file is time ordered).
[[nodiscard]] auto make_cursor_state(const std::shared_ptr<const ReaderState>& reader,
                                     const ReadOptions& options)
    -> core::Result<std::unique_ptr<CursorState>>;

/// Steps `cursor` to the next selected row (cursor.current); false at the end, or at damage it cannot step
/// over (recorded in cursor.damage and cursor.report). A row with a value outside its domain (a device not in
/// the trace, an interval that ends before it starts or spans more than kMaxSampleSpanNs) or out of order
/// with its neighbours (fits_between) is a damaged row: counted as skipped, and the read goes on. At the end
/// the skipped count is settled against ReaderState::table_rows (settle_rows).
[[nodiscard]] auto step_to_next(CursorState& cursor) -> bool;

/// Called when stepping `cursor` failed with `rc`: records the damage, and in a rowid-order read finds the
/// first readable id after the failing row and rebinds the statement there (reader_damage.cpp). True when
/// the read can go on; false when it stops (the rows after it are counted as skipped).
[[nodiscard]] auto step_over_damage(CursorState& cursor, int rc) -> bool;

/// Counts a returned sample whose counters could not be decoded (report.unknown_counters), recording the
/// first as cursor.damage.
void note_unknown_counters(CursorState& cursor, std::int64_t id, std::size_t bytes, bool is_blob);

/// Hands out the current row of `cursor` (identity, raw counters) and counts it; a malformed counters blob
/// leaves the values NaN and records the damage.
void read_raw(CursorState& cursor, core::RawSample& out);

/// Overwrites the SOL figures of `out` with those stored for the current row; false when they cannot be read
/// (the figures derived from the raw values are then kept).
[[nodiscard]] auto read_stored_figures(CursorState& cursor, core::SolSample& out) -> bool;

}  // namespace solscope::trace::detail
