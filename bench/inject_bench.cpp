// CPU cost per kernel record of the injection library's path (issue 14, item 5): walking a CUPTI activity
// buffer, demangling (cached), encoding kernel-wire frames and writing them to a pipe that a reader thread
// keeps drained. The activity stream is SYNTHETIC (real CUpti_ActivityKernel10 structs, no GPU), walked by
// the fake cuptiActivityGetNextRecord of the tests and, where libcupti is installed, by the real one.
// Baseline in the same run: copying each record (memcpy of sizeof(CUpti_ActivityKernel10) bytes), the least
// any consumer must do. Report figures as ns per record and as ratios to the baseline.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "inject/detail/activity_parse.hpp"
#include "inject/detail/cupti_activity_api.hpp"
#include "inject/detail/pipe_writer.hpp"
#include "inject/fake_activity_buffer.hpp"

namespace {

using namespace solscope::inject;

constexpr std::size_t kRecords = 4096;  // about one 1 MiB CUPTI buffer's worth

// 32 kernel names in the style of real workloads (mangled C++ templates and C-linkage Triton kernels).
auto kernel_names() -> const std::vector<std::string>& {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (int i = 0; i < 16; ++i) {
      out.push_back("_ZN7cutlass6KernelINS_4gemm6kernel4GemmILi" + std::to_string(i) + "EEEEEvNT_6ParamsE");
      out.push_back("triton_poi_fused_add_mul_" + std::to_string(i));
    }
    return out;
  }();
  return names;
}

auto make_buffer() -> test::ActivityBuffer {
  test::ActivityBuffer buf;
  const auto& names = kernel_names();
  for (std::size_t i = 0; i < kRecords; ++i) {
    const auto start = static_cast<std::uint64_t>(i) * 10'000;
    buf.add(test::kernel_record(names[i % names.size()].c_str(), start, start + 7'500,
                                static_cast<std::uint32_t>(i % 8)));
  }
  return buf;
}

class NullSink final : public RecordSink {
 public:
  void on_record(const RecordBody& body) override { benchmark::DoNotOptimize(&body); }
};

class EncodeSink final : public RecordSink {
 public:
  void on_record(const RecordBody& body) override {
    if (!encoder_.add(body)) {
      benchmark::DoNotOptimize(encoder_.finish().data());
      encoder_.clear();
      (void)encoder_.add(body);
    }
  }

 private:
  FrameEncoder encoder_{1};
};

// A pipe whose read end a thread drains as fast as it can, as the recorder does.
class DrainedPipe {
 public:
  DrainedPipe() {
    int fds[2];
    if (::pipe(fds) != 0) {
      return;
    }
    read_fd_ = fds[0];
    write_fd_ = fds[1];
    reader_ = std::thread([this] {
      std::array<std::uint8_t, 65536> chunk{};
      while (::read(read_fd_, chunk.data(), chunk.size()) > 0) {
      }
    });
  }
  ~DrainedPipe() {
    ::close(write_fd_);  // the reader sees EOF
    if (reader_.joinable()) {
      reader_.join();
    }
    ::close(read_fd_);
  }
  DrainedPipe(const DrainedPipe&) = delete;
  auto operator=(const DrainedPipe&) -> DrainedPipe& = delete;
  [[nodiscard]] auto write_fd() const -> int { return write_fd_; }

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
  std::thread reader_;
};

void BM_Baseline_CopyRecord(benchmark::State& state) {
  auto buf = make_buffer();
  CUpti_ActivityKernel10 out{};
  for (auto _ : state) {
    for (std::size_t i = 0; i < kRecords; ++i) {
      std::memcpy(&out, buf.bytes() + i * sizeof(out), sizeof(out));
      benchmark::DoNotOptimize(out);
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRecords));
}
BENCHMARK(BM_Baseline_CopyRecord);

template <class Sink>
void run_parse(benchmark::State& state, NextRecordFn next, Sink& sink) {
  auto buf = make_buffer();
  NameCache names;
  for (auto _ : state) {
    const auto counts = parse_activity_buffer(buf.bytes(), buf.size(), next, names, sink);
    if (counts.kernels != kRecords) {
      state.SkipWithError("the walk did not yield every record");
      return;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRecords));
}

void BM_Parse(benchmark::State& state) {
  NullSink sink;
  run_parse(state, test::fake_next_record, sink);
}
BENCHMARK(BM_Parse);

void BM_ParseEncode(benchmark::State& state) {
  EncodeSink sink;
  run_parse(state, test::fake_next_record, sink);
}
BENCHMARK(BM_ParseEncode);

void BM_ParseEncodeWrite(benchmark::State& state) {
  DrainedPipe pipe;
  PipeWriter writer(pipe.write_fd(), 1);
  run_parse(state, test::fake_next_record, writer);
  writer.flush();
  state.counters["dropped_pct"] = 100.0 * static_cast<double>(writer.stats().kernels_dropped) /
                                  static_cast<double>(std::max<std::uint64_t>(
                                      1, writer.stats().kernels_sent + writer.stats().kernels_dropped));
}
BENCHMARK(BM_ParseEncodeWrite)->UseRealTime();

// The same with libcupti's own cuptiActivityGetNextRecord walking the buffer (skipped without libcupti).
void BM_ParseEncodeWrite_RealCuptiWalk(benchmark::State& state) {
  static CuptiActivityApi api;
  static const std::string why = api.load("");
  if (!why.empty()) {
    state.SkipWithError(why.c_str());
    return;
  }
  DrainedPipe pipe;
  PipeWriter writer(pipe.write_fd(), 1);
  run_parse(state, api.get_next_record, writer);
  writer.flush();
}
BENCHMARK(BM_ParseEncodeWrite_RealCuptiWalk)->UseRealTime();

}  // namespace
