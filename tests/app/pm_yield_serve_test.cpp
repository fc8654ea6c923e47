// Automatic yielding end to end through the daemon's wiring (LiveSampling, what `solscope serve` runs): a
// fake `ncu` process appears in a fake /proc, and the samples the HTTP stream would publish say within 1 s
// that PM sampling is paused (flag, reason, fallback source) and keep coming; the process ends, and within 5
// s they come from PM sampling again. The measured delays are printed for the record.
#include "runtime/live_sampling.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_counter_source.hpp"
#include "support/scratch_dir.hpp"

namespace solscope::app {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// One published sample, as the HTTP stream would send it, with the steady time it arrived.
struct Seen {
  Clock::time_point at;
  core::PmPauseReason reason = core::PmPauseReason::kNone;
  std::uint32_t flags = 0;
  core::SourceKind source = core::SourceKind::None;
};

class Published {
 public:
  void add(const core::SolSample& s) {
    const std::scoped_lock lock(mutex_);
    seen_.push_back(Seen{Clock::now(), s.pm_pause, s.flags, s.source});
  }
  /// The first sample from `from` on that satisfies `want`, waiting at most `limit`.
  auto first_after(Clock::time_point from, const std::function<bool(const Seen&)>& want, milliseconds limit)
      -> std::optional<Seen> {
    const auto until = Clock::now() + limit;
    while (Clock::now() < until) {
      {
        const std::scoped_lock lock(mutex_);
        for (const Seen& s : seen_) {
          if (s.at >= from && want(s)) return s;
        }
      }
      std::this_thread::sleep_for(milliseconds(5));
    }
    return std::nullopt;
  }
  auto count_between(Clock::time_point from, Clock::time_point to,
                     const std::function<bool(const Seen&)>& want) -> int {
    const std::scoped_lock lock(mutex_);
    int n = 0;
    for (const Seen& s : seen_) n += s.at >= from && s.at < to && want(s) ? 1 : 0;
    return n;
  }

 private:
  std::mutex mutex_;
  std::vector<Seen> seen_;
};

auto paused_by_profiler(const Seen& s) -> bool {
  return s.reason == core::PmPauseReason::kProfiler && (s.flags & core::kSamplePmPaused) != 0;
}
auto sampled_by_pm(const Seen& s) -> bool {
  return s.reason == core::PmPauseReason::kNone && (s.flags & core::kSamplePmPaused) == 0 &&
         s.source == core::SourceKind::PmSampling;
}

/// Writes a process directory beside `proc` and renames it in, so that a scan sees it whole or not at all.
/// `source` as one H100-like GPU (chip GH100: its perfmon lock is per GPU) that holds exclusive counters and
/// makes samples continuously.
void hopper_with_counters(testing::FakeCounterSource& source) {
  core::DeviceInfo h100;
  h100.index = 0;
  h100.uuid = "GPU-aaaa1111-2222-3333-4444-555566667777";
  h100.chip = "GH100";
  source.devices_list = {h100};
  source.yields_counters = true;
  source.generate = true;
}

void start_fake_ncu(const std::filesystem::path& proc, const std::filesystem::path& staging) {
  const auto dir = staging / "31337";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "comm") << "ncu\n";
  const std::string cmdline("/usr/local/cuda/bin/ncu\0--set\0full\0./app\0", 40);
  std::ofstream(dir / "cmdline", std::ios::binary) << cmdline;
  std::filesystem::rename(dir, proc / "31337");
}

TEST(PmYieldServeTest, a_fake_ncu_pauses_pm_sampling_within_1_s_and_its_end_resumes_it_within_5_s) {
  testing::ScratchDir scratch("solscope-yield-e2e");
  const auto proc = scratch.path() / "proc";
  std::filesystem::create_directories(proc);
  testing::FakeCounterSource source;
  hopper_with_counters(source);
  core::LiveState state;
  Published published;
  const std::atomic<bool> no_signal{false};
  PmYieldSetup yield = pm_yield_setup(core::PmPolicy::kYield, /*live=*/true);
  yield.procfs_root = proc;
  LiveSampling live(
      source, state, no_signal,
      LiveSamplingOptions{.engine = {.poll_interval_ns = 100'000'000},
                          .publish = [&published](const core::SolSample& s) { published.add(s); },
                          .pm_yield = std::move(yield)});

  const auto started = Clock::now();
  ASSERT_TRUE(published.first_after(started, sampled_by_pm, milliseconds(2000))) << "no PM samples at start";

  start_fake_ncu(proc, scratch.path());
  const auto appeared = Clock::now();
  const auto paused = published.first_after(appeared, paused_by_profiler, milliseconds(3000));
  ASSERT_TRUE(paused) << "PM sampling was not paused for the fake ncu";
  const auto pause_delay = std::chrono::duration_cast<milliseconds>(paused->at - appeared);
  EXPECT_LT(pause_delay, milliseconds(1000));
  EXPECT_EQ(paused->source, core::SourceKind::Gpm);  // the fallback's samples

  // The fallback samples go on while the profiler runs.
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_GE(published.count_between(paused->at, Clock::now(), paused_by_profiler), 3);
  EXPECT_EQ(published.count_between(paused->at + milliseconds(1), Clock::now(), sampled_by_pm), 0);

  std::filesystem::rename(proc / "31337", scratch.path() / "ended");  // the process ends
  const auto ended = Clock::now();
  const auto resumed = published.first_after(ended, sampled_by_pm, milliseconds(7000));
  ASSERT_TRUE(resumed) << "PM sampling was not taken again after the fake ncu ended";
  const auto resume_delay = std::chrono::duration_cast<milliseconds>(resumed->at - ended);
  EXPECT_LT(resume_delay, milliseconds(5000));
  live.stop();

  std::printf("[ measured ] fake ncu appeared -> first paused sample (reason profiler, GPM): %lld ms\n",
              static_cast<long long>(pause_delay.count()));
  std::printf("[ measured ] fake ncu ended -> first PM-sampling sample again: %lld ms\n",
              static_cast<long long>(resume_delay.count()));
  std::fflush(stdout);
  EXPECT_EQ(source.pause_calls.size(), 2u);  // one pause, one resume: no flapping
}

TEST(PmYieldServeTest, policy_never_marks_every_sample_and_watches_nothing) {
  testing::ScratchDir scratch("solscope-yield-never");
  start_fake_ncu(scratch.path(), scratch.path() / "staging");  // would pause, were profilers watched
  testing::FakeCounterSource source;
  hopper_with_counters(source);
  core::LiveState state;
  Published published;
  const std::atomic<bool> no_signal{false};
  PmYieldSetup yield = pm_yield_setup(core::PmPolicy::kNever, /*live=*/true);
  yield.procfs_root = scratch.path();
  const auto started = Clock::now();
  {
    LiveSampling live(
        source, state, no_signal,
        LiveSamplingOptions{.engine = {.poll_interval_ns = 100'000'000},
                            .publish = [&published](const core::SolSample& s) { published.add(s); },
                            .pm_yield = std::move(yield)});
    std::this_thread::sleep_for(milliseconds(400));
  }
  const auto any = [](const Seen&) { return true; };
  const auto by_policy = [](const Seen& s) {
    return s.reason == core::PmPauseReason::kPolicy && (s.flags & core::kSamplePmPaused) != 0;
  };
  EXPECT_GE(published.count_between(started, Clock::now(), any), 2);
  EXPECT_EQ(published.count_between(started, Clock::now(), by_policy),
            published.count_between(started, Clock::now(), any));
  EXPECT_TRUE(source.pause_calls.empty());  // nothing to give back: PM sampling was never asked for
}

}  // namespace
}  // namespace solscope::app
