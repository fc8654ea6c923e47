#include "cli/cli_commands.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "cli/ceiling/ceiling_command.hpp"
#include "cli/check/check_command.hpp"
#include "cli/config/bind.hpp"
#include "cli/fleet/fleet_command.hpp"
#include "cli/import/import_command.hpp"
#include "cli/live/top_command.hpp"
#include "cli/profile/profile_command.hpp"
#include "cli/report/report_command.hpp"
#include "cli/serve/serve_command.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/gpu_backend.hpp"
#include "runtime/messages.hpp"

namespace solscope::app {
namespace {

using config::Scope;

/// A handler that runs `run` over the command's own options `args`.
template <typename Args, typename Run>
auto handler(std::shared_ptr<Args> args, Run run) -> std::function<int(std::ostream&, std::ostream&)> {
  return [args = std::move(args), run](std::ostream& out, std::ostream& err) { return run(*args, out, err); };
}

auto declare_top(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<TopArgs>();
  add_top_options(c.root, *args);  // `solscope --connect ...` as well as `solscope top --connect ...`
  const SharedOptions& s = c.shared;
  return {handler(args, [&s](const TopArgs& a, std::ostream& out, std::ostream& err) {
    return run_top(s.common, s.workloads, a, out, err);
  })};
}

auto declare_serve(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<ServeArgs>();
  add_serve_options(c.sub, *args);
  const SharedOptions& s = c.shared;
  return {handler(args, [&s](const ServeArgs& a, std::ostream& out, std::ostream& err) {
    return run_serve(s.common, s.workloads, a, out, err);
  })};
}

auto declare_devices(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<DevicesArgs>();
  c.sub.add_flag("--json", args->json, "print JSON");
  // `solscope devices --workloads [FILE]`: the flag, optionally naming the declarations file.
  WorkloadOptions& workloads = c.shared.workloads;
  c.sub
      .add_option_function<std::vector<std::string>>(
          "--workloads",
          [&workloads, args](const std::vector<std::string>& values) {
            args->workloads = true;
            if (!values.empty() && !values.front().empty()) workloads.file = values.front();
          },
          "also show what runs on each GPU and its attainable SOL (optionally: a declarations file)")
      ->expected(0, 1);
  const SharedOptions& s = c.shared;
  return {handler(args, [&s](const DevicesArgs& a, std::ostream& out, std::ostream& err) {
    return run_devices(s.common, s.workloads, a, out, err);
  })};
}

auto declare_record(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<RecordArgs>();
  c.sub.add_option("-o,--output", args->output, "trace file to write")->required();
  config::add_option(c.sub, Scope::Record, "--duration", args->duration_ns);
  c.sub.add_flag("--force", args->force, "overwrite an existing file");
  config::add_option(c.sub, Scope::Record, "--speed", args->replay_speed);
  const SharedOptions& s = c.shared;
  return {handler(args, [&s](const RecordArgs& a, std::ostream& out, std::ostream& err) {
    return run_record(s.common, s.workloads, a, out, err);
  })};
}

auto declare_replay(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<ReplayArgs>();
  c.sub.add_option("file", args->file, "trace file")->required();
  config::add_option(c.sub, Scope::Replay, "--speed", args->speed);
  config::add_option(c.sub, Scope::Replay, "--loop", args->loop);
  const SharedOptions& s = c.shared;
  return {handler(args, [&s](const ReplayArgs& a, std::ostream& out, std::ostream& err) {
    return run_replay(s.common, a, out, err);
  })};
}

auto declare_export(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<ExportArgs>();
  c.sub.add_option("file", args->file, "trace file")->required();
  c.sub.add_option("--format", args->format, "csv or jsonl")->check(CLI::IsMember({"csv", "jsonl"}));
  c.sub.add_option("-o,--output", args->output, "output file (default: stdout)");
  c.sub.add_flag("--force", args->force, "overwrite an existing output file");
  return {handler(args, run_export)};
}

auto declare_import(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<ImportArgs>();
  c.sub.add_option("file", args->file, "the recording to read")->required();
  config::add_option(c.sub, Scope::Import, "--output", args->output, "-o,--output")->required();
  config::add_option(c.sub, Scope::Import, "--from", args->from);
  config::add_option(c.sub, Scope::Import, "--delay", args->delay_ns);
  config::add_option(c.sub, Scope::Import, "--force", args->force);
  return {handler(args, run_import)};
}

auto declare_report(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<ReportArgs>();
  c.sub.add_option("file", args->file, "trace file")->required();
  c.sub.add_flag("--json", args->json, "print the JSON report (docs/report.md)");
  config::add_option(c.sub, Scope::Report, "--html", args->html);
  config::add_option(c.sub, Scope::Report, "--force", args->force);
  c.sub.add_option("--phases", args->phases,
                   "also judge the phases a workload declared in this JSON file (docs/report.md; exit 6 when "
                   "one is off)");
  c.sub.add_option("--step-range", args->step_range,
                   "the NVTX range that marks one training step (docs/report.md \"Training steps\"; default: "
                   "the outermost range name repeated most often, else the repeating kernel sequence)");
  return {handler(args, run_report)};
}

/// `solscope ... run ... -- CMD ARGS...`: the words after the first `--` when a `run` comes before it, taken
/// off `args` (CLI11 never sees CMD's own options); nullopt otherwise (`--` then means what CLI11 makes of
/// it).
auto split_run_command(std::vector<char*>& args) -> std::optional<std::vector<std::string>> {
  const auto dashes =
      std::find_if(args.begin() + 1, args.end(), [](const char* a) { return std::string_view(a) == "--"; });
  if (dashes == args.end()) return std::nullopt;
  const bool run =
      std::any_of(args.begin() + 1, dashes, [](const char* a) { return std::string_view(a) == "run"; });
  if (!run) return std::nullopt;
  std::vector<std::string> command(dashes + 1, args.end());
  args.erase(dashes, args.end());
  return command;
}

/// `solscope run CMD` (no `--`) or `solscope run --`: says how to give the command; nullopt when it was
/// given.
auto check_run_command(const CLI::App& root, const CLI::App& run, const RunArgs& args, std::ostream& err)
    -> std::optional<int> {
  if (!run.parsed() || !args.command.empty()) return std::nullopt;
  std::vector<std::string> words = root.remaining();
  for (const auto& w : run.remaining()) words.push_back(w);
  std::string given;
  for (const auto& w : words) given += " " + w;
  print_error(
      err, core::Error{core::ErrorCode::InvalidArgument,
                       words.empty() ? "run needs a command after `--`" : "run takes its command after `--`",
                       "solscope run [--interval 10ms] [-o trace.sqlite] --" +
                           (given.empty() ? std::string(" CMD ARGS...") : given)});
  return kExitUsage;
}

auto declare_run(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<RunArgs>();
  if (auto command = split_run_command(c.args)) args->command = std::move(*command);
  c.sub.footer(
      "Usage: solscope run [OPTIONS] -- CMD ARGS...  (exit code: CMD's, or 128 + the signal that ended it)");
  config::add_option(c.sub, Scope::Run, "--output", args->output, "-o,--output");
  config::add_option(c.sub, Scope::Run, "--force", args->force);
  config::add_option(c.sub, Scope::Run, "--html", args->html);
  config::add_option(c.sub, Scope::Run, "--no-kernels", args->no_kernels);
  const SharedOptions& s = c.shared;
  const CLI::App& root = c.root;
  const CLI::App& sub = c.sub;
  return {handler(args, [&s](const RunArgs& a, std::ostream& out,
                             std::ostream& err) { return run_job(s.common, s.workloads, a, out, err); }),
          [&root, &sub, args](std::ostream& err) { return check_run_command(root, sub, *args, err); }};
}

auto declare_ceiling(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<CeilingArgs>();
  add_ceiling_options(c.sub, *args);
  // --gpu auto: the NVML name of GPU 0, or of the first --devices index.
  const CommonOptions& common = c.shared.common;
  args->detect_gpu = [&common] { return detect_gpu_name(common.devices); };
  return {handler(args, run_ceiling)};
}

auto declare_fleet(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<FleetArgs>();
  add_fleet_options(c.sub, *args);
  const SharedOptions& s = c.shared;
  return {handler(args, [&s](const FleetArgs& a, std::ostream& out, std::ostream& err) {
    return run_fleet(s.common, a, out, err);
  })};
}

auto declare_check(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<CheckArgs>();
  args->make_runner = make_kernel_runner;
  add_check_options(c.sub, *args);
  c.sub.footer(std::string("Also: --devices LIST (which GPUs; default all) and --json (the table as one JSON "
                           "document), given before or\nafter `check`. Method, phases, tolerances and the "
                           "overhead runs: docs/accuracy.md.\n\n") +
               kExitCodesHelp);
  const SharedOptions& s = c.shared;
  return {handler(args, [&s](const CheckArgs& a, std::ostream& out, std::ostream& err) {
    return run_check_command(s.common, a, out, err);
  })};
}

auto declare_profile(CommandContext& c) -> DeclaredCommand {
  auto args = std::make_shared<ProfileArgs>();
  add_profile_options(c.sub, *args);
  return {handler(args, run_profile)};
}

constexpr CommandSpec kCommands[] = {
    {"top", "live view of every GPU (the default command)", declare_top, true},
    {"serve", "daemon: sampling plus HTTP (/metrics, /api/v1, live stream, web dashboard)", declare_serve},
    {"devices", "GPUs, counter source per GPU, permissions and fixes", declare_devices},
    {"record", "record a trace (SQLite) until --duration or Ctrl-C", declare_record},
    {"replay", "play a recorded trace (live view, or --json)", declare_replay},
    {"export", "write a trace's samples as CSV or JSON Lines", declare_export},
    {"import", "turn a recording of another tool (dcgm-exporter, Prometheus, dmon, nsys) into a trace",
     declare_import},
    {"report", "a trace's efficiency per GPU: SOL, bound time, phases, energy, top kernels", declare_report},
    {"run", "run a command, sample the GPUs it uses, log its kernels, report when it ends (run -- CMD ARGS)",
     declare_run},
    {"ceiling", "attainable SOL of a described workload (roofline)", declare_ceiling},
    {"fleet", "a fleet's GPUs from Prometheus: SOL, busy-idle GPU-hours, stragglers (--prometheus URL)",
     declare_fleet},
    {"check", "run calibrated kernels and show expected next to measured, per source; sampling overhead",
     declare_check},
    {"profile", "pause or resume a daemon's PM sampling for a profiler (ncu, nsys), or show its state",
     declare_profile},
};

}  // namespace

auto command_table() -> std::span<const CommandSpec> {
  return kCommands;
}

}  // namespace solscope::app
