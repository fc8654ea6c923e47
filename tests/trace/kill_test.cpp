// A writer killed with SIGKILL at random moments leaves a file that opens with every sample it reported
// committed; the samples still in the -wal are read without checkpointing or removing it.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <random>

#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {
namespace {

using testing::identical;
using testing::read_all;
using testing::TempDir;

constexpr std::uint32_t kDevices = 3;
constexpr std::uint64_t kSeed = 9;

/// The child: appends synthetic samples forever (or `limit` per device, then waits to be killed), writing
/// committed_samples() to `fd` after each change. Never returns.
[[noreturn]] void run_writer_child(const std::filesystem::path& path, std::size_t batch, std::uint64_t limit,
                                   int fd) {
  auto writer = Writer::open(path, {.batch_samples = batch});
  if (!writer) _exit(3);
  const auto devices = synthetic::devices(kDevices);
  if (!writer->write_devices(devices)) _exit(4);
  std::uint64_t reported = 0;
  for (std::uint64_t n = 0; n < limit; ++n) {
    for (std::uint32_t d = 0; d < kDevices; ++d) {
      const auto raw = synthetic::sample(d, n, kSeed);
      if (!writer->append(raw, core::derive(raw, devices[d]))) _exit(5);
    }
    if (writer->committed_samples() != reported) {
      reported = writer->committed_samples();
      if (write(fd, &reported, sizeof reported) != sizeof reported) _exit(6);
    }
  }
  if (!writer->flush()) _exit(7);
  reported = writer->committed_samples();
  if (write(fd, &reported, sizeof reported) != sizeof reported) _exit(6);
  for (;;) pause();
}

struct Child {
  pid_t pid = -1;
  int fd = -1;
};

auto spawn_writer(const std::filesystem::path& path, std::size_t batch, std::uint64_t limit) -> Child {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    run_writer_child(path, batch, limit, fds[1]);
  }
  close(fds[1]);
  return {pid, fds[0]};
}

/// Reads committed counts until one reaches `target` (or the pipe ends); returns the last count read.
auto read_until(int fd, std::uint64_t target) -> std::uint64_t {
  std::uint64_t last = 0;
  std::uint64_t value = 0;
  while (last < target && read(fd, &value, sizeof value) == sizeof value) last = value;
  return last;
}

/// SIGKILLs the child, reaps it, and drains the pipe: the largest count the child ever reported.
auto kill_and_drain(const Child& child, std::uint64_t seen) -> std::uint64_t {
  kill(child.pid, SIGKILL);
  int status = 0;
  waitpid(child.pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child exited by itself: " << status;
  std::uint64_t value = 0;
  while (read(child.fd, &value, sizeof value) == sizeof value) seen = std::max(seen, value);
  close(child.fd);
  return seen;
}

void expect_committed_prefix(const std::filesystem::path& path, std::uint64_t committed,
                             const std::string& context) {
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << context << ": " << reader.error().describe();
  EXPECT_GE(reader->sample_count(), committed) << context;
  const auto back = read_all(*reader);
  EXPECT_FALSE(back.damaged) << context;
  ASSERT_GE(back.samples.size(), committed) << context;
  const auto expected = synthetic::samples(kDevices, back.samples.size() / kDevices + 1, kSeed);
  for (std::size_t i = 0; i < back.samples.size(); ++i) {
    ASSERT_TRUE(identical(back.samples[i], expected[i])) << context << ": sample " << i;
  }
}

TEST(KillTest, sigkill_at_random_moments_keeps_every_committed_sample) {
  TempDir dir;
  std::mt19937_64 rng(424242);
  int with_wal = 0;
  for (int round = 0; round < 20; ++round) {
    const auto path = dir.file("killed-" + std::to_string(round) + ".sqlite");
    const std::size_t batch = 8 + rng() % 120;
    const Child child = spawn_writer(path, batch, std::numeric_limits<std::uint64_t>::max());
    ASSERT_GT(child.pid, 0);
    const std::uint64_t target = 1 + rng() % 6000;
    std::uint64_t seen = read_until(child.fd, target);
    usleep(
        static_cast<useconds_t>(rng() % 3000));  // land the kill anywhere: mid-append, mid-commit, checkpoint
    seen = kill_and_drain(child, seen);
    const std::string context = "round " + std::to_string(round) + " (batch " + std::to_string(batch) +
                                ", reported " + std::to_string(seen) + ")";
    ASSERT_GT(seen, 0u) << context;
    if (std::filesystem::exists(path.string() + "-wal") &&
        std::filesystem::file_size(path.string() + "-wal") > 0) {
      ++with_wal;
    }
    expect_committed_prefix(path, seen, context);
  }
  EXPECT_GT(with_wal, 0) << "no kill left a -wal behind: the WAL read path went untested";
}

TEST(KillTest, samples_only_in_the_wal_are_read_and_the_wal_is_left_alone) {
  TempDir dir;
  const auto path = dir.file("wal-only.sqlite");
  const Child child = spawn_writer(path, 64, 200);  // 600 samples, far below the 1000-page auto-checkpoint
  ASSERT_GT(child.pid, 0);
  std::uint64_t seen = read_until(child.fd, 600);
  seen = kill_and_drain(child, seen);
  ASSERT_EQ(seen, 600u);

  const auto wal = std::filesystem::path(path.string() + "-wal");
  ASSERT_TRUE(std::filesystem::exists(wal));
  const auto wal_size = std::filesystem::file_size(wal);
  ASSERT_GT(wal_size, 0u);
  // The main file alone (opened immutable, which ignores the -wal) has no samples yet: they live in the -wal.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(("file:" + path.string() + "?immutable=1").c_str(), &db,
                            SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr),
            SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  const int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM samples", -1, &s, nullptr);
  const bool main_has_samples =
      rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int64(s, 0) > 0;
  sqlite3_finalize(s);
  sqlite3_close(db);
  EXPECT_FALSE(main_has_samples);

  expect_committed_prefix(path, 600, "wal only");
  {
    auto reader = Reader::open(path);
    ASSERT_TRUE(reader);
    EXPECT_EQ(reader->sample_count(), 600u);
    EXPECT_FALSE(reader->recovered());
  }
  EXPECT_TRUE(std::filesystem::exists(wal));
  EXPECT_EQ(std::filesystem::file_size(wal), wal_size);
}

}  // namespace
}  // namespace solscope::trace
