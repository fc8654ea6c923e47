// `solscope run [--interval 10ms] [-o trace.sqlite] [--html FILE] [--no-kernels] -- CMD ARGS...`: runs CMD in
// a process group of its own, samples the GPUs it uses, logs its kernels, and prints the report when it ends.
#include <stdlib.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "cli/run/run_command.hpp"

#include "cli/commands.hpp"
#include "cli/config/option_table.hpp"
#include "cli/run/run_report.hpp"
#include "core/device_info.hpp"
#include "inject/kernel_wire.hpp"
#include "run/child_process.hpp"
#include "run/run_inject.hpp"
#include "run/run_kernels.hpp"
#include "run/run_metadata.hpp"
#include "run/run_sink.hpp"
#include "run/run_usage.hpp"
#include "runtime/engine_loop.hpp"
#include "runtime/environment.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/live_feed.hpp"
#include "runtime/messages.hpp"
#include "runtime/output_path.hpp"
#include "runtime/pm_yield_driver.hpp"
#include "runtime/signals.hpp"
#include "runtime/source_factory.hpp"
#include "runtime/workload_recording.hpp"
#include "trace/schema.hpp"
#include "workload/process_info.hpp"

namespace solscope::app {
namespace {

namespace fs = std::filesystem;

/// How often the job's process tree is matched against NVML's process lists.
constexpr auto kUsagePollInterval = std::chrono::milliseconds(250);
/// How long the kernel log waits for the job's last records after CMD ended.
constexpr std::int64_t kKernelGraceMs = 2000;

/// A new empty file $TMPDIR/solscope-run-XXXXXX.sqlite.
auto make_temporary_trace() -> core::Result<fs::path> {
  std::string pattern = config::temporary_directory() + "/solscope-run-XXXXXX.sqlite";
  const int fd = mkstemps(pattern.data(), 7);
  if (fd < 0) {
    return core::fail(
        core::ErrorCode::Unavailable,
        "cannot create a temporary trace in " + config::temporary_directory() + ": " + std::strerror(errno),
        "set TMPDIR to a writable directory, or give -o FILE");
  }
  ::close(fd);
  return fs::path(pattern);
}

/// The GPUs being sampled, when a source could be opened.
struct Sampling {
  std::unique_ptr<sources::CounterSource> source;
  std::string names;
};

auto open_sampling(const RunHooks& hooks, const sources::SourceConfig& config, std::ostream& err)
    -> std::optional<Sampling> {
  auto opened = hooks.open_source(config);
  if (!opened) {
    print_warning(err, "no GPU is sampled (" + opened.error().error.describe() +
                           "); the command runs anyway and the trace keeps its metadata");
    return std::nullopt;
  }
  Sampling s{std::move(opened->source), {}};
  for (const auto& d : s.source->devices()) {
    s.names += (s.names.empty() ? "" : ", ") + (d.name.empty() ? core::device_label(d) : d.name);
  }
  return s;
}

/// NVML's GPU UUIDs -> indices, for the kernel log: every GPU of the machine when the probe answers, else
/// the sampled ones.
auto uuid_index(const RunHooks& hooks, const std::optional<Sampling>& sampling) -> GpuUuidIndex {
  GpuUuidIndex index = hooks.gpu_uuids();
  if (index.empty() && sampling) {
    for (const auto& d : sampling->source->devices()) index.emplace(d.uuid, d.index);
  }
  return index;
}

/// The kernel log's pipe, unless --no-kernels or the library is missing (said on stderr).
auto plan_kernels(const RunHooks& hooks, const RunArgs& args, std::ostream& err)
    -> std::optional<KernelPipe> {
  if (args.no_kernels) return std::nullopt;
  const auto library = hooks.injection_library();
  if (!library) {
    print_warning(err, std::string("kernels are not logged: ") + inject::kInjectLibraryName +
                           " is not installed beside solscope (give --no-kernels to silence this)");
    return std::nullopt;
  }
  auto pipe = open_kernel_pipe(*library);
  if (!pipe) {
    print_warning(err, "kernels are not logged: " + pipe.error().describe());
    return std::nullopt;
  }
  return *pipe;
}

/// Everything of one job that runs while CMD runs.
struct Job {
  const RunArgs& args;
  const RunHooks& hooks;
  std::ostream& err;
  SharedWriter& shared;
  trace::Writer& writer;
  RunTraceSink sink;
  std::optional<Sampling> sampling;
  std::optional<KernelPipe> pipe;
  std::unique_ptr<KernelLog> kernels;
  /// Never set: no signal stops the sampling (they go to CMD, which decides when the job ends); wind_down()
  /// stops the engine once CMD ended.
  const std::atomic<bool> no_signal_stop{false};
  WorkloadOptions workload_options;  ///< --job-mapping-dir and the rest of the global workload options
  std::unique_ptr<WorkloadRecording> workloads;  ///< declared before the engine, which uses its sink
  std::unique_ptr<BackgroundEngine> engine;
  std::shared_ptr<void> workloads_beside;  ///< the refresher beside the engine; released before it stops
  std::int64_t ended_ns = 0;  ///< CLOCK_REALTIME ns when CMD was seen ending (before the kernel log's grace)
  /// --pm-policy: CMD may itself be a profiler (`solscope run -- ncu ...`), which then gets the counters.
  core::PmPolicy pm_policy = core::PmPolicy::kYield;
};

void start_engine(Job& job, std::int64_t interval_ns) {
  if (!job.sampling) return;
  // Whose work each GPU does (issue 24), into the trace's workloads table as in `record`.
  job.workloads = std::make_unique<WorkloadRecording>(
      job.writer, *job.sampling->source,
      config::workload_refresh_options(job.workload_options, config::process_environment()));
  std::vector<SampleSink*> sinks{&job.sink};
  if (job.workloads->active()) sinks.push_back(&job.workloads->sink());
  // The source is stopped on the engine thread when the run ends, even one that fails before CMD does.
  job.engine = std::make_unique<BackgroundEngine>(
      *job.sampling->source, std::move(sinks),
      EngineOptions{.poll_interval_ns = poll_interval_for(interval_ns)}, job.no_signal_stop,
      BackgroundEngineOptions{.warnings = &job.err,
                              .stop_source = true,
                              .pm_yield = pm_yield_setup(job.pm_policy, /*live=*/true)});
  if (const auto companion = job.workloads->companion()) job.workloads_beside = companion(*job.engine);
}

/// Waits for CMD, matching its process tree against the GPUs' process lists meanwhile.
auto wait_for(ChildProcess& child, Job& job, GpuUsage* usage) -> ChildExit {
  auto next_usage = std::chrono::steady_clock::now();
  bool said = false;
  for (;;) {
    // The process lists are asked before the exit status, so that they are asked at least once even for a
    // command that ends at once (else a machine without them kept no GPU's samples, and said nothing).
    if (usage != nullptr && std::chrono::steady_clock::now() >= next_usage) {
      for (const std::uint32_t d : usage->poll(child.pid())) job.sink.use_device(d);
      if (usage->error() && !said) {
        said = true;
        job.sink.stop_filtering();
        print_warning(job.err, "cannot tell which GPUs the command uses (" + usage->error()->describe() +
                                   "): the trace keeps every sampled GPU");
      }
      next_usage += kUsagePollInterval;
    }
    if (auto exit = child.poll()) return *exit;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

/// Writes the samples of GPUs found in use at the very end (by the kernel log) and says what was left out.
void settle_samples(Job& job) {
  if (!job.sampling) return;
  if (auto done = job.sink.write_late_backlogs(); !done) print_error(job.err, done.error());
  if (const std::uint64_t left = job.sink.left_out_samples(); left > 0) {
    print_note(job.err,
               fmt::format("left out {} samples of GPUs the command was not seen using (or older than the "
                           "{} kept per GPU before it was)",
                           left, kRunBacklogSamples));
  }
}

/// After CMD ended: stops sampling and the kernel log, and writes their figures into the meta.
void wind_down(Job& job) {
  if (job.engine) {
    job.workloads_beside.reset();
    if (!job.workloads->status().empty()) print_warning(job.err, job.workloads->status());
    job.engine->stop();
    if (const auto ran = job.engine->result(); ran && !*ran) print_error(job.err, ran->error());
  }
  if (!job.kernels) return settle_samples(job);
  const KernelLogCounts counts = job.kernels->finish(kKernelGraceMs);
  if (job.kernels->error()) print_error(job.err, *job.kernels->error());
  if (!counts.wire_problem.empty())
    print_warning(job.err, "the kernel log was damaged: " + counts.wire_problem);
  auto meta = job.shared.with([&](trace::Writer& w) {
    if (counts.clock_offset_ns) {
      if (auto done = w.set_kernel_clock_offset_ns(*counts.clock_offset_ns); !done) return done;
    }
    return w.set_kernels_dropped(counts.dropped());
  });
  if (!meta) print_error(job.err, meta.error());
  settle_samples(job);
  if (counts.dropped() > 0) {
    print_warning(job.err,
                  fmt::format("{} kernel records were lost ({} in the job's buffers, {} in solscope's "
                              "queue, {} without a clock or a known GPU)",
                              counts.dropped(), counts.dropped_by_job, counts.dropped_here, counts.unmapped));
  }
}

/// Starts CMD with the kernel pipe's write end and the injection variables, then runs the job to its end.
auto run_child(Job& job, const sources::SourceConfig& config) -> core::Result<ChildExit> {
  std::vector<std::pair<std::string, std::string>> extra;
  if (job.pipe) extra = job.pipe->environment(config::process_environment()(kNvtxInjectionEnv));
  ChildSpec spec{job.args.command, config::environment_with(extra), config::env_or_empty("PATH"),
                 job.pipe ? job.pipe->write_fd : -1};
  auto child = ChildProcess::spawn(spec);
  if (job.pipe) ::close(job.pipe->write_fd);  // CMD holds it now: end-of-file once the whole job closed it
  if (!child) {
    if (job.pipe) ::close(job.pipe->read_fd);
    return core::propagate(child);
  }
  forward_signals_to_group(child->pid());
  if (job.pipe) {
    job.kernels =
        std::make_unique<KernelLog>(job.pipe->read_fd, uuid_index(job.hooks, job.sampling), job.shared,
                                    [&job](std::uint32_t d) { job.sink.use_device(d); });
    job.kernels->start();
  }
  start_engine(job, config.interval_ns);
  std::optional<GpuUsage> usage;
  if (job.sampling && config.devices.empty()) {
    std::vector<std::uint32_t> devices;
    for (const auto& d : job.sampling->source->devices()) devices.push_back(d.index);
    usage.emplace(std::move(devices), job.hooks.pid_lister(), job.hooks.process_tree);
  }
  const ChildExit exit = wait_for(*child, job, usage ? &*usage : nullptr);
  job.ended_ns = realtime_now_ns();
  forward_signals_to_group(0);
  wind_down(job);
  return exit;
}

/// The trace's source description; `interval_ns` is the one sampled at (source_config_from).
auto describe_source(const std::optional<Sampling>& sampling, std::int64_t interval_ns) -> std::string {
  const std::string how =
      fmt::format("solscope {} run --interval {}", SOLSCOPE_VERSION, config::format_duration(interval_ns));
  if (!sampling) return "recorded by " + how + " without GPU sampling (no GPU could be sampled)";
  return "recorded on " + sampling->names + " by " + how;
}

/// Closes the trace, prints the report and removes a temporary trace; true when the trace should be kept.
auto finish_trace(Job& job, const fs::path& path) -> bool {
  bool keep = false;
  if (auto closed = job.writer.close(); !closed) {
    print_error(job.err, closed.error());
    keep = true;
  }
  keep = keep || job.writer.stopped();
  if (print_run_report(path, job.args.html, job.err) != kExitOk) keep = true;
  return keep;
}

}  // namespace

auto machine_run_hooks() -> RunHooks {
  RunHooks hooks;
  hooks.open_source = open_nvidia_source;
  hooks.pid_lister = make_nvml_pid_lister;
  hooks.process_tree = [](std::int32_t root) { return workload::descendant_pids("/proc", root); };
  hooks.gpu_uuids = [] {
    GpuUuidIndex index;
    if (auto probe = probe_gpus()) {
      for (const auto& d : probe->devices) index.emplace(d.info.uuid, d.info.index);
    }
    return index;
  };
  hooks.injection_library = find_injection_library;
  return hooks;
}

auto run_job(const CommonOptions& common, const WorkloadOptions& workloads, const RunArgs& args,
             std::ostream& out, std::ostream& err) -> int {
  return run_job_with(common, workloads, args, machine_run_hooks(), out, err);
}

auto run_job_with(const CommonOptions& common, const WorkloadOptions& workloads, const RunArgs& args,
                  const RunHooks& hooks, std::ostream& /*out*/, std::ostream& err) -> int {
  if (args.command.empty()) {
    print_error(err, core::Error{core::ErrorCode::InvalidArgument, "run needs a command after `--`",
                                 "solscope run [--interval 10ms] [-o trace.sqlite] -- CMD ARGS..."});
    return kExitUsage;
  }
  if (!common.replay.empty() || !common.dcgm_exporter.empty()) {
    print_error(err, core::Error{core::ErrorCode::InvalidArgument, "run samples the GPUs its command uses",
                                 "--replay and --dcgm-exporter do not apply to run; leave them out"});
    return kExitUsage;
  }
  auto config = source_config_from(common);
  if (!config) {
    print_error(err, config.error());
    return kExitUsage;
  }
  // Both outputs are checked before CMD runs: a refused path must not cost the user the job.
  if (!args.output.empty()) {
    if (auto checked = check_output_path(args.output, {}, args.force); !checked) {
      print_error(err, checked.error());
      return kExitUsage;
    }
  }
  if (!args.html.empty()) {
    const std::vector<std::string> inputs{args.output};
    if (auto checked = check_output_path(
            args.html, args.output.empty() ? std::span<const std::string>{} : inputs, args.force);
        !checked) {
      print_error(err, checked.error());
      return kExitUsage;
    }
  }
  const bool temporary = args.output.empty();
  auto path = temporary ? make_temporary_trace() : core::Result<fs::path>(fs::path(args.output));
  if (!path) {
    print_error(err, path.error());
    return kExitFailure;
  }
  auto writer = trace::Writer::open(*path, {.overwrite = args.force, .source_description = "solscope run"});
  if (!writer) {
    if (temporary) trace::remove_trace_files(*path);
    print_error(err, writer.error());
    return writer.error().code == core::ErrorCode::InvalidArgument ? kExitUsage : kExitFailure;
  }
  std::optional<Sampling> sampling = open_sampling(hooks, *config, err);
  if (auto done =
          writer->set_metadata(trace::kMetaSourceDescription, describe_source(sampling, config->interval_ns));
      !done)
    print_error(err, done.error());
  SharedWriter shared(*writer);
  Job job{args,
          hooks,
          err,
          shared,
          *writer,
          RunTraceSink(shared, config->devices.empty()),
          std::move(sampling),
          plan_kernels(hooks, args, err)};
  job.pm_policy = common.pm_policy;
  job.workload_options = workloads;
  std::optional<std::string> cuda_visible;
  if (auto value = config::process_environment()("CUDA_VISIBLE_DEVICES")) cuda_visible = *value;
  if (job.pipe) {
    (void)writer->set_kernel_log("cupti");
    const auto user_nvtx = config::process_environment()(kNvtxInjectionEnv);
    (void)writer->set_metadata(kMetaRunNvtx, nvtx_route(user_nvtx));
    if (user_nvtx) {
      print_note(err, std::string("NVTX ranges are not recorded: ") + kNvtxInjectionEnv + "=" + *user_nvtx +
                          " is kept (unset it to record them)");
    }
  }
  if (auto done =
          write_run_start(*writer, args.command, realtime_now_ns(), cuda_visible_summary(cuda_visible));
      !done) {
    print_error(err, done.error());
  }
  auto exit = run_child(job, *config);
  if (!exit) {
    if (job.sampling) job.sampling->source->stop();
    (void)writer->close();
    if (temporary) trace::remove_trace_files(*path);
    print_error(err, exit.error());
    // As shells report a command that cannot be started: 127 not found, 126 not executable.
    if (exit.error().code == core::ErrorCode::NotFound) return 127;
    return exit.error().code == core::ErrorCode::PermissionDenied ? 126 : kExitFailure;
  }
  if (auto done = write_run_end(*writer, job.ended_ns, *exit, job.sink.used_devices()); !done) {
    print_error(err, done.error());
  }
  const bool keep = finish_trace(job, *path);
  if (temporary && !keep) {
    trace::remove_trace_files(*path);
  } else {
    print_note(err, "the trace is at " + path->string());
  }
  return exit->solscope_code();
}

}  // namespace solscope::app
