#include "app/source_factory.hpp"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>

#include "app/config/environment.hpp"
#include "app/exit_codes.hpp"
#include "app/options.hpp"
#include "sources/replay/trace_replay_source.hpp"
#ifdef SOLSCOPE_HAVE_NVIDIA
#include "sources/nvidia/nvidia_source.hpp"
#include "sources/nvidia/nvml_api.hpp"
#include "sources/nvidia/nvml_reader.hpp"
#include "sources/nvidia/pm_sampler.hpp"
#endif

namespace solscope::app {
namespace {

auto executable_dir() -> std::filesystem::path {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : exe.parent_path();
}

}  // namespace

auto source_config_from(const CommonOptions& common) -> core::Result<sources::SourceConfig> {
  sources::SourceConfig config;
  auto interval = parse_duration_ns(common.interval);
  if (!interval) return tl::unexpected(interval.error());
  if (*interval < kMinIntervalNs || *interval > kMaxIntervalNs) {
    return core::fail(core::ErrorCode::InvalidArgument, "--interval " + common.interval + " is out of range",
                      "use 1ms to 60s, e.g. --interval 10ms");
  }
  config.interval_ns = *interval;
  if (!common.devices.empty()) {
    auto devices = parse_device_list(common.devices);
    if (!devices) return tl::unexpected(devices.error());
    config.devices = std::move(*devices);
  }
  return config;
}

auto open_nvidia_source(const sources::SourceConfig& config) -> Outcome<OpenedSource> {
#ifdef SOLSCOPE_HAVE_NVIDIA
  nvidia::NvidiaSourceDeps deps;
  deps.make_pm_sampling = [] {
    return nvidia::make_pm_sampler({.cupti_search = config::cupti_search_from_environment()});
  };
  auto source = std::make_unique<nvidia::NvidiaSource>(std::move(deps));
  if (auto started = source->start(config); !started) {
    return tl::unexpected(Failure{started.error(), exit_code_for_source_error(started.error())});
  }
  return OpenedSource{std::move(source), "NVIDIA GPUs", false, true};
#else
  (void)config;
  return tl::unexpected(Failure{
      core::Error{core::ErrorCode::Unimplemented, "this solscope was built without the NVIDIA source",
                  "rebuild with the CUDA toolkit headers (CUDA >= 12.6) installed, or use --replay FILE"},
      kExitNoGpu});
#endif
}

auto open_replay_source(const std::string& path, const sources::SourceConfig& config, double speed, bool loop)
    -> Outcome<OpenedSource> {
  replay::ReplayOptions options;
  options.speed = speed;
  options.loop = loop;
  auto source = replay::TraceReplaySource::open(path, options);
  if (!source) return tl::unexpected(Failure{source.error(), kExitBadTrace});
  if (auto started = (*source)->start(config); !started) {
    return tl::unexpected(Failure{started.error(), kExitUsage});
  }
  const auto& meta = (*source)->metadata();
  std::string description = "replay of " + path;
  if (meta.synthetic) description += " (SYNTHETIC: not a real GPU recording)";
  if (!meta.source_description.empty()) description += "; " + meta.source_description;
  if ((*source)->recovered()) description += "; recovered from a damaged or cut-short file";
  OpenedSource opened{std::move(*source), std::move(description), meta.synthetic};
  return opened;
}

#ifdef SOLSCOPE_HAVE_NVIDIA

auto make_nvml_pid_lister() -> std::function<core::Result<std::vector<std::int32_t>>(std::uint32_t device)> {
  auto reader = std::make_shared<std::optional<nvidia::NvmlReader>>();
  return [reader](std::uint32_t device) -> core::Result<std::vector<std::int32_t>> {
    if (!reader->has_value()) {
      auto api = nvidia::load_nvml();
      if (!api) return tl::unexpected(std::move(api.error()));
      auto opened = nvidia::NvmlReader::open(std::move(*api));
      if (!opened) return tl::unexpected(std::move(opened.error()));
      reader->emplace(std::move(*opened));
    }
    nvidia::NvmlReader& nvml = **reader;
    if (device >= nvml.device_count()) {
      return core::fail(core::ErrorCode::InvalidArgument, "GPU " + std::to_string(device) + " does not exist",
                        "NVML lists " + std::to_string(nvml.device_count()) + " GPU(s)");
    }
    auto processes = nvml.processes(device);
    if (!processes) return tl::unexpected(std::move(processes.error()));
    std::vector<std::int32_t> pids;
    pids.reserve(processes->size());
    for (const auto& p : *processes) pids.push_back(static_cast<std::int32_t>(p.pid));
    return pids;
  };
}

auto detect_gpu_name(const std::vector<std::uint32_t>& devices) -> core::Result<std::string> {
  const nvidia::NvidiaSource source;
  auto probe = source.probe();
  if (!probe) return tl::unexpected(std::move(probe.error()));
  const std::uint32_t wanted = devices.empty() ? 0 : devices.front();
  for (const auto& d : probe->devices) {
    if (d.info.index == wanted && !d.info.name.empty()) return d.info.name;
  }
  return core::fail(core::ErrorCode::NotFound,
                    "GPU " + std::to_string(wanted) + " not found (" + std::to_string(probe->devices.size()) +
                        " GPU(s) here)",
                    "pick one with --devices, or pass --gpu NAME");
}

#else

auto make_nvml_pid_lister() -> std::function<core::Result<std::vector<std::int32_t>>(std::uint32_t device)> {
  return [](std::uint32_t) -> core::Result<std::vector<std::int32_t>> {
    return core::fail(core::ErrorCode::Unimplemented, "this solscope was built without the NVIDIA source");
  };
}

auto detect_gpu_name(const std::vector<std::uint32_t>& /*devices*/) -> core::Result<std::string> {
  return core::fail(core::ErrorCode::Unavailable, "this solscope was built without the NVIDIA source",
                    "pass --gpu NAME, or rebuild with the CUDA toolkit headers (CUDA >= 12.6) installed");
}

#endif

auto find_demo_trace() -> std::string {
  if (const char* env = std::getenv("SOLSCOPE_DEMO_TRACE"); env != nullptr && *env != '\0') return env;
  const auto exe_dir = executable_dir();
  const std::array<std::filesystem::path, 3> candidates{
      exe_dir / ".." / "share" / "solscope" / "demo-trace.sqlite", exe_dir / "demo-trace.sqlite",
      std::filesystem::path(SOLSCOPE_SOURCE_DIR) / "tests" / "data" / "demo-trace.sqlite"};
  for (const auto& c : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(c, ec)) return std::filesystem::weakly_canonical(c, ec).string();
  }
  return {};
}

}  // namespace solscope::app
