// Reader::problem: one message for the user on what a read of a damaged trace returned, skipped and lost.
#include <array>
#include <cstdio>
#include <string>

#include "trace/detail/reader_state.hpp"

namespace solscope::trace::detail {
namespace {

auto plural(std::uint64_t n, const char* one, const char* many) -> std::string {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

auto id_range(std::int64_t first, std::int64_t last) -> std::string {
  return first == last ? "id " + std::to_string(first)
                       : "ids " + std::to_string(first) + "-" + std::to_string(last);
}

/// "after 217.0 s of the trace (t_end_ns 1767225654300000000)", or "before the first sample read".
auto where(const ReadReport& report) -> std::string {
  if (!report.damage_after_ns || !report.first_t_start_ns) return "before the first sample read";
  std::array<char, 32> seconds{};
  // In double: a damaged row's times may lie anywhere in int64 (signed overflow found by fuzzing).
  const double after_s =
      (static_cast<double>(*report.damage_after_ns) - static_cast<double>(*report.first_t_start_ns)) / 1e9;
  std::snprintf(seconds.data(), seconds.size(), "%.1f", after_s);
  return "after " + std::string(seconds.data()) + " s of the trace (t_end_ns " +
         std::to_string(*report.damage_after_ns) + ")";
}

auto details(const ReadReport& report) -> std::string {
  std::string text;
  if (report.skipped_rows > 0) {
    text += "; " + skipped_rows_text("samples", report.skipped_rows, report.table_rows);
    if (report.damaged_ranges > 1) text += " in " + std::to_string(report.damaged_ranges) + " damaged ranges";
    if (report.damaged_ranges > 0) {
      text += ": the damage begins at sample " + id_range(report.first_skipped_id, report.last_skipped_id) +
              ", " + where(report);
    }
  }
  if (report.stopped) {
    text += "; no row from sample id " + std::to_string(report.stopped_at_id) + " on could be read";
    if (report.damaged_ranges == 0) text += ", " + where(report);
  }
  if (report.unknown_counters > 0) {
    text += "; " + plural(report.unknown_counters, "sample has", "samples have") +
            " unreadable counters (the first: id " + std::to_string(report.first_unknown_counters_id) +
            "), read as unknown";
  }
  if (report.rederived_figures > 0) {
    text += "; the stored SOL figures of " + plural(report.rederived_figures, "sample", "samples") +
            " were unreadable and were derived again from the raw counters";
  }
  if (!report.cause.empty()) text += " (SQLite: " + report.cause + ")";
  return text;
}

}  // namespace

auto describe_read(const ReaderState& reader, const ReadReport& report) -> std::optional<core::Error> {
  if (!report.damaged() && !reader.recovered()) return std::nullopt;
  const std::string file = reader.path.string();
  std::string hint = report.samples == 0 ? "nothing in it can be read; record again"
                                         : "to save more of it, try `sqlite3 " + file +
                                               " .recover | sqlite3 COPY.sqlite` and read the copy";
  if (reader.wal_commits_lost) {
    hint = "the lost commits are still in " + file + "-wal, past a frame SQLite rejects; keep both files";
  }
  if (!report.damaged()) return core::Error{core::ErrorCode::DataLoss, reader.recovery_note, std::move(hint)};
  const std::string what = reader.recovered() ? reader.recovery_what : "is damaged";
  return core::Error{core::ErrorCode::DataLoss,
                     "trace " + file + " " + what + ": read " + plural(report.samples, "sample", "samples") +
                         details(report),
                     std::move(hint)};
}

}  // namespace solscope::trace::detail
