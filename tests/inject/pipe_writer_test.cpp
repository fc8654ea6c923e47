// The injection library's non-blocking writer on real pipes: records arrive intact, a full pipe drops and
// counts without blocking, a closed reader neither blocks nor kills the process (SIGPIPE), and the buffer
// pool is bounded.
#include "inject/detail/pipe_writer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include "inject/detail/buffer_pool.hpp"

namespace solscope::inject {
namespace {

struct Pipe {
  int read_fd = -1;
  int write_fd = -1;
  explicit Pipe(int capacity_bytes = 0) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    read_fd = fds[0];
    write_fd = fds[1];
    if (capacity_bytes > 0) {
      EXPECT_EQ(::fcntl(write_fd, F_SETPIPE_SZ, capacity_bytes), capacity_bytes);
    }
  }
  ~Pipe() {
    close_read();
    ::close(write_fd);
  }
  Pipe(const Pipe&) = delete;
  auto operator=(const Pipe&) -> Pipe& = delete;
  void close_read() {
    if (read_fd >= 0) {
      ::close(read_fd);
      read_fd = -1;
    }
  }
  /// Everything in the pipe now, without blocking.
  auto drain() -> std::vector<std::uint8_t> {
    ::fcntl(read_fd, F_SETFL, ::fcntl(read_fd, F_GETFL) | O_NONBLOCK);
    std::vector<std::uint8_t> out;
    std::uint8_t chunk[8192];
    for (;;) {
      const ssize_t n = ::read(read_fd, chunk, sizeof(chunk));
      if (n <= 0) {
        break;
      }
      out.insert(out.end(), chunk, chunk + n);
    }
    return out;
  }
};

auto kernel(int i, std::size_t name_bytes) -> Kernel {
  Kernel k;
  k.start_cupti_ns = static_cast<std::uint64_t>(i) * 100;
  k.end_cupti_ns = k.start_cupti_ns + 50;
  k.name = std::string(name_bytes, 'k');
  return k;
}

auto decode_all(const std::vector<std::uint8_t>& bytes) -> std::vector<WireRecord> {
  StreamDecoder dec;
  std::vector<WireRecord> out;
  dec.feed(bytes, out);
  EXPECT_EQ(dec.finish(out), 0U);
  EXPECT_EQ(dec.first_error(), "");
  return out;
}

template <class T>
auto count_of(const std::vector<WireRecord>& records) -> std::size_t {
  std::size_t n = 0;
  for (const auto& r : records) {
    n += std::holds_alternative<T>(r.body) ? 1 : 0;
  }
  return n;
}

TEST(PipeWriter, RecordsArriveWholeWithThePid) {
  Pipe pipe;
  PipeWriter writer(pipe.write_fd, 321);
  writer.on_record(Hello{13000, 130001});
  for (int i = 0; i < 100; ++i) {
    writer.on_record(kernel(i, 40));
  }
  writer.flush();
  const auto records = decode_all(pipe.drain());
  ASSERT_EQ(records.size(), 101U);
  EXPECT_EQ(records[0], (WireRecord{321, Hello{13000, 130001}}));
  EXPECT_EQ(std::get<Kernel>(records[100].body), kernel(99, 40));
  EXPECT_EQ(writer.stats().kernels_sent, 100U);
  EXPECT_EQ(writer.stats().kernels_dropped, 0U);
  EXPECT_EQ(writer.stats().frames_sent, 3U);  // 12 + 100 x 102 bytes need three frames of 4,080 payload bytes
  EXPECT_NE(::fcntl(pipe.write_fd, F_GETFL) & O_NONBLOCK, 0);
}

TEST(PipeWriter, AFullPipeDropsAndCountsInsteadOfBlocking) {
  Pipe pipe(4096);  // one page: the smallest pipe Linux makes
  PipeWriter writer(pipe.write_fd, 5);
  Device device;
  device.cuda_device = 0;
  device.uuid[0] = 0xAB;
  writer.on_record(device);
  // 7 kernels a frame: 500-byte names make 562-byte records (8 would need 4,496 bytes). The first frame
  // (3,974 bytes) fills the one-page pipe; every later one finds it full.
  constexpr int kKernels = 70;
  for (int i = 0; i < kKernels; ++i) {
    writer.on_record(kernel(i, 500));
  }
  writer.flush();
  const auto& stats = writer.stats();
  EXPECT_EQ(stats.frames_sent, 1U);
  EXPECT_EQ(stats.kernels_sent + stats.kernels_dropped, static_cast<std::uint64_t>(kKernels));
  EXPECT_EQ(stats.kernels_sent, 7U);
  EXPECT_EQ(stats.kernels_dropped, 63U);
  EXPECT_FALSE(stats.broken);

  // The reader catches up: the next frame re-sends the device and the drop total before new kernels.
  EXPECT_EQ(count_of<Kernel>(decode_all(pipe.drain())), 7U);
  writer.on_record(kernel(1000, 8));
  writer.flush();
  const auto after = decode_all(pipe.drain());
  ASSERT_EQ(after.size(), 3U);
  EXPECT_EQ(after[0], (WireRecord{5, device}));
  EXPECT_EQ(after[1], (WireRecord{5, Dropped{63, 0}}));
  EXPECT_EQ(std::get<Kernel>(after[2].body).start_cupti_ns, 100'000U);
}

TEST(PipeWriter, DropTotalsIncludeCuptisAndAreSentOncePerChange) {
  Pipe pipe;
  PipeWriter writer(pipe.write_fd, 5);
  writer.add_cupti_dropped(12);
  writer.flush();
  writer.flush();  // unchanged: nothing more to send
  writer.add_cupti_dropped(3);
  writer.flush();
  const auto records = decode_all(pipe.drain());
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].body, RecordBody(Dropped{0, 12}));
  EXPECT_EQ(records[1].body, RecordBody(Dropped{0, 15}));
}

TEST(PipeWriter, AClosedReaderBreaksThePipeWithoutASignal) {
  Pipe pipe;
  pipe.close_read();
  PipeWriter writer(pipe.write_fd, 5);
  writer.on_record(kernel(1, 8));
  writer.flush();  // EPIPE: SIGPIPE would end this test process
  EXPECT_TRUE(writer.stats().broken);
  EXPECT_EQ(writer.broken_errno(), EPIPE);
  writer.on_record(kernel(2, 8));
  writer.flush();
  EXPECT_EQ(writer.stats().kernels_dropped, 2U);
  EXPECT_EQ(writer.stats().frames_sent, 0U);
}

// A job's workers share the pipe: frames from concurrent processes interleave whole, in each process's order.
TEST(PipeWriter, FramesFromManyProcessesNeverMix) {
  Pipe pipe(65536);
  constexpr int kChildren = 4;
  constexpr int kKernelsEach = 2000;
  std::vector<pid_t> children;
  for (int c = 0; c < kChildren; ++c) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(pipe.read_fd);
      PipeWriter writer(pipe.write_fd, static_cast<std::int32_t>(::getpid()));
      for (int i = 0; i < kKernelsEach; ++i) {
        writer.on_record(kernel(i, 16 + static_cast<std::size_t>(i % 64)));
      }
      writer.flush();
      ::_exit(0);
    }
    children.push_back(pid);
  }
  ::close(pipe.write_fd);
  pipe.write_fd = ::dup(pipe.read_fd);  // keeps the destructor's close harmless
  StreamDecoder dec;
  std::vector<WireRecord> records;
  std::uint8_t chunk[3000];  // not a multiple of the frame size: frames straddle reads
  for (;;) {
    const ssize_t n = ::read(pipe.read_fd, chunk, sizeof(chunk));  // blocking: EOF once every child exited
    if (n <= 0) {
      break;
    }
    dec.feed(std::span<const std::uint8_t>(chunk, static_cast<std::size_t>(n)), records);
  }
  EXPECT_EQ(dec.finish(records), 0U);
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(dec.stats().bad_frames, 0U);
  EXPECT_EQ(dec.first_error(), "");
  std::map<std::int32_t, std::uint64_t> next_start;  // per pid: kernels arrive in order (drops leave gaps)
  std::size_t kernels = 0;
  for (const auto& r : records) {
    ASSERT_NE(std::find(children.begin(), children.end(), r.pid), children.end());
    if (const auto* k = std::get_if<Kernel>(&r.body)) {
      EXPECT_GE(k->start_cupti_ns, next_start[r.pid]);
      EXPECT_EQ(k->name.size(), 16 + (k->start_cupti_ns / 100) % 64);
      next_start[r.pid] = k->start_cupti_ns + 1;
      ++kernels;
    }
  }
  EXPECT_GT(kernels, 0U);
  EXPECT_LE(kernels, static_cast<std::size_t>(kChildren * kKernelsEach));
}

TEST(BufferPool, BoundedAlignedAndRecycled) {
  BufferPool pool(1001, 2);
  EXPECT_EQ(pool.buffer_bytes(), 1008U);
  auto* a = pool.acquire();
  auto* b = pool.acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 8, 0U);
  EXPECT_EQ(pool.acquire(), nullptr);  // both out: CUPTI gets no buffer and counts its drops
  EXPECT_EQ(pool.outstanding(), 2U);
  pool.release(a);
  EXPECT_EQ(pool.acquire(), a);
  pool.release(a);
  pool.release(b);
  EXPECT_EQ(pool.outstanding(), 0U);
}

}  // namespace
}  // namespace solscope::inject
