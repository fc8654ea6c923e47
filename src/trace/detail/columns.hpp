// How a sample maps onto the `samples` and `sample_counters` tables (schema.hpp), shared by the writer and
// the reader so that both use one column list.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include "core/metric_id.hpp"
#include "core/sol_sample.hpp"
#include "trace/schema.hpp"

namespace solscope::trace::detail {

/// A REAL column of `samples` after `bound`, with how to compute it from a SolSample.
struct FigureColumnSpec {
  std::string_view name;
  double (*get)(const core::SolSample&);
};

#define SOLSCOPE_TRACE_COUNT_ONE(name, ...) +1  // NOLINT(bugprone-macro-parentheses): a term of a sum
/// Number of REAL columns after `bound`.
inline constexpr std::size_t kFigureColumnCount = 0 SOLSCOPE_TRACE_FIGURE_COLUMNS(SOLSCOPE_TRACE_COUNT_ONE);
/// Number of columns bound before them (device ... bound).
inline constexpr int kHeadColumnCount = 0 SOLSCOPE_TRACE_HEAD_COLUMNS(SOLSCOPE_TRACE_COUNT_ONE);
/// Number of columns bound after them (pm_pause).
inline constexpr int kTailColumnCount = 0 SOLSCOPE_TRACE_TAIL_COLUMNS(SOLSCOPE_TRACE_COUNT_ONE);
#undef SOLSCOPE_TRACE_COUNT_ONE

/// The REAL columns after `bound`, in table order (sm_active_pct ... attainable_memory_sol_pct).
[[nodiscard]] auto figure_columns() -> std::span<const FigureColumnSpec, kFigureColumnCount>;

#define SOLSCOPE_TRACE_NAME(name, ...) ", " #name
#define SOLSCOPE_TRACE_PARAM(name, ...) ", ?"
/// INSERT for `samples`, both lists expanded from schema.hpp (id NULL: SQLite assigns the next rowid).
/// Parameters 1-10 are device, t_start_ns, t_end_ns, source, flags, compute_sol_pct, compute_pipe,
/// memory_sol_pct, memory_path, bound; then figure_columns(); then pm_pause (kPmPauseParam).
inline constexpr std::string_view kInsertSampleSql =
    "INSERT INTO samples(id" SOLSCOPE_TRACE_HEAD_COLUMNS(SOLSCOPE_TRACE_NAME)
        SOLSCOPE_TRACE_FIGURE_COLUMNS(SOLSCOPE_TRACE_NAME) SOLSCOPE_TRACE_TAIL_COLUMNS(
            SOLSCOPE_TRACE_NAME) ") VALUES(NULL" SOLSCOPE_TRACE_HEAD_COLUMNS(SOLSCOPE_TRACE_PARAM)
            SOLSCOPE_TRACE_FIGURE_COLUMNS(SOLSCOPE_TRACE_PARAM)
                SOLSCOPE_TRACE_TAIL_COLUMNS(SOLSCOPE_TRACE_PARAM) ")";
#undef SOLSCOPE_TRACE_NAME
#undef SOLSCOPE_TRACE_PARAM
/// Parameter number of the first figure column in kInsertSampleSql.
inline constexpr int kFirstFigureParam = kHeadColumnCount + 1;
/// Parameter number of pm_pause in kInsertSampleSql (the first tail column).
inline constexpr int kPmPauseParam = kFirstFigureParam + static_cast<int>(kFigureColumnCount);

/// INSERT for `sample_counters`: ?1 sample_id, ?2 raw.
inline constexpr std::string_view kInsertCountersSql =
    "INSERT INTO sample_counters(sample_id, raw) VALUES(?1, ?2)";

/// Result columns of the reader's sample query (reader_cursor.cpp adds the WHERE/ORDER BY part). Only what a
/// RawSample needs: SQLite decodes every selected column on each step, so the stored figures are fetched
/// separately (kSelectFiguresSql) and only for SampleCursor::next(SolSample&).
enum SampleColumn : int {
  kColId,
  kColDevice,
  kColTStart,
  kColTEnd,
  kColSource,
  kColFlags,
  kColRaw,
  kColAttainableCompute,
  kColAttainableMemory,
  kColPmPause,
};

/// SELECT list and FROM clause matching SampleColumn.
inline constexpr std::string_view kSelectSamplesSql =
    "SELECT s.id, s.device, s.t_start_ns, s.t_end_ns, s.source, s.flags, c.raw, "
    "s.attainable_compute_sol_pct, s.attainable_memory_sol_pct FROM samples AS s "
    "LEFT JOIN sample_counters AS c ON c.sample_id = s.id ";
/// The same without the attainable columns (up to kColRaw), for traces that never recorded one
/// (meta has_attainable absent): reading two more columns of every row costs about a tenth of the read speed.
inline constexpr std::string_view kSelectSamplesWithoutAttainableSql =
    "SELECT s.id, s.device, s.t_start_ns, s.t_end_ns, s.source, s.flags, c.raw FROM samples AS s "
    "LEFT JOIN sample_counters AS c ON c.sample_id = s.id ";

/// The same with pm_pause after the attainable columns (up to kColPmPause), for schema-4 traces with meta
/// has_pm_pause = 1.
inline constexpr std::string_view kSelectSamplesWithPauseSql =
    "SELECT s.id, s.device, s.t_start_ns, s.t_end_ns, s.source, s.flags, c.raw, "
    "s.attainable_compute_sol_pct, s.attainable_memory_sol_pct, s.pm_pause FROM samples AS s "
    "LEFT JOIN sample_counters AS c ON c.sample_id = s.id ";

/// Result columns of kSelectFiguresSql.
enum FigureColumn : int {
  kFigComputeSol,
  kFigComputePipe,
  kFigMemorySol,
  kFigMemoryPath,
  kFigBound,
  kFigDramBytesPerS,
};

/// The stored SOL figures of one sample: ?1 = samples.id. Not the attainable SOL: kSelectSamplesSql already
/// reads it into the RawSample, and derive() copies it from there.
inline constexpr std::string_view kSelectFiguresSql =
    "SELECT compute_sol_pct, compute_pipe, memory_sol_pct, memory_path, bound, dram_bytes_per_s FROM samples "
    "WHERE id = ?1";

/// Bytes of one metric in sample_counters.raw.
inline constexpr std::size_t kRawValueBytes = 8;

/// Encodes values as little-endian IEEE-754 doubles (bit patterns, NaN payloads included, are kept).
void encode_raw(const std::array<double, core::kMetricCount>& values,
                std::array<unsigned char, core::kMetricCount * kRawValueBytes>& out);

/// Decodes the little-endian double at `bytes` (8 bytes).
[[nodiscard]] auto decode_raw_value(const unsigned char* bytes) -> double;

}  // namespace solscope::trace::detail
