// The markers table (schema 6, issue 25): NVTX ranges and marks round trip, the 512-byte cut of names and
// domains, older schemas, refused ranges, damaged rows and a zeroed page.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/detail/marker_rows.hpp"
#include "trace/detail/sqlite.hpp"
#include "trace/reader.hpp"
#include "trace/schema.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {
namespace {

using testing::TempDir;

constexpr std::int64_t kT0 = synthetic::kStartNs;
constexpr std::int64_t kMs = 1'000'000;

auto marker(std::uint32_t tid, std::int64_t start_ms, std::int64_t end_ms, std::uint32_t depth,
            std::string domain, std::string name) -> core::MarkerRecord {
  return core::MarkerRecord{.pid = 4321,
                            .tid = tid,
                            .start_ns = kT0 + start_ms * kMs,
                            .end_ns = kT0 + end_ms * kMs,
                            .depth = depth,
                            .domain = std::move(domain),
                            .name = std::move(name)};
}

/// A trace of one device with 4 samples; `markers` appended in two batches between them.
void write_with_markers(const std::filesystem::path& path, const std::vector<core::MarkerRecord>& markers) {
  auto writer = Writer::open(path);
  ASSERT_TRUE(writer) << writer.error().describe();
  const auto devices = synthetic::devices(1);
  ASSERT_TRUE(writer->write_devices(devices));
  const std::size_t half = markers.size() / 2;
  std::size_t round = 0;
  for (const core::RawSample& raw : synthetic::samples(1, 4, 1)) {
    ASSERT_TRUE(writer->append(raw, core::derive(raw, devices[raw.device_index])));
    if (round == 0) {
      ASSERT_TRUE(writer->append_markers(std::span(markers).first(half)));
    }
    if (round == 1) {
      ASSERT_TRUE(writer->append_markers(std::span(markers).subspan(half)));
    }
    ++round;
  }
  ASSERT_TRUE(writer->close());
}

auto read_markers(const std::filesystem::path& path) -> MarkerTable {
  auto reader = Reader::open(path);
  EXPECT_TRUE(reader) << reader.error().describe();
  if (!reader) return {};
  auto table = reader->markers();
  EXPECT_TRUE(table) << table.error().describe();
  return table ? *table : MarkerTable{};
}

auto names(const MarkerTable& t) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (const auto& m : t.rows) out.push_back(m.name);
  return out;
}

/// One training step of two threads: "step" holds "forward" and "backward" on thread 11, a mark on 12.
auto step_markers() -> std::vector<core::MarkerRecord> {
  return {marker(11, 30, 55, 1, "", "backward"), marker(11, 10, 60, 0, "", "step"),
          marker(12, 40, 40, 0, "PyTorch", "checkpoint"), marker(11, 12, 30, 1, "", "forward")};
}

/// Writes the trace of step_markers() to `path` and opens it read-only; null (and a failed expectation) when
/// SQLite cannot open it.
auto open_step_trace(const std::filesystem::path& path) -> detail::Connection {
  write_with_markers(path, step_markers());
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  detail::Connection owned(db);
  EXPECT_EQ(rc, SQLITE_OK) << path;
  return rc == SQLITE_OK ? std::move(owned) : detail::Connection{};
}

TEST(MarkersTest, round_trip_sorts_by_start_and_keeps_every_field) {
  TempDir dir;
  const auto path = dir.file("m.sqlite");
  write_with_markers(path, step_markers());
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().schema_version, 6);
  EXPECT_EQ(kSchemaVersion, 6);
  auto table = reader->markers();
  ASSERT_TRUE(table) << table.error().describe();
  EXPECT_TRUE(table->present);
  EXPECT_EQ(table->note, "");
  EXPECT_EQ(table->skipped_rows, 0u);
  EXPECT_EQ(names(*table), (std::vector<std::string>{"step", "forward", "backward", "checkpoint"}));
  const core::MarkerRecord& step = table->rows[0];
  EXPECT_EQ(step.pid, 4321);
  EXPECT_EQ(step.tid, 11u);
  EXPECT_EQ(step.start_ns, kT0 + 10 * kMs);
  EXPECT_EQ(step.end_ns, kT0 + 60 * kMs);
  EXPECT_EQ(step.depth, 0u);
  EXPECT_EQ(step.domain, "");
  EXPECT_EQ(table->rows[1].depth, 1u);
  const core::MarkerRecord& mark = table->rows[3];
  EXPECT_TRUE(mark.is_mark());
  EXPECT_EQ(mark.domain, "PyTorch");
  EXPECT_EQ(mark.tid, 12u);
  EXPECT_EQ(reader->sample_count(), 4u) << "samples are untouched";
}

// A job that marks every operator is cut at the cap, in id order, and the note says how many were left out;
// the row account still adds up (rows + left out = table rows, nothing counted as damage).
TEST(MarkersTest, markers_past_the_cap_are_left_out_and_said) {
  TempDir dir;
  const auto path = dir.file("m.sqlite");
  const detail::Connection db = open_step_trace(path);
  ASSERT_NE(db, nullptr);
  auto all = detail::scan_markers(db.get(), path.string());
  auto cut = detail::scan_markers(db.get(), path.string(), 2);
  ASSERT_TRUE(all) << all.error().describe();
  ASSERT_TRUE(cut) << cut.error().describe();
  const std::size_t total = all->rows.size();
  ASSERT_GT(total, 2u);
  EXPECT_EQ(all->left_out_rows, 0u);
  EXPECT_EQ(all->note, "");
  EXPECT_EQ(cut->rows.size(), 2u);
  EXPECT_EQ(cut->left_out_rows, total - 2);
  EXPECT_EQ(cut->skipped_rows, 0u);
  EXPECT_EQ(cut->note, "trace " + path.string() + ": read the first 2 NVTX markers, " +
                           std::to_string(total - 2) + " more left out (at most 2 are read)");
}

TEST(MarkersTest, the_columns_and_index_hold_what_sql_users_read) {
  TempDir dir;
  const auto path = dir.file("m.sqlite");
  const detail::Connection db = open_step_trace(path);
  ASSERT_NE(db, nullptr);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db.get(),
                               "SELECT pid, tid, start_ns, end_ns, depth, domain, name, "
                               "(SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = "
                               "'markers_start_ns') FROM markers WHERE name = 'checkpoint'",
                               -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(s, 0), 4321);
  EXPECT_EQ(sqlite3_column_int64(s, 1), 12);
  EXPECT_EQ(sqlite3_column_int64(s, 2), kT0 + 40 * kMs);
  EXPECT_EQ(sqlite3_column_int64(s, 3), kT0 + 40 * kMs);
  EXPECT_EQ(sqlite3_column_int64(s, 4), 0);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 5))), "PyTorch");
  EXPECT_EQ(sqlite3_column_int64(s, 7), 1) << "the start_ns index exists";
  sqlite3_finalize(s);
}

TEST(MarkersTest, names_and_domains_are_cut_at_512_bytes_on_a_character_boundary) {
  TempDir dir;
  const auto path = dir.file("m.sqlite");
  // 511 ASCII bytes, then a 2-byte character that would end at byte 513: cut before it, at 511.
  const std::string long_name = std::string(511, 'n') + "\xc3\xa9" + std::string(100, 'x');
  const std::string long_domain = std::string(600, 'd');
  write_with_markers(path, {marker(1, 1, 2, 0, long_domain, long_name), marker(1, 3, 4, 0, "", "short")});
  const MarkerTable table = read_markers(path);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0].name, std::string(511, 'n'));
  EXPECT_EQ(table.rows[0].domain, std::string(kMaxKernelNameBytes, 'd'));
  EXPECT_EQ(table.rows[1].name, "short");
}

TEST(MarkersTest, a_range_that_ends_before_it_starts_refuses_the_whole_batch) {
  TempDir dir;
  const auto path = dir.file("m.sqlite");
  auto writer = Writer::open(path);
  ASSERT_TRUE(writer);
  const std::vector<core::MarkerRecord> batch = {marker(1, 1, 2, 0, "", "fine"),
                                                 marker(1, 5, 4, 0, "", "bad")};
  auto refused = writer->append_markers(batch);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(refused.error().message, "NVTX range \"bad\" of thread 1 ends (" + std::to_string(kT0 + 4 * kMs) +
                                         " ns) before it starts (" + std::to_string(kT0 + 5 * kMs) + " ns)");
  ASSERT_TRUE(writer->append_markers(std::span(batch).first(1)));
  ASSERT_TRUE(writer->close());
  EXPECT_EQ(names(read_markers(path)), std::vector<std::string>{"fine"});
  Writer moved = std::move(*writer);
  ASSERT_TRUE(moved.close());
  EXPECT_EQ(writer->append_markers(batch).error().code, core::ErrorCode::FailedPrecondition);
}

TEST(MarkersTest, markers_are_committed_with_the_batch_without_close) {
  TempDir dir;
  const auto path = dir.file("m.sqlite");
  auto writer = Writer::open(path, {.batch_samples = 2});
  ASSERT_TRUE(writer);
  const auto markers = step_markers();
  // 4 markers with batch_samples 2: the append commits them at once (the batch is full).
  ASSERT_TRUE(writer->append_markers(markers));
  EXPECT_EQ(read_markers(path).rows.size(), 4u) << "readable while the writer is still open";
  ASSERT_TRUE(writer->close());
}

TEST(MarkersTest, a_schema_5_trace_has_no_nvtx_information) {
  TempDir dir;
  const auto path = dir.file("old.sqlite");
  write_with_markers(path, step_markers());
  // What a schema-5 writer left: no markers table, schema_version 5.
  testing::run_sql(path, "DROP TABLE markers; UPDATE meta SET value = '5' WHERE key = 'schema_version';");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().schema_version, 5);
  auto table = reader->markers();
  ASSERT_TRUE(table);
  EXPECT_FALSE(table->present);
  EXPECT_TRUE(table->rows.empty());
  EXPECT_EQ(table->skipped_rows, 0u);
  EXPECT_EQ(table->note, "");
  EXPECT_EQ(reader->sample_count(), 4u);
}

TEST(MarkersTest, the_schema_1_fixture_has_no_nvtx_information) {
  auto reader = Reader::open(SOLSCOPE_TEST_DATA_DIR "/synthetic/synthetic-v1.sqlite");
  ASSERT_TRUE(reader);
  auto table = reader->markers();
  ASSERT_TRUE(table);
  EXPECT_FALSE(table->present);
  EXPECT_EQ(table->note, "");
}

TEST(MarkersTest, a_schema_6_file_that_lost_its_markers_table_says_so) {
  TempDir dir;
  const auto path = dir.file("m.sqlite");
  write_with_markers(path, step_markers());
  testing::run_sql(path, "DROP TABLE markers;");
  const MarkerTable table = read_markers(path);
  EXPECT_FALSE(table.present);
  EXPECT_EQ(table.note, "trace " + path.string() +
                            " is damaged: its markers table is missing, no NVTX marker can be read");
}

TEST(MarkersTest, rows_with_values_outside_their_domain_are_skipped_and_counted) {
  TempDir dir;
  const auto path = dir.file("m.sqlite");
  write_with_markers(path, step_markers());
  // Ids 1-4 as appended: backward, step, checkpoint, forward. Three damaged cells; "step" stays intact.
  testing::run_sql(path,
                   "UPDATE markers SET end_ns = start_ns - 1 WHERE id = 1;"
                   "UPDATE markers SET depth = -3 WHERE id = 3;"
                   "UPDATE markers SET tid = 4294967296 WHERE id = 4;");
  const MarkerTable table = read_markers(path);
  EXPECT_TRUE(table.present);
  EXPECT_EQ(names(table), std::vector<std::string>{"step"});
  EXPECT_EQ(table.skipped_rows, 3u);
  EXPECT_EQ(table.note,
            "trace " + path.string() +
                ": its markers table is damaged: read 1 NVTX markers; markers: 3 of 4 rows damaged "
                "and skipped (SQLite: a marker's ids or times lie outside their domain (a damaged "
                "row))");
}

/// The page numbers of the markers table's leaves (SQLite's dbstat virtual table).
auto marker_leaf_pages(const std::filesystem::path& path) -> std::vector<std::int64_t> {
  std::vector<std::int64_t> pages;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(
        db, "SELECT pageno FROM dbstat WHERE name = 'markers' AND pagetype = 'leaf' ORDER BY pageno", -1, &s,
        nullptr);
    while (s != nullptr && sqlite3_step(s) == SQLITE_ROW) pages.push_back(sqlite3_column_int64(s, 0));
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return pages;
}

TEST(MarkersTest, a_zeroed_leaf_of_the_markers_table_is_stepped_over_and_counted) {
  TempDir dir;
  const auto path = dir.file("m.sqlite");
  constexpr std::uint32_t kTotal = 3000;
  std::vector<core::MarkerRecord> markers;
  for (std::uint32_t i = 1; i <= kTotal; ++i)  // tid = id, so the rows around the damage are known
    markers.push_back(marker(i, i, i + 1, 0, "", "range " + std::string(100, 'r')));
  write_with_markers(path, markers);
  const auto leaves = marker_leaf_pages(path);
  if (leaves.empty()) GTEST_SKIP() << "this SQLite has no dbstat table to find the markers' pages";
  ASSERT_GE(leaves.size(), 10u) << "27 leaves of some 110 rows each (SQLite 3.40)";
  // A leaf in the middle: rows before and after it survive. Pages are numbered from 1.
  const auto page = static_cast<std::size_t>(leaves[leaves.size() / 2]) - 1;
  auto bytes = testing::read_bytes(path);
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(page * kPageSizeBytes),
            bytes.begin() + static_cast<std::ptrdiff_t>((page + 1) * kPageSizeBytes), '\0');
  testing::write_bytes(path, bytes, bytes.size());

  const MarkerTable table = read_markers(path);
  EXPECT_TRUE(table.present);
  EXPECT_GT(table.skipped_rows, 10u);
  EXPECT_LT(table.skipped_rows, 300u) << "one 16 KiB leaf holds some 130 of these rows";
  EXPECT_EQ(table.rows.size() + table.skipped_rows, kTotal);
  EXPECT_EQ(table.rows.front().tid, 1u);
  EXPECT_EQ(table.rows.back().tid, kTotal);
  EXPECT_THAT(table.note,
              ::testing::StartsWith("trace " + path.string() + ": its markers table is damaged: read " +
                                    std::to_string(table.rows.size()) + " NVTX markers; markers: " +
                                    std::to_string(table.skipped_rows) + " of 3,000 rows damaged"));
}

}  // namespace
}  // namespace solscope::trace
