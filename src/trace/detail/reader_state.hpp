// What an open trace holds in memory (shared by a Reader and its cursors), and how it is opened.
#pragma once

#include <cstdint>
#include <filesystem>
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
  bool recovered = false;
  std::string recovery_note;
};

/// Reads `path` into a ReaderState (probe, connection with fallbacks, schema and version checks, devices,
/// metrics, counts). Errors as documented on Reader::open.
[[nodiscard]] auto open_reader_state(const std::filesystem::path& path)
    -> core::Result<std::shared_ptr<ReaderState>>;

/// A cursor's state: its statement and filters, and the reader it keeps alive.
struct CursorState {
  std::shared_ptr<const ReaderState> reader;
  Statement statement;
  Statement figures;                   ///< kSelectFiguresSql, prepared on the first next(SolSample&)
  std::vector<std::uint32_t> devices;  ///< empty = all
  std::int64_t from_ns = 0;
  std::int64_t to_ns = 0;
  bool rowid_order = true;          ///< stop at the first t_start_ns >= to_ns
  std::int64_t row_t_start_ns = 0;  ///< t_start_ns of the current row (read once by step_to_next)
  bool done = false;
  std::uint64_t read = 0;
  std::optional<core::Error> damage;
};

/// Prepares a cursor over `reader` for `options` (fast rowid-order path when the file is time ordered).
[[nodiscard]] auto make_cursor_state(const std::shared_ptr<const ReaderState>& reader,
                                     const ReadOptions& options)
    -> core::Result<std::unique_ptr<CursorState>>;

/// Steps `cursor` to the next selected row; false at the end or at damage (recorded in cursor.damage).
[[nodiscard]] auto step_to_next(CursorState& cursor) -> bool;

/// Fills `out` from the current row of `cursor` (identity, raw counters); a malformed counters blob leaves
/// the values NaN and records the damage.
void read_raw(CursorState& cursor, core::RawSample& out);

/// Overwrites the SOL figures of `out` with those stored for the current row; false when they cannot be read
/// (the figures derived from the raw values are then kept).
[[nodiscard]] auto read_stored_figures(CursorState& cursor, core::SolSample& out) -> bool;

}  // namespace solscope::trace::detail
