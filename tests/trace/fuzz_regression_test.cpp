// Defects the libFuzzer target fuzz/trace_reader_fuzz.cpp found in the reader, each with the smallest trace
// that shows it (the fuzzer's own inputs are in fuzz/corpus/trace_reader).
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "data/synthetic/synthetic_trace.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"

namespace solscope::trace {
namespace {

using testing::identical;
using testing::read_all;
using testing::TempDir;

// Sample ids spanning more than INT64_MAX (a valid SQLite file: rowids may be negative) overflowed the binary
// search behind ReadOptions::from_ns (UBSan: signed integer overflow in first_id_at_or_after).
TEST(TraceFuzzRegression, from_ns_seek_over_ids_spanning_the_whole_int64_range) {
  TempDir dir;
  const auto path = dir.file("wide-ids.sqlite");
  constexpr std::uint64_t kSamples = 20;
  ASSERT_TRUE(synthetic::write_trace(path, 1, kSamples, 3));
  const auto original = synthetic::samples(1, kSamples, 3);
  const std::string lowest = std::to_string(std::numeric_limits<std::int64_t>::min() + 1);
  testing::run_sql(path, "UPDATE samples SET id = " + lowest +
                             " WHERE id = 1;"
                             "UPDATE sample_counters SET sample_id = " +
                             lowest + " WHERE sample_id = 1;");

  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  ASSERT_EQ(reader->sample_count(), kSamples);
  for (const std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{19}}) {
    ReadOptions from;
    from.from_ns = original[first].t_start_ns;
    const auto back = read_all(*reader, from);
    ASSERT_EQ(back.samples.size(), kSamples - first) << "from sample " << first;
    for (std::size_t i = 0; i < back.samples.size(); ++i) {
      EXPECT_TRUE(identical(back.samples[i], original[first + i])) << "from sample " << first << ", " << i;
    }
  }
}

/// The page size and the root page of the samples table, read with the plain SQLite API.
auto samples_root(const std::filesystem::path& path) -> std::pair<std::size_t, std::size_t> {
  sqlite3* db = nullptr;
  std::pair<std::size_t, std::size_t> out{0, 0};
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db,
                       "SELECT (SELECT page_size FROM pragma_page_size), rootpage FROM sqlite_schema "
                       "WHERE name = 'samples'",
                       -1, &s, nullptr);
    if (s != nullptr && sqlite3_step(s) == SQLITE_ROW) {
      out = {static_cast<std::size_t>(sqlite3_column_int64(s, 0)),
             static_cast<std::size_t>(sqlite3_column_int64(s, 1))};
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return out;
}

/// A two-byte SQLite varint (values 128..16383), as in the file format's §1.6.
auto varint2(const char* p) -> std::optional<std::uint32_t> {
  const auto b0 = static_cast<unsigned char>(p[0]);
  const auto b1 = static_cast<unsigned char>(p[1]);
  if ((b0 & 0x80U) == 0 || (b1 & 0x80U) != 0) return std::nullopt;
  return ((b0 & 0x7fU) << 7U) | b1;
}

// A damaged divider key in the samples b-tree's interior page sends a seek `id >= mid` into the left child,
// which ends below mid, and SQLite answers with the right child's first id: one BELOW mid. The binary search
// behind ReadOptions::from_ns then moved its lower bound back and never ended (libFuzzer timeout in CI, in
// first_id_at_or_after).
TEST(TraceFuzzRegression, from_ns_seek_ends_when_a_damaged_divider_answers_an_id_below_the_probe) {
  TempDir dir;
  const auto path = dir.file("divider.sqlite");
  constexpr std::uint64_t kSamples = 3000;
  ASSERT_TRUE(synthetic::write_trace(path, 1, kSamples, 3));
  const auto original = synthetic::samples(1, kSamples, 3);
  const auto [page_size, root] = samples_root(path);
  ASSERT_GT(root, 0U);
  auto bytes = testing::read_bytes(path);
  const std::size_t page = (root - 1) * page_size + (root == 1 ? 100 : 0);
  ASSERT_EQ(static_cast<unsigned char>(bytes[page]), 0x05) << "the samples root is an interior table page";
  const std::size_t cells =
      (static_cast<unsigned char>(bytes[page + 3]) << 8U) | static_cast<unsigned char>(bytes[page + 4]);
  // Raise each two-byte divider to just below the next one (the same varint length, so nothing else moves).
  int raised = 0;
  for (std::size_t c = 0; c + 1 < cells; ++c) {
    const auto cell_at = [&](std::size_t i) {
      const std::size_t ptr = page + 12 + 2 * i;
      return (root - 1) * page_size +
             ((static_cast<unsigned char>(bytes[ptr]) << 8U) | static_cast<unsigned char>(bytes[ptr + 1])) +
             4;
    };
    const auto key = varint2(&bytes[cell_at(c)]);
    const auto next = varint2(&bytes[cell_at(c + 1)]);
    if (!key || !next || *next - *key < 4) continue;
    const std::uint32_t raised_key = *next - 2;
    bytes[cell_at(c)] = static_cast<char>(0x80U | (raised_key >> 7U));
    bytes[cell_at(c) + 1] = static_cast<char>(raised_key & 0x7fU);
    ++raised;
  }
  ASSERT_GT(raised, 2);
  testing::write_bytes(path, bytes, bytes.size());

  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  for (const std::size_t first : {std::size_t{1}, std::size_t{1000}, std::size_t{2000}, kSamples - 3}) {
    ReadOptions from;
    from.from_ns = original[first].t_start_ns;
    const auto back = read_all(*reader, from);
    // Every row at or after `first` is intact; the search may start late only where the damage hides rows.
    ASSERT_FALSE(back.samples.empty()) << "from sample " << first;
    EXPECT_GE(back.samples.front().t_start_ns, from.from_ns) << "from sample " << first;
    EXPECT_EQ(back.samples.back().t_start_ns, original.back().t_start_ns) << "from sample " << first;
  }
}

// A leaf page of the samples b-tree holding rowid 6 twice, out of order: reading the stored figures of each
// sample (a second statement) made SQLite hand out the second row 6 forever (libFuzzer timeout in CI). Ids
// must rise in a time-ordered read; one that does not is stepped over as damage. The first row 6 (in id 5's
// slot) holds no device and garbage times: a damaged row (issue 18), so the second, intact one is read.
TEST(TraceFuzzRegression, a_duplicate_rowid_is_stepped_over_and_the_read_ends) {
  const auto path =
      std::filesystem::path(SOLSCOPE_TEST_DATA_DIR) / "synthetic" / "damaged-duplicate-rowid.sqlite";
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  for (const bool sol : {false, true}) {
    std::vector<std::int64_t> starts;
    auto summary = sol ? reader->for_each_sol({},
                                              [&](const core::SolSample& s) {
                                                starts.push_back(s.t_start_ns);
                                                return starts.size() < 100;
                                              })
                       : reader->for_each({}, [&](const core::RawSample& s) {
                           starts.push_back(s.t_start_ns);
                           return starts.size() < 100;
                         });
    ASSERT_TRUE(summary) << summary.error().describe();
    // Ids 1-4, the intact 6, then 7-10 (id 5's slot holds the damaged 6).
    EXPECT_EQ(starts.size(), 9U) << (sol ? "for_each_sol" : "for_each");
    EXPECT_EQ(summary->samples, 9U);
    EXPECT_TRUE(summary->recovered);
    EXPECT_EQ(summary->report.skipped_rows, 1U);
    EXPECT_EQ(summary->report.cause, "a sample's device or times lie outside the trace (a damaged row)");
  }
}

}  // namespace
}  // namespace solscope::trace
