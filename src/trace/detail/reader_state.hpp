// What an open trace holds in memory (shared by a Reader and its cursors), and how it is opened.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/metric_id.hpp"
#include "core/result.hpp"
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
  /// meta has_attainable = 1 (some sample has an attainable SOL): only then does the sample query fetch those
  /// two columns.
  bool has_attainable = false;
  std::int64_t min_id = 0;
  std::int64_t max_id = 0;
  std::string recovery_note;
  /// What open() found, without the count: "is cut short (64.0 KiB of the 2.0 MiB its header declares)";
  /// empty for an intact file.
  std::string recovery_what;
  /// The file is cut short or damaged (open() found something to say in recovery_what).
  [[nodiscard]] auto recovered() const -> bool { return !recovery_what.empty(); }
  bool wal_commits_lost = false;  ///< the -wal holds commits past a damaged frame (wal_probe.hpp)
  bool has_kernel_table = false;  ///< sqlite_schema lists a `kernels` table (schema 2)
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
  std::shared_ptr<const ReaderState> reader;
  Statement statement;
  Statement figures;                   ///< kSelectFiguresSql, prepared on the first next(SolSample&)
  std::vector<std::uint32_t> devices;  ///< empty = all
  std::int64_t from_ns = 0;
  std::int64_t to_ns = 0;
  bool rowid_order = true;          ///< stop at the first t_start_ns >= to_ns
  std::int64_t row_t_start_ns = 0;  ///< t_start_ns of the current row (read once by step_to_next)
  bool done = false;
  std::optional<core::Error> damage;
  ReadReport report;                ///< samples read, rows skipped, where the damage begins
  std::string sql;                  ///< the statement's SQL, for the probes that step over damage
  Statement probe;                  ///< the same query, for those probes (prepared at the first damage)
  std::int64_t last_id = 0;         ///< id of the last row stepped (returned or filtered out)
  std::int64_t last_end_ns = 0;     ///< t_end_ns of the last sample returned
  std::int64_t resumed_at = kNoId;  ///< id the read last resumed at after damage (kNoId: never)
};

/// Prepares a cursor over `reader` for `options` (fast rowid-order path when the file is time ordered).
[[nodiscard]] auto make_cursor_state(const std::shared_ptr<const ReaderState>& reader,
                                     const ReadOptions& options)
    -> core::Result<std::unique_ptr<CursorState>>;

/// Steps `cursor` to the next selected row; false at the end, or at damage it cannot step over (recorded in
/// cursor.damage and cursor.report).
[[nodiscard]] auto step_to_next(CursorState& cursor) -> bool;

/// Called when stepping `cursor` failed with `rc`: records the damage, and in a rowid-order read finds the
/// first readable id after the failing row and rebinds the statement there (reader_damage.cpp). True when
/// the read can go on; false when it stops (the rows after it are counted as skipped).
[[nodiscard]] auto step_over_damage(CursorState& cursor, int rc) -> bool;

/// Counts a returned sample whose counters could not be decoded (report.unknown_counters), recording the
/// first as cursor.damage.
void note_unknown_counters(CursorState& cursor, std::int64_t id, std::size_t bytes, bool is_blob);

/// Fills `out` from the current row of `cursor` (identity, raw counters); a malformed counters blob leaves
/// the values NaN and records the damage.
void read_raw(CursorState& cursor, core::RawSample& out);

/// Overwrites the SOL figures of `out` with those stored for the current row; false when they cannot be read
/// (the figures derived from the raw values are then kept).
[[nodiscard]] auto read_stored_figures(CursorState& cursor, core::SolSample& out) -> bool;

}  // namespace solscope::trace::detail
