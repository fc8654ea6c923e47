// `solscope record -o FILE [--duration S]`: samples every selected GPU (or a --replay trace) into a trace
// file.
#include <fmt/format.h>

#include <optional>

#include "attainable/attainable_wiring.hpp"
#include "cli/commands.hpp"
#include "cli/config/option_table.hpp"
#include "core/device_info.hpp"
#include "runtime/engine_loop.hpp"
#include "runtime/environment.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "runtime/options.hpp"
#include "runtime/output_path.hpp"
#include "runtime/pm_yield_driver.hpp"
#include "runtime/sinks.hpp"
#include "runtime/source_factory.hpp"
#include "runtime/workload_recording.hpp"
#include "trace/writer.hpp"

namespace solscope::app {
namespace {

/// The trace's source description; `interval_ns` is the one sampled at (source_config_from).
auto describe_recording(const OpenedSource& opened, const CommonOptions& common, std::int64_t interval_ns)
    -> std::string {
  std::string names;
  for (const auto& d : opened.source->devices()) {
    if (!names.empty()) names += ", ";
    names += d.name.empty() ? core::device_label(d) : d.name;
  }
  const std::string how =
      fmt::format("solscope {} record --interval {}", SOLSCOPE_VERSION, config::format_duration(interval_ns));
  if (opened.synthetic) return "synthetic: re-recorded by " + how + " from " + opened.description;
  if (!common.replay.empty()) return "re-recorded by " + how + " from " + opened.description;
  if (!common.dcgm_exporter.empty())
    return "recorded from " + opened.description + " (" + names + ") by " + how;
  return "recorded on " + names + " by " + how;
}

}  // namespace

auto run_record(const CommonOptions& common, const WorkloadOptions& workloads, const RecordArgs& args,
                std::ostream& /*out*/, std::ostream& err) -> int {
  auto planned = plan_sampling(common, workloads);
  if (!planned) {
    print_error(err, planned.error());
    return kExitUsage;
  }
  const sources::SourceConfig& config = planned->config;
  if (!common.replay.empty() && is_same_or_sidecar(args.output, common.replay)) {
    print_error(err, core::Error{core::ErrorCode::InvalidArgument,
                                 "output " + args.output + " is the replayed trace " + common.replay,
                                 "give another output path with -o"});
    return kExitUsage;
  }
  if (auto checked = check_output_path(args.output, {}, args.force); !checked) {
    print_error(err, checked.error());
    return kExitUsage;
  }
  auto opened = open_sampling_source(common, config, args.replay_speed, false);
  if (!opened) {
    print_error(err, opened.error().error);
    return opened.error().exit_code;
  }
  trace::WriterOptions writer_options;
  writer_options.overwrite = args.force;
  writer_options.synthetic = opened->synthetic;
  writer_options.source_description = describe_recording(*opened, common, config.interval_ns);
  auto writer = trace::Writer::open(args.output, writer_options);
  if (!writer) {
    opened->source->stop();
    print_error(err, writer.error());
    return writer.error().code == core::ErrorCode::InvalidArgument ? kExitUsage : kExitFailure;
  }
  TraceSink sink(*writer);
  // Whose work each GPU does (issue 24): the refresh's changes go into the trace's workloads table.
  WorkloadRecording workload_recording(
      *writer, *opened->source, config::workload_refresh_options(workloads, config::process_environment()));
  std::vector<SampleSink*> sinks{&sink};
  if (workload_recording.active()) sinks.push_back(&workload_recording.sink());
  const EngineOptions options{.poll_interval_ns = poll_interval_for(config.interval_ns),
                              .duration_ns = args.duration_ns,
                              .pace = opened->paced};
  const auto attainable = attainable_for(std::move(planned->attainable), *opened);
  const int code = run_engine_with_attainable(*opened->source, std::move(sinks), options, attainable.get(),
                                              err, pm_yield_setup(common.pm_policy, opened->live),
                                              workload_recording.companion());
  if (!workload_recording.status().empty()) print_warning(err, workload_recording.status());
  if (auto closed = writer->close(); !closed) {
    print_error(err, closed.error());
    return kExitFailure;
  }
  // A stopped writer's one error (printed by the engine) already says how many samples the file keeps.
  if (writer->stopped()) return kExitFailure;
  print_note(err, fmt::format("recorded {} samples of {} GPU(s) to {}", writer->committed_samples(),
                              opened->source->devices().size(), args.output));
  // A replayed input says what it read and where its damage begins, as `replay` and `export` do.
  if (const int read = report_replay_end(*opened, err); read != kExitOk && code == kExitOk) return read;
  return code;
}

}  // namespace solscope::app
