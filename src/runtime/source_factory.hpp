// Builds the CounterSource a sampling command uses: the NVIDIA GPUs, or a trace given with --replay.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/gpu_backend.hpp"
#include "runtime/sampling_options.hpp"
#include "sources/counter_source.hpp"
#include "trace/reader.hpp"

namespace solscope::replay {
struct ReplayReport;
}  // namespace solscope::replay

namespace solscope::app {

/// A started source and what to tell the user about it.
struct OpenedSource {
  std::unique_ptr<sources::CounterSource> source;
  /// "NVIDIA GPUs", "replay of FILE (SYNTHETIC ...)" or "DCGM via dcgm-exporter at URL"
  std::string description;
  bool synthetic = false;  ///< a trace not recorded on a real GPU
  bool live = false;       ///< GPUs sampled now (the NVIDIA source or dcgm-exporter), not a replay
  /// Samples come at the source's own pace (live, or a replay at a speed above 0): the engine sleeps between
  /// polls (EngineOptions::pace). False for a replay drained as fast as possible, which its sinks pace.
  bool paced = true;
  /// A replay's read account (samples read and skipped, where the damage begins), for report_replay_end();
  /// null for a live source. Outlives `source`.
  std::shared_ptr<const replay::ReplayReport> replay_report{};
};

/// The sampling interval of a command's source, in ns: --interval when some layer gave it, else the source's
/// own default: dcgm-exporter's sources::kDcgmMinIntervalNs (it refreshes its figures once a second at best),
/// otherwise kDefaultIntervalNs. The one place of that rule. Errors: InvalidArgument when --dcgm-exporter is
/// given with an --interval below sources::kDcgmMinIntervalNs.
[[nodiscard]] auto sampling_interval_ns(const CommonOptions& common) -> core::Result<std::int64_t>;

/// The SourceConfig of the common options (already parsed and range-checked where they were bound): the
/// devices, sampling_interval_ns(), and best_source Gpm under --pm-policy never. Errors: InvalidArgument for
/// --replay with --dcgm-exporter, and sampling_interval_ns()'s.
[[nodiscard]] auto source_config_from(const CommonOptions& common) -> core::Result<sources::SourceConfig>;

/// Opens and starts the NVIDIA source (PM sampling, GPM or NVML per GPU). Errors: as NvidiaSource::start();
/// Unimplemented when this build has no NVIDIA source (no CUDA headers at build time).
[[nodiscard]] auto open_nvidia_source(const sources::SourceConfig& config) -> Outcome<OpenedSource>;

/// Opens and starts the dcgm-exporter source of --dcgm-exporter (bearer token from
/// --dcgm-exporter-token-file, CA from --dcgm-exporter-ca). Errors: kExitUsage for a bad URL, token or CA
/// file, or a --devices index the exporter lacks; kExitFailure when the URL does not answer or is not
/// dcgm-exporter's page.
[[nodiscard]] auto open_dcgm_exporter_source(const CommonOptions& common, const sources::SourceConfig& config)
    -> Outcome<OpenedSource>;

/// The source of a sampling command: the trace of --replay (at `replay_speed`, looping when `loop`), the
/// exporter of --dcgm-exporter, else the NVIDIA GPUs.
[[nodiscard]] auto open_sampling_source(const CommonOptions& common, const sources::SourceConfig& config,
                                        double replay_speed, bool loop) -> Outcome<OpenedSource>;

/// Opens and starts a trace replay at `speed` (1 = real time, 0 = as fast as possible). Errors: the trace
/// reader's (exit code kExitBadTrace), or a --devices index the trace lacks (kExitUsage).
[[nodiscard]] auto open_replay_source(const std::string& path, const sources::SourceConfig& config,
                                      double speed, bool loop) -> Outcome<OpenedSource>;

/// Opens the trace `path` for a command that writes `output` from it ("" when it writes to standard output):
/// the output is checked first (check_output_path: never the trace itself, an existing file only with
/// `force`; exit code kExitUsage), then the trace is opened (trace::Reader::open's errors; kExitBadTrace).
[[nodiscard]] auto open_trace_for_output(const std::string& path, const std::string& output, bool force)
    -> Outcome<trace::Reader>;

/// Tells the user what a read of a trace met: `problem` (trace::Reader::problem) as a warning when
/// `samples_read` > 0, as the error when nothing was read. Returns kExitBadTrace when there is a problem and
/// nothing was read, else kExitOk.
[[nodiscard]] auto report_trace_read(std::ostream& err, const std::optional<core::Error>& problem,
                                     std::uint64_t samples_read) -> int;

/// report_trace_read() over a replay's account, once its source has stopped or finished; kExitOk without a
/// replay report (live sources).
[[nodiscard]] auto report_replay_end(const OpenedSource& opened, std::ostream& err) -> int;

/// The bundled demo trace: $SOLSCOPE_DEMO_TRACE, <exe dir>/../share/solscope/demo-trace.sqlite,
/// <exe dir>/demo-trace.sqlite, or the source tree's data/demo-trace.sqlite (a recording of the GPU proof
/// kit's workload on an H100: tests/data/real/h100-proof/README.md). Empty when none exists.
[[nodiscard]] auto find_demo_trace() -> std::string;

/// The directory of the running solscope binary (/proc/self/exe); empty when it cannot be read.
[[nodiscard]] auto executable_dir() -> std::filesystem::path;

}  // namespace solscope::app
