#include "runtime/source_factory.hpp"

#include <unistd.h>

#include <array>
#include <filesystem>
#include <string>
#include <system_error>

#include "core/duration.hpp"
#include "net/token_file.hpp"
#include "runtime/environment.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/gpu_backend.hpp"
#include "runtime/messages.hpp"
#include "runtime/options.hpp"
#include "runtime/output_path.hpp"
#include "runtime/signals.hpp"
#include "server/auth.hpp"
#include "sources/dcgm/dcgm_exporter_source.hpp"
#include "sources/replay/trace_replay_source.hpp"

namespace solscope::app {

auto executable_dir() -> std::filesystem::path {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : exe.parent_path();
}

auto sampling_interval_ns(const CommonOptions& common) -> core::Result<std::int64_t> {
  if (common.dcgm_exporter.empty()) return common.interval_ns.value_or(kDefaultIntervalNs);
  const std::int64_t floor_ns = sources::kDcgmMinIntervalNs;
  if (!common.interval_ns) return floor_ns;
  if (*common.interval_ns < floor_ns) {
    const std::string floor = core::format_duration(floor_ns);
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "--interval " + core::format_duration(*common.interval_ns) + " is below " + floor +
            ", the fastest --dcgm-exporter scrapes",
        "give --interval " + floor + " or more, or leave it out (" + floor + " with --dcgm-exporter)");
  }
  return *common.interval_ns;
}

auto source_config_from(const CommonOptions& common) -> core::Result<sources::SourceConfig> {
  if (!common.dcgm_exporter.empty() && !common.replay.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "--replay and --dcgm-exporter exclude each other",
                      "give one source: a trace, or the dcgm-exporter URL");
  }
  auto interval = sampling_interval_ns(common);
  if (!interval) return core::propagate(interval);
  sources::SourceConfig config;
  config.interval_ns = *interval;
  config.devices = common.devices;
  // --pm-policy never: PM sampling is never opened, not even until the first poll's yield step.
  if (common.pm_policy == core::PmPolicy::kNever) config.best_source = core::SourceKind::Gpm;
  return config;
}

auto open_nvidia_source(const sources::SourceConfig& config) -> Outcome<OpenedSource> {
  auto source = start_gpu_source(config);
  if (!source) return core::fail(Failure{source.error(), exit_code_for_source_error(source.error())});
  return OpenedSource{std::move(*source), "NVIDIA GPUs", false, true};
}

auto open_dcgm_exporter_source(const CommonOptions& common, const sources::SourceConfig& config)
    -> Outcome<OpenedSource> {
  sources::DcgmExporterOptions options;
  options.url = common.dcgm_exporter;
  options.ca_cert_path = common.dcgm_exporter_ca;
  options.stop = &stop_flag();  // Ctrl-C or SIGTERM cancels a scrape in flight (the first one too)
  if (!common.dcgm_exporter_token_file.empty()) {
    auto token = net::read_token_file(common.dcgm_exporter_token_file);
    if (!token) return core::fail(Failure{token.error(), kExitUsage});
    options.token = std::move(*token);
  }
  auto source = sources::DcgmExporterSource::open(options);
  if (!source) return core::fail(Failure{source.error(), kExitUsage});
  if (auto started = (*source)->start(config); !started) {
    const bool usage = started.error().code == core::ErrorCode::InvalidArgument;
    return core::fail(Failure{started.error(), usage ? kExitUsage : kExitFailure});
  }
  std::string description = "DCGM via dcgm-exporter at " + (*source)->url();
  OpenedSource opened{std::move(*source), std::move(description), false, true};
  return opened;
}

auto open_sampling_source(const CommonOptions& common, const sources::SourceConfig& config,
                          double replay_speed, bool loop) -> Outcome<OpenedSource> {
  if (!common.replay.empty()) return open_replay_source(common.replay, config, replay_speed, loop);
  if (!common.dcgm_exporter.empty()) return open_dcgm_exporter_source(common, config);
  return open_nvidia_source(config);
}

auto open_replay_source(const std::string& path, const sources::SourceConfig& config, double speed, bool loop)
    -> Outcome<OpenedSource> {
  replay::ReplayOptions options;
  options.speed = speed;
  options.loop = loop;
  auto source = replay::TraceReplaySource::open(path, options);
  if (!source) return core::fail(Failure{source.error(), kExitBadTrace});
  if (auto started = (*source)->start(config); !started) {
    // Only a --devices index the trace lacks is the command line's fault; a read error is the trace's.
    const bool usage = started.error().code == core::ErrorCode::InvalidArgument;
    return core::fail(Failure{started.error(), usage ? kExitUsage : kExitBadTrace});
  }
  const auto& meta = (*source)->metadata();
  std::string description = "replay of " + path;
  if (meta.synthetic) description += " (SYNTHETIC: not a real GPU recording)";
  if (!meta.source_description.empty()) description += "; " + meta.source_description;
  if ((*source)->recovered()) description += "; recovered from a damaged or cut-short file";
  auto report = (*source)->report();
  OpenedSource opened{std::move(*source), std::move(description), meta.synthetic};
  opened.replay_report = std::move(report);
  opened.paced = speed > 0.0;
  return opened;
}

auto open_trace_for_output(const std::string& path, const std::string& output, bool force)
    -> Outcome<trace::Reader> {
  if (!output.empty()) {
    const std::string inputs[] = {path};
    if (auto checked = check_output_path(output, inputs, force); !checked) {
      return core::fail(Failure{checked.error(), kExitUsage});
    }
  }
  auto reader = trace::Reader::open(path);
  if (!reader) return core::fail(Failure{reader.error(), kExitBadTrace});
  return std::move(*reader);
}

auto report_trace_read(std::ostream& err, const std::optional<core::Error>& problem,
                       std::uint64_t samples_read) -> int {
  if (!problem) return kExitOk;
  if (samples_read == 0) {
    print_error(err, *problem);
    return kExitBadTrace;
  }
  print_warning(err, problem->describe());
  return kExitOk;
}

auto report_replay_end(const OpenedSource& opened, std::ostream& err) -> int {
  if (!opened.replay_report) return kExitOk;
  return report_trace_read(err, opened.replay_report->problem, opened.replay_report->read.samples);
}

auto find_demo_trace() -> std::string {
  if (std::string env = config::env_or_empty("SOLSCOPE_DEMO_TRACE"); !env.empty()) return env;
  const auto exe_dir = executable_dir();
  const std::array<std::filesystem::path, 3> candidates{
      exe_dir / ".." / "share" / "solscope" / "demo-trace.sqlite", exe_dir / "demo-trace.sqlite",
      std::filesystem::path(SOLSCOPE_SOURCE_DIR) / "data" / "demo-trace.sqlite"};
  for (const auto& c : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(c, ec)) return std::filesystem::weakly_canonical(c, ec).string();
  }
  return {};
}

}  // namespace solscope::app
