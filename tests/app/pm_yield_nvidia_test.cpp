// Automatic yielding end to end with the real NVIDIA source: the daemon's wiring (LiveSampling, as `solscope
// serve` runs it) over NvidiaSource on a synthetic NVML (FakeNvml, an H100-like GPU with GPM) and a PM
// sampler that produces a sample per poll for every open GPU. A fake `ncu` appears in a fake /proc: the PM
// session is closed within 1 s and the GPM figures go on, flagged; it ends: the PM session is reopened within
// 5 s. The daemon's HTTP server says so meanwhile: /metrics `solscope_pm_paused{reason="profiler"} 1` and the
// profiler on /api/v1/profiling. Every figure is synthetic. The measured delays are printed for the record.
#include <httplib.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/live_sampling.hpp"
#include "server/server.hpp"
#include "sources/nvidia/detail/pm_sampling.hpp"
#include "sources/nvidia/nvidia_source.hpp"
#include "support/fake_nvml.hpp"
#include "support/scratch_dir.hpp"

namespace solscope::app {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

auto wall_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// A PM sampler that, on each poll, completes one sample per open GPU since the last one (tensor pipe 80 %).
/// Records when each GPU was opened and closed (steady time), for the test thread, under a mutex.
class GeneratingPm final : public nvidia::PmSampling {
 public:
  struct Events {
    std::mutex mutex;
    std::vector<Clock::time_point> opened;
    std::vector<Clock::time_point> closed;
  };
  explicit GeneratingPm(std::shared_ptr<Events> events) : events_(std::move(events)) {}

  auto open(std::uint32_t nvml_index, std::string_view /*pci_bus_id*/, std::int64_t /*interval_ns*/)
      -> core::Result<std::string> override {
    open_[nvml_index] = wall_ns();
    const std::scoped_lock lock(events_->mutex);
    events_->opened.push_back(Clock::now());
    return std::string("GH100");
  }
  auto poll() -> nvidia::PmPoll override {
    nvidia::PmPoll out;
    const std::int64_t now = wall_ns();
    for (auto& [device, last_ns] : open_) {
      core::RawSample s;
      s.device_index = device;
      s.t_start_ns = last_ns;
      s.t_end_ns = std::max(now, last_ns + 1);
      s.source = core::SourceKind::PmSampling;
      s.set(core::MetricId::TensorPipe, 80.0);
      last_ns = s.t_end_ns;
      out.samples.push_back(s);
    }
    return out;
  }
  void close(std::uint32_t nvml_index) override {
    open_.erase(nvml_index);
    const std::scoped_lock lock(events_->mutex);
    events_->closed.push_back(Clock::now());
  }
  void close_all() override { open_.clear(); }

 private:
  std::shared_ptr<Events> events_;
  std::map<std::uint32_t, std::int64_t> open_;  ///< open GPU -> end of its last sample
};

/// The body of GET `path` from the server on 127.0.0.1:`port`; "" when it does not answer 200.
auto http_get(std::uint16_t port, const std::string& path) -> std::string {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(5, 0);
  const auto answer = client.Get(path);
  return answer && answer->status == 200 ? answer->body : std::string();
}

/// The value of the `solscope_pm_paused` series of GPU 0 with this reason, as /metrics writes it ("" if
/// none).
auto pm_paused_series(const std::string& metrics, const std::string& reason) -> std::string {
  std::istringstream lines(metrics);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("solscope_pm_paused{gpu=\"0\"") &&
        line.find("reason=\"" + reason + "\"}") != std::string::npos) {
      return line.substr(line.rfind(' ') + 1);
    }
  }
  return {};
}

struct Seen {
  Clock::time_point at;
  core::SourceKind source = core::SourceKind::None;
  core::PmPauseReason reason = core::PmPauseReason::kNone;
  std::uint32_t flags = 0;
};

TEST(PmYieldNvidiaTest, a_fake_ncu_closes_the_pm_session_within_1_s_gpm_goes_on_and_pm_reopens_within_5_s) {
  testing::ScratchDir scratch("solscope-yield-nvidia");
  const auto proc = scratch.path() / "proc";
  std::filesystem::create_directories(proc);
  nvidia::testing::FakeNvml nvml;
  nvml.gpus.resize(1);                      // an H100-like GPU with GPM
  nvml.gpus[0].gpm_counters = {{5, 40.0}};  // the GPM tensor metric: 40 % while paused
  nvidia::testing::FakeProcfsTree driver_proc(nvidia::testing::nvidia_params(0),
                                              nvidia::testing::status_with_cap_eff(0));
  auto events = std::make_shared<GeneratingPm::Events>();
  nvidia::NvidiaSourceDeps deps;
  deps.load_nvml = [&nvml]() -> core::Result<nvidia::NvmlApi> { return nvml.api(); };
  deps.make_pm_sampling = [events]() -> std::unique_ptr<nvidia::PmSampling> {
    return std::make_unique<GeneratingPm>(events);
  };
  deps.procfs_root = driver_proc.root();
  deps.euid = [] { return 1000U; };
  nvidia::NvidiaSource source(std::move(deps));
  ASSERT_TRUE(source.start({.interval_ns = 100'000'000, .devices = {}}).has_value());
  ASSERT_EQ(source.status(0).source, core::SourceKind::PmSampling);

  std::mutex mutex;
  std::vector<Seen> seen;
  const auto first_after = [&](Clock::time_point from, auto want, milliseconds limit) -> std::optional<Seen> {
    for (const auto until = Clock::now() + limit; Clock::now() < until;
         std::this_thread::sleep_for(milliseconds(5))) {
      const std::scoped_lock lock(mutex);
      for (const Seen& s : seen) {
        if (s.at >= from && want(s)) return s;
      }
    }
    return std::nullopt;
  };
  const auto paused = [](const Seen& s) {
    return s.source == core::SourceKind::Gpm && s.reason == core::PmPauseReason::kProfiler &&
           (s.flags & core::kSamplePmPaused) != 0;
  };
  const auto sampling = [](const Seen& s) {
    return s.source == core::SourceKind::PmSampling && s.reason == core::PmPauseReason::kNone && s.flags == 0;
  };

  core::LiveState state;
  const std::atomic<bool> no_signal{false};
  PmYieldSetup yield = pm_yield_setup(core::PmPolicy::kYield, /*live=*/true);
  yield.procfs_root = proc;
  auto http = server::Server::start({.host = "127.0.0.1", .port = 0, .pm_yield = yield.board}, state);
  ASSERT_TRUE(http.has_value()) << http.error().message;
  const std::uint16_t port = (*http)->port();
  LiveSampling live(source, state, no_signal,
                    LiveSamplingOptions{.engine = {.poll_interval_ns = 100'000'000},
                                        .publish =
                                            [&](const core::SolSample& s) {
                                              const std::scoped_lock lock(mutex);
                                              seen.push_back({Clock::now(), s.source, s.pm_pause, s.flags});
                                            },
                                        .pm_yield = std::move(yield)});
  ASSERT_TRUE(first_after(Clock::now(), sampling, milliseconds(2000))) << "no PM samples at start";

  const auto staged = scratch.path() / "31337";
  std::filesystem::create_directories(staged);
  std::ofstream(staged / "comm") << "ncu\n";
  std::ofstream(staged / "cmdline", std::ios::binary) << std::string("ncu\0--set\0full\0./app\0", 22);
  std::filesystem::rename(staged, proc / "31337");
  const auto appeared = Clock::now();
  const auto first_paused = first_after(appeared, paused, milliseconds(3000));
  ASSERT_TRUE(first_paused) << "no paused GPM sample after the fake ncu appeared";
  Clock::time_point closed_at;
  {
    const std::scoped_lock lock(events->mutex);
    ASSERT_EQ(events->closed.size(), 1u);
    closed_at = events->closed[0];
  }
  const auto close_delay = std::chrono::duration_cast<milliseconds>(closed_at - appeared);
  EXPECT_LT(close_delay, milliseconds(1000));
  std::this_thread::sleep_for(milliseconds(400));  // the GPM figures go on
  {
    const std::scoped_lock lock(mutex);
    EXPECT_GE(std::count_if(seen.begin(), seen.end(),
                            [&](const Seen& s) { return s.at >= first_paused->at && paused(s); }),
              3);
  }

  // What the daemon shows while paused: the state set on /metrics, the profiler on /api/v1/profiling.
  const std::string metrics = http_get(port, "/metrics");
  EXPECT_EQ(pm_paused_series(metrics, "profiler"), "1") << metrics;
  EXPECT_EQ(pm_paused_series(metrics, "manual"), "0") << metrics;
  std::istringstream metric_lines(metrics);
  for (std::string line; std::getline(metric_lines, line);) {
    if (line.starts_with("solscope_pm_paused{")) std::printf("[ /metrics ] %s\n", line.c_str());
  }
  const std::string profiling = http_get(port, "/api/v1/profiling");
  EXPECT_NE(profiling.find("\"reason\":\"profiler\""), std::string::npos) << profiling;
  EXPECT_NE(profiling.find("ncu (pid 31337)"), std::string::npos) << profiling;

  std::filesystem::rename(proc / "31337", scratch.path() / "ended");
  const auto ended = Clock::now();
  ASSERT_TRUE(first_after(ended, sampling, milliseconds(7000))) << "PM sampling did not come back";
  Clock::time_point reopened_at;
  {
    const std::scoped_lock lock(events->mutex);
    ASSERT_EQ(events->opened.size(), 2u);  // at start, and once after the profiler ended
    reopened_at = events->opened[1];
  }
  const auto reopen_delay = std::chrono::duration_cast<milliseconds>(reopened_at - ended);
  EXPECT_LT(reopen_delay, milliseconds(5000));
  EXPECT_EQ(pm_paused_series(http_get(port, "/metrics"), "profiler"), "0");
  live.stop();
  (*http)->stop();
  source.stop();
  std::printf("[ measured ] NvidiaSource: fake ncu appeared -> PM session closed: %lld ms\n",
              static_cast<long long>(close_delay.count()));
  std::printf("[ measured ] NvidiaSource: fake ncu ended -> PM session reopened: %lld ms\n",
              static_cast<long long>(reopen_delay.count()));
  std::fflush(stdout);
}

}  // namespace
}  // namespace solscope::app
