// A trace cut short or with damaged pages: the reader returns an error or the committed prefix, never
// crashes. (Style rule 17; run this binary under -DSOLSCOPE_SANITIZE=ON too.)
#include <gtest/gtest.h>

#include <gmock/gmock.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/reader.hpp"
#include "trace/schema.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {
namespace {

using testing::identical;
using testing::read_all;
using testing::TempDir;

constexpr std::uint32_t kDevices = 3;
constexpr std::uint64_t kPerDevice = 400;
constexpr std::size_t kPage = kPageSizeBytes;

/// Asserts that `back` is a prefix of `original`, sample for sample.
void expect_prefix(const std::vector<core::RawSample>& back, const std::vector<core::RawSample>& original,
                   const std::string& context) {
  ASSERT_LE(back.size(), original.size()) << context;
  for (std::size_t i = 0; i < back.size(); ++i) {
    ASSERT_TRUE(identical(back[i], original[i])) << context << ": sample " << i;
  }
}

/// Opens `path`; an error must be one of the documented refusals; a success must read a prefix.
void expect_error_or_prefix(const std::filesystem::path& path, const std::vector<core::RawSample>& original,
                            const std::string& context, bool expect_recovered) {
  auto reader = Reader::open(path);
  if (!reader) {
    const auto code = reader.error().code;
    EXPECT_TRUE(code == core::ErrorCode::DataLoss || code == core::ErrorCode::InvalidArgument)
        << context << ": " << reader.error().describe();
    return;
  }
  if (expect_recovered) {
    EXPECT_TRUE(reader->recovered()) << context;
    EXPECT_FALSE(reader->recovery_note().empty()) << context;
  }
  const auto back = read_all(*reader);
  EXPECT_EQ(back.samples.size(), reader->sample_count()) << context;
  expect_prefix(back.samples, original, context);
}

class DamageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fixture_ = dir_.file("fixture.sqlite");
    auto written = synthetic::write_trace(fixture_, kDevices, kPerDevice, 11, {.batch_samples = 50});
    ASSERT_TRUE(written) << written.error().describe();
    original_ = synthetic::samples(kDevices, kPerDevice, 11);
    bytes_ = testing::read_bytes(fixture_);
    ASSERT_EQ(bytes_.size() % kPage, 0u);
    ASSERT_GE(bytes_.size() / kPage, 10u);
  }

  TempDir dir_;
  std::filesystem::path fixture_;
  std::vector<core::RawSample> original_;
  std::vector<char> bytes_;
};

TEST_F(DamageTest, fixture_reads_whole) {
  auto reader = Reader::open(fixture_);
  ASSERT_TRUE(reader);
  EXPECT_FALSE(reader->recovered());
  const auto back = read_all(*reader);
  ASSERT_EQ(back.samples.size(), original_.size());
  expect_prefix(back.samples, original_, "whole");
}

TEST_F(DamageTest, truncation_at_many_offsets_reads_a_prefix) {
  const std::size_t size = bytes_.size();
  const std::size_t pages = size / kPage;
  std::set<std::size_t> cuts = {1,    15,        16,    99,        100,       101,
                                4096, kPage - 1, kPage, kPage + 1, 2 * kPage, size - 1};
  for (std::size_t k = pages - 8; k < pages; ++k) {  // every page boundary region near the end
    cuts.insert({k * kPage - 1, k * kPage, k * kPage + 1, k * kPage + kPage / 2});
  }
  std::mt19937_64 rng(20240601);
  while (cuts.size() < 60) cuts.insert(1 + rng() % (size - 1));

  std::size_t opened_with_samples = 0;
  for (const std::size_t cut : cuts) {
    const auto path = dir_.file("cut-" + std::to_string(cut) + ".sqlite");
    testing::write_bytes(path, bytes_, cut);
    const std::string context = "cut at " + std::to_string(cut) + " of " + std::to_string(size);
    expect_error_or_prefix(path, original_, context, /*expect_recovered=*/true);
    auto reader = Reader::open(path);
    if (reader && reader->sample_count() > 0) ++opened_with_samples;
    std::filesystem::remove(path);
  }
  // Cuts in the last pages keep most samples: the recovery must actually recover something.
  EXPECT_GE(opened_with_samples, 20u);
}

TEST_F(DamageTest, cut_near_the_end_keeps_the_samples_before_it) {
  const auto path = dir_.file("cut.sqlite");
  testing::write_bytes(path, bytes_, bytes_.size() - kPage / 2);
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_TRUE(reader->recovered());
  EXPECT_NE(reader->recovery_note().find("is cut short"), std::string::npos) << reader->recovery_note();
  EXPECT_GT(reader->sample_count(), 0u);
  auto summary = reader->for_each({}, [](const core::RawSample&) { return true; });
  ASSERT_TRUE(summary);
  EXPECT_TRUE(summary->recovered);
  EXPECT_EQ(summary->samples, reader->sample_count());
}

TEST_F(DamageTest, header_cut_inside_first_100_bytes_is_data_loss) {
  const auto path = dir_.file("cut.sqlite");
  testing::write_bytes(path, bytes_, 60);
  auto reader = Reader::open(path);
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(reader.error().message, "trace " + path.string() +
                                        " is cut short inside its header (60 bytes): "
                                        "nothing can be read");
}

TEST_F(DamageTest, corrupt_pages_never_crash) {
  const std::size_t pages = bytes_.size() / kPage;
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<char> damaged = bytes_;
    const std::size_t page =
        trial < static_cast<int>(pages) ? static_cast<std::size_t>(trial) : rng() % pages;
    const int mode = trial % 3;
    const std::size_t begin = page * kPage;
    if (mode == 0) {  // the whole page random
      for (std::size_t i = 0; i < kPage; ++i) damaged[begin + i] = static_cast<char>(rng());
    } else if (mode == 1) {  // the whole page zeroed
      std::fill(damaged.begin() + static_cast<std::ptrdiff_t>(begin),
                damaged.begin() + static_cast<std::ptrdiff_t>(begin + kPage), 0);
    } else {  // 32 random bytes somewhere in the page
      const std::size_t at = begin + rng() % (kPage - 32);
      for (std::size_t i = 0; i < 32; ++i) damaged[at + i] = static_cast<char>(rng());
    }
    const auto path = dir_.file("bad-" + std::to_string(trial) + ".sqlite");
    testing::write_bytes(path, damaged, damaged.size());
    auto reader = Reader::open(path);
    if (reader) {
      // Decoding must survive any content; SOL figures too (derive over whatever was read).
      const auto raw = read_all(*reader);
      std::uint64_t sol_count = 0;
      auto summary =
          reader->for_each_sol({}, [&](const core::SolSample&) { return ++sol_count < 1'000'000; });
      EXPECT_TRUE(summary || summary.error().code == core::ErrorCode::DataLoss);
      EXPECT_LE(raw.samples.size(), 10 * original_.size()) << "trial " << trial;
    } else {
      const auto code = reader.error().code;
      EXPECT_TRUE(code == core::ErrorCode::DataLoss || code == core::ErrorCode::InvalidArgument ||
                  code == core::ErrorCode::Unimplemented)
          << "trial " << trial << ": " << reader.error().describe();
    }
    std::filesystem::remove(path);
  }
}

TEST_F(DamageTest, truncated_wal_reads_its_committed_prefix) {
  // A writer still open holds its samples in the -wal; copies of the pair, with the -wal cut at many offsets,
  // stand for a crash during a WAL write.
  const auto live = dir_.file("live.sqlite");
  const auto devices = synthetic::devices(kDevices);
  auto writer = Writer::open(live, {.batch_samples = 60});
  ASSERT_TRUE(writer);
  ASSERT_TRUE(writer->write_devices(devices));
  for (const auto& raw : original_)
    ASSERT_TRUE(writer->append(raw, core::derive(raw, devices[raw.device_index])));
  ASSERT_TRUE(writer->flush());
  const auto main_bytes = testing::read_bytes(live);
  const auto wal_bytes = testing::read_bytes(live.string() + "-wal");
  ASSERT_GT(wal_bytes.size(), 10 * kPage);

  std::mt19937_64 rng(5);
  std::size_t best = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t cut = trial == 0 ? wal_bytes.size() : rng() % wal_bytes.size();
    const auto copy = dir_.file("copy-" + std::to_string(trial) + ".sqlite");
    testing::write_bytes(copy, main_bytes, main_bytes.size());
    testing::write_bytes(copy.string() + "-wal", wal_bytes, cut);
    const std::string context = "wal cut at " + std::to_string(cut);
    auto reader = Reader::open(copy);
    ASSERT_TRUE(reader || reader.error().code == core::ErrorCode::InvalidArgument) << context;
    if (!reader) continue;  // cut before the schema was committed: an empty database
    const auto back = read_all(*reader);
    EXPECT_FALSE(back.damaged) << context;  // a cut -wal loses whole transactions, never half of one
    expect_prefix(back.samples, original_, context);
    if (trial == 0) {
      EXPECT_EQ(back.samples.size(), original_.size());
    }
    best = std::max(best, back.samples.size());
    EXPECT_TRUE(std::filesystem::exists(copy.string() + "-wal")) << "the reader must leave the -wal alone";
  }
  EXPECT_EQ(best, original_.size());
  ASSERT_TRUE(writer->close());
}

// --- What a read of a damaged trace says: samples read and skipped, and where the damage begins. ---

const std::filesystem::path kDemo = SOLSCOPE_TEST_DATA_DIR "/demo-trace.sqlite";
constexpr std::uint64_t kDemoSamples = 4800;

/// A copy of the demo trace in `dir` with `edit` applied to its bytes.
template <class Edit>
auto damaged_demo(const TempDir& dir, const std::string& name, const Edit& edit) -> std::filesystem::path {
  auto bytes = testing::read_bytes(kDemo);
  edit(bytes);
  const auto path = dir.file(name);
  testing::write_bytes(path, bytes, bytes.size());
  return path;
}

TEST(DamageReportTest, one_flipped_byte_in_the_demo_trace_skips_one_row_and_says_where) {
  // The reproduction of issue 10 item 1: this byte lies in a cell of sample 2171. The read used to stop there
  // (2170 of 4800 samples) and say nothing.
  TempDir dir;
  const auto path = damaged_demo(dir, "flip.sqlite", [](std::vector<char>& b) { b[991589] = '\xa9'; });
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto summary = reader->for_each({}, [](const core::RawSample&) { return true; });
  ASSERT_TRUE(summary) << summary.error().describe();
  EXPECT_EQ(summary->samples, kDemoSamples - 1);
  const ReadReport& r = summary->report;
  EXPECT_EQ(r.skipped_rows, 1u);
  EXPECT_EQ(r.damaged_ranges, 1u);
  EXPECT_EQ(r.first_skipped_id, 2171);
  EXPECT_EQ(r.last_skipped_id, 2171);
  EXPECT_EQ(r.damage_after_ns, std::optional<std::int64_t>(1767225654300000000));
  EXPECT_FALSE(r.stopped);
  EXPECT_TRUE(summary->recovered);
  EXPECT_EQ(summary->note, "trace " + path.string() +
                               " is damaged: read 4799 samples; samples: 1 of 4,800 rows damaged and "
                               "skipped: the damage begins at "
                               "sample id 2171, after 54.3 s of the trace (t_end_ns 1767225654300000000) "
                               "(SQLite: database disk image is malformed)");
  // The SOL path (export) reads the same.
  auto sol = reader->for_each_sol({}, [](const core::SolSample&) { return true; });
  ASSERT_TRUE(sol);
  EXPECT_EQ(sol->samples, kDemoSamples - 1);
  EXPECT_EQ(sol->report.skipped_rows, 1u);
}

TEST(DamageReportTest, a_zeroed_page_in_the_middle_is_stepped_over_and_counted) {
  // Page 61 (1-based) is a leaf of the samples table: every row on it is lost, the rows after it are not.
  TempDir dir;
  const auto path = damaged_demo(dir, "zero.sqlite", [](std::vector<char>& b) {
    std::fill(b.begin() + 60 * kPage, b.begin() + 61 * kPage, '\0');
  });
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto summary = reader->for_each({}, [](const core::RawSample&) { return true; });
  ASSERT_TRUE(summary);
  const ReadReport& r = summary->report;
  EXPECT_EQ(summary->samples + r.skipped_rows, kDemoSamples) << summary->note;
  EXPECT_EQ(r.damaged_ranges, 1u);
  EXPECT_GT(r.skipped_rows, 1u);
  EXPECT_LT(r.skipped_rows, 200u) << "one 16 KiB leaf holds well under 200 rows";
  // Every row before the damaged range and every row after it was read.
  EXPECT_EQ(summary->samples, static_cast<std::uint64_t>(r.first_skipped_id - 1) +
                                  (kDemoSamples - static_cast<std::uint64_t>(r.last_skipped_id)));
  EXPECT_FALSE(r.stopped);
}

TEST_F(DamageTest, counters_too_short_or_of_the_wrong_type_are_counted_and_named) {
  testing::run_sql(fixture_,
                   "UPDATE sample_counters SET raw = x'0102' WHERE sample_id IN (3, 4);"
                   "UPDATE sample_counters SET raw = 42 WHERE sample_id = 9;"
                   "UPDATE sample_counters SET raw = 'abc' WHERE sample_id = 10;"
                   "DELETE FROM sample_counters WHERE sample_id = 11;");
  auto reader = Reader::open(fixture_);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto summary = reader->for_each({}, [](const core::RawSample&) { return true; });
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->samples, original_.size()) << "the rows themselves read";
  EXPECT_EQ(summary->report.unknown_counters, 5u);
  EXPECT_EQ(summary->report.first_unknown_counters_id, 3);
  EXPECT_EQ(summary->report.skipped_rows, 0u);
  EXPECT_EQ(summary->note,
            "trace " + fixture_.string() +
                " is damaged: read 1200 samples; 5 samples have unreadable counters (the first: "
                "id 3), read as unknown");
  const auto back = read_all(*reader);
  EXPECT_TRUE(std::isnan(back.samples[2].values[0]));
  EXPECT_TRUE(identical(back.samples[1], original_[1]));
}

TEST(DamageReportTest, a_trace_cut_to_64_kib_is_refused_as_unreadable) {
  // Used to open with 0 samples and no error (exit 0 for replay and export).
  TempDir dir;
  auto bytes = testing::read_bytes(kDemo);
  const auto path = dir.file("cut.sqlite");
  testing::write_bytes(path, bytes, 64 * 1024);
  auto reader = Reader::open(path);
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code, core::ErrorCode::DataLoss);
  EXPECT_THAT(reader.error().message,
              ::testing::HasSubstr("is cut short (64.0 KiB of the 2.0 MiB its header declares)"));
  EXPECT_THAT(reader.error().message, ::testing::EndsWith(": no sample can be read"));
}

TEST_F(DamageTest, a_damaged_schema_entry_is_data_loss_at_open) {
  // "CREATE TABLE samples(" made unparsable: the table is listed but unknown to SQLite ("no such table:
  // samples"). Used to open and fail at the first read with an Internal error (exit 2 from replay).
  const std::string needle = "CREATE TABLE samples(";
  const auto at = std::search(bytes_.begin(), bytes_.end(), needle.begin(), needle.end());
  ASSERT_NE(at, bytes_.end());
  std::vector<char> damaged = bytes_;
  damaged[static_cast<std::size_t>(at - bytes_.begin()) + 5] = 'X';
  const auto path = dir_.file("schema.sqlite");
  testing::write_bytes(path, damaged, damaged.size());
  auto reader = Reader::open(path);
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code, core::ErrorCode::DataLoss);
  EXPECT_THAT(
      reader.error().message,
      ::testing::HasSubstr("is damaged beyond repair: its schema is unreadable (no such table: samples"));
}

}  // namespace
}  // namespace solscope::trace
