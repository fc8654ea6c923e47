// A damaged frame in the middle of a -wal: SQLite applies the frames before it and silently ignores every
// later one, whole commits included. The reader must say so when it opens the trace.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/detail/wal_probe.hpp"
#include "trace/reader.hpp"
#include "trace/schema.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

constexpr std::size_t kWalHeaderBytes = 32;
constexpr std::size_t kFrameBytes = 24 + kPageSizeBytes;

/// A trace whose writer is still open: every commit is in the -wal. Copies of the pair are made from it.
class WalDamageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    live_ = dir_.file("live.sqlite");
    const auto devices = synthetic::devices(2);
    auto writer = Writer::open(live_, {.batch_samples = 40});
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->write_devices(devices));
    original_ = synthetic::samples(2, 600, 3);
    for (const auto& raw : original_)
      ASSERT_TRUE(writer->append(raw, core::derive(raw, devices[raw.device_index])));
    ASSERT_TRUE(writer->flush());
    main_ = testing::read_bytes(live_);
    wal_ = testing::read_bytes(live_.string() + "-wal");
    ASSERT_TRUE(writer->close());  // the copies above keep the -wal as a running writer leaves it
    ASSERT_GT(wal_.size(), kWalHeaderBytes + 20 * kFrameBytes);
  }
  /// Writes a copy of the trace with `wal` as its -wal.
  auto copy_with(const std::string& name, const std::vector<char>& wal) const -> std::filesystem::path {
    const auto path = dir_.file(name);
    testing::write_bytes(path, main_, main_.size());
    testing::write_bytes(path.string() + "-wal", wal, wal.size());
    return path;
  }

  TempDir dir_;
  std::filesystem::path live_;
  std::vector<core::RawSample> original_;
  std::vector<char> main_;
  std::vector<char> wal_;
};

TEST_F(WalDamageTest, an_intact_wal_says_nothing) {
  const auto path = copy_with("whole.sqlite", wal_);
  EXPECT_FALSE(detail::probe_wal(path.string() + "-wal").has_value());
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_FALSE(reader->recovered()) << reader->recovery_note();
  EXPECT_EQ(reader->sample_count(), original_.size());
}

TEST_F(WalDamageTest, a_torn_last_frame_is_not_reported_as_lost_commits) {
  std::vector<char> cut = wal_;
  cut.resize(wal_.size() - kPageSizeBytes / 2);  // a killed writer's half-written frame
  const auto path = copy_with("torn.sqlite", cut);
  EXPECT_FALSE(detail::probe_wal(path.string() + "-wal").has_value());
}

TEST_F(WalDamageTest, a_damaged_frame_in_the_middle_is_reported_with_the_commits_it_drops) {
  const std::size_t frames = (wal_.size() - kWalHeaderBytes) / kFrameBytes;
  const std::size_t bad = frames / 2;
  std::vector<char> damaged = wal_;
  damaged[kWalHeaderBytes + bad * kFrameBytes + 24 + 100] ^= 0x5a;  // one byte of that frame's page
  const auto path = copy_with("flip.sqlite", damaged);

  const auto probe = detail::probe_wal(path.string() + "-wal");
  ASSERT_TRUE(probe.has_value()) << "was silent: SQLite drops the commits after the damaged frame";
  EXPECT_FALSE(probe->header_damaged);
  EXPECT_EQ(probe->first_bad_frame, bad);
  EXPECT_EQ(probe->first_bad_offset_bytes, kWalHeaderBytes + bad * kFrameBytes);
  EXPECT_GT(probe->lost_commits, 0u);
  EXPECT_GT(probe->applied_commits, 0u);
  EXPECT_EQ(probe->lost_frames, frames - bad);

  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_TRUE(reader->recovered());
  EXPECT_LT(reader->sample_count(), original_.size()) << "SQLite really drops them";
  EXPECT_EQ(reader->recovery_note(),
            "trace " + path.string() + " has a damaged write-ahead log: SQLite stops at frame " +
                std::to_string(bad) + " (byte " + std::to_string(probe->first_bad_offset_bytes) + " of " +
                path.string() + "-wal), so " + std::to_string(probe->lost_commits) + " later commit(s) (" +
                std::to_string(probe->lost_frames) + " pages) in it are not read; copy " + path.string() +
                " and its -wal before opening the trace with any other tool (a read-write open checkpoints "
                "the log and discards them): " +
                std::to_string(reader->sample_count()) + " samples can be read");
  // A read says it too, with the count.
  auto summary = reader->for_each({}, [](const core::RawSample&) { return true; });
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->samples, reader->sample_count());
  EXPECT_TRUE(summary->recovered);
  EXPECT_THAT(summary->note, HasSubstr("has a damaged write-ahead log"));
  const auto problem = reader->problem(summary->report);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->hint, "the lost commits are still in " + path.string() +
                               "-wal, past a frame SQLite rejects; keep both files");
  EXPECT_TRUE(std::filesystem::exists(path.string() + "-wal")) << "the reader leaves the -wal alone";
}

TEST_F(WalDamageTest, a_damaged_wal_header_drops_the_whole_log_and_says_so) {
  std::vector<char> damaged = wal_;
  damaged[24] ^= 0x01;  // checksum-1 of the header: SQLite ignores a log whose header does not match
  const auto path = copy_with("header.sqlite", damaged);
  const auto probe = detail::probe_wal(path.string() + "-wal");
  ASSERT_TRUE(probe.has_value());
  EXPECT_TRUE(probe->header_damaged);
  EXPECT_EQ(probe->applied_commits, 0u);
  EXPECT_GT(probe->lost_commits, 0u) << "the frames' salts still match: every commit in the log is lost";
}

}  // namespace
}  // namespace solscope::trace
