// Fakes for the tests of `solscope check`'s orchestration: a KernelRunner with deterministic launches and
// times on a fake clock, and counter sources that replay samples built from the phases the runner ran.
// SYNTHETIC: every figure here is chosen by the test, none is a GPU measurement.
#pragma once

#include <atomic>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "check/kernel_runner.hpp"
#include "check/run/check_run.hpp"
#include "sources/counter_source.hpp"

namespace solscope::testing {

inline constexpr std::int64_t kMs = 1'000'000;
inline constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;  ///< fake epoch of the check

/// The fake timeline: the main thread advances it (sleeps, runs); the sources read it.
struct FakeTimeline {
  std::mutex mutex;
  std::int64_t now_ns = kT0;
  struct Window {
    std::string kernel;
    std::int64_t start_ns, end_ns;
  };
  std::vector<Window> windows;            ///< every kernel run, in order
  std::int64_t sampling_interval_ns = 0;  ///< the interval of the source running now (0 = none)

  auto now() -> std::int64_t {
    std::lock_guard lock(mutex);
    return now_ns;
  }
  void advance(std::int64_t ns) {
    std::lock_guard lock(mutex);
    now_ns += ns;
  }
  /// The window of the kernel running at `t` (nullptr when none).
  auto window_at(std::int64_t t) -> const Window* {
    std::lock_guard lock(mutex);
    for (const auto& w : windows) {
      if (t >= w.start_ns && t < w.end_ns) return &w;
    }
    return nullptr;
  }
  /// The kernel running at `t` ("" when none).
  auto running_at(std::int64_t t) -> std::string {
    std::lock_guard lock(mutex);
    for (const auto& w : windows) {
      if (t >= w.start_ns && t < w.end_ns) return w.kernel;
    }
    return {};
  }
  auto clock() -> app::CheckClock {
    return app::CheckClock{.now_ns = [this] { return now(); },
                           .sleep_ns = [this](std::int64_t ns, const std::atomic<bool>&) { advance(ns); }};
  }
};

/// A runner whose phases take exactly the asked duration of fake time: launches = duration / 1 ms, or
/// `launches_at` of the sampling interval when set (overhead runs); kernels in `faulting` return Aborted.
class FakeRunner : public check::KernelRunner {
 public:
  explicit FakeRunner(FakeTimeline& timeline) : timeline_(timeline) {
    facts_.compute_capability = 80;
    facts_.sm_count = 108;
    facts_.l2_bytes = 40ull << 20;
    facts_.chip = "GA100";
  }
  std::set<std::string> faulting;
  std::function<std::uint64_t(std::int64_t interval_ns)> launches_at;
  int loads = 0;
  std::vector<std::string> ran;

  auto device() const -> const check::DeviceFacts& override { return facts_; }
  auto load(std::span<const check::KernelSpec>) -> core::Result<void> override {
    ++loads;
    return core::ok();
  }
  auto run(const check::KernelSpec& kernel, const check::LaunchShape&, std::int64_t duration_ns,
           const std::atomic<bool>*) -> core::Result<check::RunResult> override {
    ran.emplace_back(kernel.name);
    if (faulting.contains(std::string(kernel.name))) {
      timeline_.advance(10 * kMs);
      // The real runner answers Aborted (kernel_runner.hpp); any error makes the phase a FAULT.
      return core::fail(core::ErrorCode::Aborted, "CUDA_ERROR_ILLEGAL_ADDRESS in " + std::string(kernel.name),
                        "check dmesg for Xid errors");
    }
    check::RunResult r;
    std::lock_guard lock(timeline_.mutex);
    r.wall_start_ns = timeline_.now_ns;
    timeline_.now_ns += duration_ns;
    r.wall_end_ns = timeline_.now_ns;
    r.gpu_elapsed_ns = duration_ns;
    r.launches = launches_at ? launches_at(timeline_.sampling_interval_ns)
                             : static_cast<std::uint64_t>(duration_ns / kMs);
    timeline_.windows.push_back({std::string(kernel.name), r.wall_start_ns, r.wall_end_ns});
    return r;
  }

 private:
  FakeTimeline& timeline_;
  check::DeviceFacts facts_;
};

/// The value a replayed sample carries for `metric` while `kernel` runs ("" = nothing runs), at `t`, or
/// NaN when the source does not measure it.
using SampleFigure = std::function<double(const std::string& kernel, core::MetricId metric,
                                          core::SourceKind source, std::int64_t t)>;

/// A started source that, at each poll, returns 10 ms samples of device 0 up to the timeline's now.
class ReplayingSource : public sources::CounterSource {
 public:
  ReplayingSource(FakeTimeline& timeline, SampleFigure figure, core::SourceKind kind,
                  std::int64_t interval_ns)
      : timeline_(timeline), figure_(std::move(figure)), kind_(kind), interval_ns_(interval_ns) {}
  ~ReplayingSource() override { stop(); }
  core::DeviceInfo info{.index = 0,
                        .uuid = "GPU-fake",
                        .name = "Fake GPU (synthetic)",
                        .sm_count = 108,
                        .max_sm_clock_mhz = 1410,
                        .dram_peak_bytes_per_s = 1.5e12};
  sources::DeviceStatus device_status;

  auto devices() const -> std::vector<core::DeviceInfo> override { return {info}; }
  auto start(const sources::SourceConfig&) -> core::Result<void> override {
    next_ns_ = timeline_.now();
    std::lock_guard lock(timeline_.mutex);
    timeline_.sampling_interval_ns = interval_ns_;
    return core::ok();
  }
  auto poll() -> core::Result<std::vector<core::RawSample>> override {
    std::vector<core::RawSample> out;
    const std::int64_t now = timeline_.now();
    for (; next_ns_ + interval_ns_ <= now; next_ns_ += interval_ns_) {
      core::RawSample s;
      s.device_index = 0;
      s.t_start_ns = next_ns_;
      s.t_end_ns = next_ns_ + interval_ns_;
      s.source = kind_;
      const std::string kernel = timeline_.running_at(next_ns_);
      for (std::size_t m = 0; m < core::kMetricCount; ++m) {
        const auto id = static_cast<core::MetricId>(m);
        s.set(id, figure_(kernel, id, kind_, next_ns_));
      }
      out.push_back(s);
    }
    return out;
  }
  void stop() override {
    if (stopped_) return;
    stopped_ = true;
    std::lock_guard lock(timeline_.mutex);
    timeline_.sampling_interval_ns = 0;
  }
  auto status(std::uint32_t) const -> sources::DeviceStatus override { return device_status; }

 private:
  FakeTimeline& timeline_;
  SampleFigure figure_;
  core::SourceKind kind_;
  std::int64_t interval_ns_;
  std::int64_t next_ns_ = 0;
  bool stopped_ = false;
};

}  // namespace solscope::testing
