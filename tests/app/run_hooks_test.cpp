// `solscope run` against fakes of the machine (RunHooks): a scripted counter source and NVML process lists
// decide which GPUs reach the trace; kernels are listed where no GPU is sampled.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/run/run_command.hpp"
#include "inject/kernel_wire.hpp"
#include "support/fake_counter_source.hpp"
#include "support/scratch_dir.hpp"
#include "trace/reader.hpp"

namespace solscope::app {
namespace {

namespace fs = std::filesystem;
constexpr std::int64_t kT0 = 1'767'225'600'000'000'000;

/// A fake source that creates `release` once it has delivered every scripted batch: the command waits for
/// that file, so it ends only after every sample went to the engine.
class ReleasingSource : public testing::FakeCounterSource {
 public:
  explicit ReleasingSource(fs::path release) : release_(std::move(release)) {}
  auto poll() -> core::Result<std::vector<core::RawSample>> override {
    auto out = FakeCounterSource::poll();
    if (batches.empty()) std::ofstream(release_) << "done\n";
    return out;
  }

 private:
  fs::path release_;
};

auto sample(std::uint32_t device, std::int64_t n) -> core::RawSample {
  core::RawSample raw;
  raw.device_index = device;
  raw.t_start_ns = kT0 + n * 100'000'000;
  raw.t_end_ns = raw.t_start_ns + 100'000'000;
  raw.source = core::SourceKind::NvmlOnly;
  return raw;
}

auto device(std::uint32_t index) -> core::DeviceInfo {
  core::DeviceInfo d;
  d.index = index;
  d.uuid = "GPU-fake-" + std::to_string(index);
  d.name = "fake GPU " + std::to_string(index);
  return d;
}

class RunHooksTest : public ::testing::Test {
 protected:
  /// A source of GPUs 0 and 1 that delivers `rounds` polls of one sample per GPU, then creates `release`.
  static auto two_gpus_releasing(const fs::path& release, std::int64_t rounds) {
    return [release, rounds](const sources::SourceConfig&) -> Outcome<OpenedSource> {
      auto source = std::make_unique<ReleasingSource>(release);
      source->devices_list = {device(0), device(1)};
      source->never_finish = true;
      for (std::int64_t n = 0; n < rounds; ++n)
        source->batches.emplace_back(std::vector{sample(0, n), sample(1, n)});
      return OpenedSource{std::move(source), "fake GPUs", false, true};
    };
  }
  /// Hooks with no GPU, no NVML and no injection library; tests replace what they need.
  static auto no_machine() -> RunHooks {
    RunHooks hooks;
    hooks.open_source = [](const sources::SourceConfig&) -> Outcome<OpenedSource> {
      return core::fail(
          Failure{core::Error{core::ErrorCode::Unavailable, "no NVIDIA driver found", ""}, kExitNoGpu});
    };
    hooks.pid_lister = [] {
      return GpuPidLister([](std::uint32_t) -> core::Result<std::vector<std::int32_t>> {
        return core::fail(core::ErrorCode::Unavailable, "no NVML");
      });
    };
    hooks.process_tree = [](std::int32_t root) { return std::vector<std::int32_t>{root}; };
    hooks.gpu_uuids = [] { return GpuUuidIndex{}; };
    hooks.injection_library = []() -> std::optional<fs::path> { return std::nullopt; };
    return hooks;
  }
  testing::ScratchDir scratch_{"solscope-runhooks"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(RunHooksTest, only_the_gpus_the_commands_tree_uses_reach_the_trace) {
  const fs::path release = dir_ / "release";
  RunHooks hooks = no_machine();
  hooks.open_source = two_gpus_releasing(release, 3);
  // NVML: a stranger (pid 1) on GPU 0; pid 777, a child of the command, on GPU 1.
  hooks.pid_lister = [] {
    return GpuPidLister([](std::uint32_t d) -> core::Result<std::vector<std::int32_t>> {
      return d == 0 ? std::vector<std::int32_t>{1} : std::vector<std::int32_t>{777};
    });
  };
  hooks.process_tree = [](std::int32_t root) { return std::vector<std::int32_t>{root, 777}; };
  RunArgs args;
  args.output = (dir_ / "t.sqlite").string();
  args.command = {"sh", "-c", "while [ ! -e " + release.string() + " ]; do sleep 0.01; done; exit 4"};
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_job_with(CommonOptions{}, WorkloadOptions{}, args, hooks, out, err), 4) << err.str();
  EXPECT_NE(err.str().find("left out 3 samples of GPUs the command was not seen using"), std::string::npos)
      << err.str();
  auto reader = trace::Reader::open(args.output);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->sample_count(), 3u);
  ASSERT_EQ(reader->devices().size(), 1u);
  EXPECT_EQ(reader->devices()[0].uuid, "GPU-fake-1");
  EXPECT_EQ(reader->metadata().entries.at("gpus_used"), "1");
  EXPECT_NE(reader->metadata().source_description.find("recorded on fake GPU 0, fake GPU 1"),
            std::string::npos);
  EXPECT_NE(err.str().find("solscope: run: 3 samples of 1 GPU(s)"), std::string::npos) << err.str();
}

TEST_F(RunHooksTest, without_the_process_lists_every_sampled_gpu_is_kept) {
  const fs::path release = dir_ / "release";
  RunHooks hooks = no_machine();
  hooks.open_source = two_gpus_releasing(release, 1);
  RunArgs args;
  args.output = (dir_ / "t.sqlite").string();
  args.command = {"sh", "-c", "while [ ! -e " + release.string() + " ]; do sleep 0.01; done"};
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_job_with(CommonOptions{}, WorkloadOptions{}, args, hooks, out, err), 0) << err.str();
  EXPECT_NE(
      err.str().find("cannot tell which GPUs the command uses (no NVML): the trace keeps every sampled GPU"),
      std::string::npos)
      << err.str();
  auto reader = trace::Reader::open(args.output);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->sample_count(), 2u);
  EXPECT_EQ(reader->metadata().entries.at("gpus_used"), "0,1");
}

TEST_F(RunHooksTest, kernels_are_listed_where_no_gpu_is_sampled) {
  // No counter source at all, but NVML names the GPU: the command's kernels are in the trace, with no
  // samples to give them a SOL.
  RunHooks hooks = no_machine();
  const std::array<std::uint8_t, 16> uuid{0xab, 0xcd};
  hooks.gpu_uuids = [&] { return GpuUuidIndex{{inject::gpu_uuid_string(uuid), 3}}; };
  hooks.injection_library = [&]() -> std::optional<fs::path> { return dir_ / "libsolscope_inject.so"; };
  inject::FrameEncoder encoder(4242);
  ASSERT_TRUE(encoder.add(inject::Device{0, uuid}));
  ASSERT_TRUE(encoder.add(inject::Clock{0, kT0}));
  inject::Kernel k;
  k.start_cupti_ns = 5;
  k.end_cupti_ns = 105;
  k.name = "gemm";
  ASSERT_TRUE(encoder.add(k));
  const auto frame = encoder.finish();
  std::ofstream(dir_ / "frames.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(frame.data()), static_cast<std::streamsize>(frame.size()));
  RunArgs args;
  args.output = (dir_ / "t.sqlite").string();
  args.command = {"sh", "-c", "cat " + (dir_ / "frames.bin").string() + " > /dev/fd/$SOLSCOPE_KERNEL_FD"};
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_job_with(CommonOptions{}, WorkloadOptions{}, args, hooks, out, err), 0) << err.str();
  auto reader = trace::Reader::open(args.output);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->sample_count(), 0u);
  auto table = reader->kernels();
  ASSERT_TRUE(table);
  ASSERT_EQ(table->kernels.size(), 1u);
  EXPECT_EQ(table->kernels[0].device, 3u);
  EXPECT_EQ(table->kernels[0].start_ns, kT0 + 5);
  EXPECT_EQ(table->kernels[0].end_ns, kT0 + 105);
  EXPECT_EQ(table->kernels[0].pid, 4242);
  EXPECT_EQ(reader->metadata().entries.at("gpus_used"), "3");
  EXPECT_NE(err.str().find("1 kernels (0 dropped)"), std::string::npos) << err.str();
  // ... and the report on stderr lists it under its GPU, with its SOL unknown.
  const std::string text = err.str();
  const auto row = text.find("\n    gemm ");
  ASSERT_NE(row, std::string::npos) << text;
  const std::string line = text.substr(row + 1, text.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find("       1 "), std::string::npos) << line;
  EXPECT_NE(line.find("n/a"), std::string::npos) << line;
  EXPECT_LT(text.find("GPU 3"), row) << text;
}

TEST_F(RunHooksTest, a_command_that_ends_at_once_still_asks_the_process_lists_and_keeps_the_samples) {
  // The process lists were asked only while the command ran: one that ended before the first look left
  // filtering on, and the samples were dropped without a word. Repeated: the race is in the timing.
  for (int round = 0; round < 10; ++round) {
    RunHooks hooks = no_machine();
    hooks.open_source = [&](const sources::SourceConfig&) -> Outcome<OpenedSource> {
      auto source = std::make_unique<testing::FakeCounterSource>();
      source->devices_list = {device(0)};
      source->batches.emplace_back(std::vector{sample(0, 0)});
      return OpenedSource{std::move(source), "fake GPUs", false, true};
    };
    RunArgs args;
    args.output = (dir_ / ("t" + std::to_string(round) + ".sqlite")).string();
    args.command = {"true"};
    std::ostringstream out;
    std::ostringstream err;
    ASSERT_EQ(run_job_with(CommonOptions{}, WorkloadOptions{}, args, hooks, out, err), 0) << err.str();
    ASSERT_NE(err.str().find("cannot tell which GPUs the command uses"), std::string::npos)
        << "round " << round << ": " << err.str();
  }
}

}  // namespace
}  // namespace solscope::app
