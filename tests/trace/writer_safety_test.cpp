// Writer safety (issue 10): one recorder per file, only regular files, a full disk stops the recording with
// one error that counts the kept samples, and a moved-from Writer is inert.
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/full_disk_vfs.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {
namespace {

using testing::TempDir;
namespace fs = std::filesystem;

constexpr std::uint32_t kDevices = 2;
constexpr std::uint64_t kSeed = 11;

/// Appends samples n = first .. first + count - 1 of every device (device-interleaved, in time order).
auto append_samples(Writer& writer, std::uint64_t first, std::uint64_t count) -> core::Result<void> {
  const auto devices = synthetic::devices(kDevices);
  for (std::uint64_t n = first; n < first + count; ++n) {
    for (std::uint32_t d = 0; d < kDevices; ++d) {
      const auto raw = synthetic::sample(d, n, kSeed);
      if (auto done = writer.append(raw, core::derive(raw, devices[d])); !done) return done;
    }
  }
  return core::ok();
}

auto count_occurrences(const std::string& text, const std::string& word) -> int {
  int count = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++count;
  return count;
}

TEST(WriterSafetyTest, a_second_writer_of_a_recorded_file_is_refused_and_names_the_holder) {
  TempDir dir;
  const auto path = dir.file("same.sqlite");
  auto first = Writer::open(path, {.overwrite = true, .batch_samples = 10});
  ASSERT_TRUE(first) << first.error().describe();
  ASSERT_TRUE(first->write_devices(synthetic::devices(kDevices)));
  ASSERT_TRUE(append_samples(*first, 0, 100));

  // Before the lock, the second Writer replaced the file and the first one's samples were lost.
  auto second = Writer::open(path, {.overwrite = true});
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(second.error().message, "trace " + path.string() + " is being recorded by another process (pid " +
                                        std::to_string(::getpid()) + ")");

  // A reader is not locked out while the recording goes on.
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->sample_count(), first->committed_samples());

  ASSERT_TRUE(append_samples(*first, 100, 50));
  ASSERT_TRUE(first->close());
  auto back = Reader::open(path);
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(back->sample_count(), 300u);

  // Once the first is closed the path is free again.
  auto third = Writer::open(path, {.overwrite = true});
  ASSERT_TRUE(third) << third.error().describe();
}

TEST(WriterSafetyTest, a_path_that_is_not_a_regular_file_is_refused_without_a_sidecar) {
  TempDir dir;
  // A Unix socket file: open(2) fails with ENXIO, so the old code answered a vague errno error.
  const auto socket_path = dir.file("socket");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof(address.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  auto writer = Writer::open(socket_path, {.overwrite = true});
  ::close(fd);
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(writer.error().message,
            "trace path " + socket_path.string() + " is a socket, not a regular file");

  // A character device (as /dev/null; mknod needs root): the old code had SQLite create "null-journal".
  const auto device_path = dir.file("null");
  if (::mknod(device_path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    auto on_device = Writer::open(device_path, {.overwrite = true});
    ASSERT_FALSE(on_device);
    EXPECT_EQ(on_device.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_NE(on_device.error().message.find("is a character device"), std::string::npos);
  }
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, fs::exists(device_path) ? 2 : 1) << "nothing created beside the refused paths";
}

TEST(WriterSafetyTest, a_full_disk_at_the_start_leaves_no_file) {
  TempDir dir;
  testing::FullDisk disk;
  ASSERT_TRUE(disk.installed());
  disk.set_full(true);
  const auto path = dir.file("run.sqlite");
  auto writer = Writer::open(path);
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().code, core::ErrorCode::ResourceExhausted) << writer.error().describe();
  EXPECT_GT(disk.refused_writes(), 0);
  EXPECT_FALSE(fs::exists(path)) << "an empty file was left behind";
}

TEST(WriterSafetyTest, a_full_disk_stops_with_one_error_that_counts_the_kept_samples) {
  TempDir dir;
  testing::FullDisk disk;
  ASSERT_TRUE(disk.installed());
  const auto path = dir.file("run.sqlite");
  auto writer = Writer::open(path, {.batch_samples = 50, .reorder_window_ns = 0});
  ASSERT_TRUE(writer) << writer.error().describe();
  ASSERT_TRUE(writer->write_devices(synthetic::devices(kDevices)));
  ASSERT_TRUE(append_samples(*writer, 0, 100));
  const std::uint64_t kept = writer->committed_samples();
  ASSERT_GT(kept, 0u);

  disk.set_full(true);
  auto failed = append_samples(*writer, 100, 100);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, core::ErrorCode::ResourceExhausted);
  const std::string& message = failed.error().message;
  EXPECT_EQ(count_occurrences(message, "cannot commit"), 1) << message;
  EXPECT_NE(message.find("; the trace keeps the " + std::to_string(kept) + " samples committed before, "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(" buffered samples were not saved"), std::string::npos) << message;
  EXPECT_EQ(count_occurrences(message, path.string()), 1) << message;
  EXPECT_EQ(failed.error().hint, "free space on that filesystem and record again");

  // Stopped: later writes are refused without another disk error, and close() reports nothing new.
  const int refused = disk.refused_writes();
  auto later = append_samples(*writer, 200, 100);
  ASSERT_FALSE(later);
  EXPECT_EQ(later.error().code, core::ErrorCode::FailedPrecondition);
  EXPECT_EQ(writer->buffered_samples(), 0u);
  EXPECT_TRUE(writer->close()) << "the error was reported once already";
  EXPECT_EQ(disk.refused_writes() - refused, 0) << "no commit was retried after the stop";

  disk.set_full(false);
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->sample_count(), kept);
}

TEST(WriterSafetyTest, a_full_disk_before_the_first_commit_removes_the_trace) {
  TempDir dir;
  testing::FullDisk disk;
  ASSERT_TRUE(disk.installed());
  const auto path = dir.file("run.sqlite");
  auto writer = Writer::open(path, {.batch_samples = 50});
  ASSERT_TRUE(writer) << writer.error().describe();
  ASSERT_TRUE(writer->write_devices(synthetic::devices(kDevices)));
  disk.set_full(true);
  auto failed = append_samples(*writer, 0, 100);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("no sample was saved, the empty trace is removed"), std::string::npos)
      << failed.error().message;
  EXPECT_TRUE(writer->close());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
}

/// In a child with a file size limit of `limit_bytes` (SIGXFSZ ignored): opens a Writer at `path` and appends
/// until a write fails; exits 0 when that failure is ResourceExhausted, 1 for any other code, 2 when none
/// failed.
[[noreturn]] void write_until_the_limit(const fs::path& path, rlim_t limit_bytes) {
  std::signal(SIGXFSZ, SIG_IGN);
  const rlimit limit{limit_bytes, limit_bytes};
  ::setrlimit(RLIMIT_FSIZE, &limit);
  auto writer = Writer::open(path);
  if (!writer) std::_Exit(writer.error().code == core::ErrorCode::ResourceExhausted ? 0 : 1);
  if (auto done = append_samples(*writer, 0, 100'000); !done) {
    std::_Exit(done.error().code == core::ErrorCode::ResourceExhausted ? 0 : 1);
  }
  std::_Exit(2);
}

TEST(WriterSafetyTest, the_file_size_limit_is_a_full_disk_too) {
  // RLIMIT_FSIZE (or a quota) makes write(2) fail with EFBIG (EDQUOT), which SQLite reports as a plain I/O
  // error. Before: Unavailable, "check the disk and its permissions", so `import` said nothing of a full
  // disk.
  TempDir dir;
  for (const rlim_t limit : {rlim_t{64} << 10, rlim_t{400} << 10}) {
    const fs::path path = dir.file("limited-" + std::to_string(limit) + ".sqlite");
    EXPECT_EXIT(write_until_the_limit(path, limit), ::testing::ExitedWithCode(0), "") << limit;
  }
}

TEST(WriterSafetyTest, a_moved_from_writer_refuses_every_call_without_crashing) {
  TempDir dir;
  auto opened = Writer::open(dir.file("t.sqlite"));
  ASSERT_TRUE(opened) << opened.error().describe();
  Writer owner = std::move(*opened);
  const auto devices = synthetic::devices(kDevices);
  const auto raw = synthetic::sample(0, 0, kSeed);
  const auto sol = core::derive(raw, devices[0]);

  Writer& moved = *opened;  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_EQ(moved.write_devices(devices).error().code, core::ErrorCode::FailedPrecondition);
  EXPECT_EQ(moved.set_metadata("command", "x").error().code, core::ErrorCode::FailedPrecondition);
  EXPECT_EQ(moved.append(raw, sol).error().code, core::ErrorCode::FailedPrecondition);
  EXPECT_EQ(moved.flush().error().code, core::ErrorCode::FailedPrecondition);
  EXPECT_EQ(moved.committed_samples(), 0u);
  EXPECT_EQ(moved.buffered_samples(), 0u);
  EXPECT_TRUE(moved.path().empty());
  EXPECT_TRUE(moved.close());

  // The owner works, and move-assigning over a live Writer closes it first.
  ASSERT_TRUE(owner.write_devices(devices));
  ASSERT_TRUE(owner.append(raw, sol));
  auto other = Writer::open(dir.file("u.sqlite"));
  ASSERT_TRUE(other) << other.error().describe();
  *other = std::move(owner);
  EXPECT_EQ(other->path(), dir.file("t.sqlite"));
  ASSERT_TRUE(other->close());
  EXPECT_EQ(other->committed_samples(), 1u);
  auto reader = Reader::open(dir.file("u.sqlite"));
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->sample_count(), 0u);
}

}  // namespace
}  // namespace solscope::trace
