#include "app/cli.hpp"
#include "app/man_page.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/ceiling_command.hpp"
#include "app/check_command.hpp"
#include "app/commands.hpp"
#include "app/config/bind.hpp"
#include "app/config/environment.hpp"
#include "app/exit_codes.hpp"
#include "app/fleet_command.hpp"
#include "app/import_command.hpp"
#include "app/messages.hpp"
#include "app/options.hpp"
#include "app/report_command.hpp"
#include "app/serve_command.hpp"
#include "app/signals.hpp"
#include "app/source_factory.hpp"
#include "app/top_command.hpp"

namespace solscope::app {
namespace {

constexpr const char* kDescription =
    "solscope: how close each GPU is to its speed of light (SOL).\n"
    "Compute SOL = busiest compute pipe, Memory SOL = busiest memory path, from the GPU's hardware "
    "counters,\n"
    "shown next to the classic 'GPU utilization' that only says a kernel was running.";

constexpr const char* kExitCodes =
    "Exit codes: 0 ok (also stopped by Ctrl-C), 1 failure, 2 bad command line, 3 no NVIDIA GPU or driver,\n"
    "4 GPU counters not permitted, 5 unreadable trace or recording (`import`),\n"
    "6 `solscope check` found a figure off (or a fault).\n";

/// Adds the options every command shares.
void add_common_options(CLI::App& app, CommonOptions& common, std::string& config_file) {
  using config::Scope;
  config::add_option(app, Scope::Global, "--config", config_file);
  config::add_option(app, Scope::Global, "--devices", common.devices);
  config::add_option(app, Scope::Global, "--interval", common.interval_ns);
  config::add_option(app, Scope::Global, "--json", common.json);
  config::add_option(app, Scope::Global, "--replay", common.replay);
  config::add_option(app, Scope::Global, "--dcgm-exporter", common.dcgm_exporter);
  config::add_option(app, Scope::Global, "--dcgm-exporter-token-file", common.dcgm_exporter_token_file);
  config::add_option(app, Scope::Global, "--dcgm-exporter-ca", common.dcgm_exporter_ca);
}

void add_workload_options(CLI::App& app, WorkloadOptions& workloads) {
  config::add_option(app, config::Scope::Global, "--workloads", workloads.file);
  config::add_option(app, config::Scope::Global, "--no-workloads", workloads.disabled);
}

/// `solscope devices --workloads [FILE]`: the flag, optionally naming the declarations file.
void add_devices_workloads_option(CLI::App& devices, WorkloadOptions& workloads, DevicesArgs& args) {
  devices
      .add_option_function<std::vector<std::string>>(
          "--workloads",
          [&workloads, &args](const std::vector<std::string>& values) {
            args.workloads = true;
            if (!values.empty() && !values.front().empty()) workloads.file = values.front();
          },
          "also show what runs on each GPU and its attainable SOL (optionally: a declarations file)")
      ->expected(0, 1);
}

/// --gpu auto: the NVML name of GPU 0, or of the first --devices index.
auto gpu_detector(const CommonOptions& common) -> std::function<core::Result<std::string>()> {
  return [&common] { return detect_gpu_name(common.devices); };
}

/// Names a user could have meant: the subcommands and the long options of the app and its chosen subcommand.
auto known_words(const CLI::App& app, bool options) -> std::vector<std::string> {
  std::vector<std::string> words;
  if (!options) {
    for (const CLI::App* sub : app.get_subcommands({})) words.push_back(sub->get_name());
    return words;
  }
  std::vector<const CLI::App*> scopes{&app};
  for (const CLI::App* sub : app.get_subcommands()) scopes.push_back(sub);
  for (const CLI::App* scope : scopes) {
    for (const CLI::Option* opt : scope->get_options()) {
      for (const auto& name : opt->get_lnames()) words.push_back("--" + name);
    }
  }
  return words;
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

void add_run_options(CLI::App& run, RunArgs& args) {
  using config::Scope;
  config::add_option(run, Scope::Run, "--output", args.output, "-o,--output");
  config::add_option(run, Scope::Run, "--force", args.force);
  config::add_option(run, Scope::Run, "--html", args.html);
  config::add_option(run, Scope::Run, "--no-kernels", args.no_kernels);
}

/// Reports words CLI11 left unmatched, with a suggestion. Returns true when there were any.
auto report_extras(const CLI::App& app, std::ostream& err) -> bool {
  std::vector<std::string> extras = app.remaining();
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const auto& e : sub->remaining()) extras.push_back(e);
  }
  if (extras.empty()) return false;
  const std::string& word = extras.front();
  const bool is_option = word.starts_with("-");
  const std::string what = is_option ? "unknown option '" + word + "'" : "unknown command '" + word + "'";
  const std::string guess = closest_match(word.substr(0, word.find('=')), known_words(app, is_option));
  const std::string hint =
      guess.empty() ? "run `solscope --help` for the list" : "did you mean '" + guess + "'?";
  print_error(err, core::Error{core::ErrorCode::InvalidArgument, what, hint});
  return true;
}

}  // namespace

auto run(int argc, char** argv, std::ostream& out, std::ostream& err) -> int {
  std::vector<char*> args(argv, argv + argc);
  RunArgs run_args;
  if (auto command = split_run_command(args)) run_args.command = std::move(*command);
  CLI::App app{kDescription, "solscope"};
  app.footer(kExitCodes);
  app.set_version_flag("--version", std::string("solscope ") + SOLSCOPE_VERSION);
  bool man_page = false;  // --man: the manual page (man_page.hpp); hidden from --help
  app.add_flag("--man", man_page, "print the manual page (roff)")->group("");
  app.allow_extras();
  app.require_subcommand(0, 1);
  CommonOptions common;
  std::string config_file;
  add_common_options(app, common, config_file);
  WorkloadOptions workloads;
  add_workload_options(app, workloads);

  auto configure = [](CLI::App* sub) {
    sub->allow_extras();
    sub->fallthrough();
    return sub;
  };
  TopArgs top_args;
  add_top_options(app, top_args);
  configure(app.add_subcommand("top", "live view of every GPU (the default command)"));

  ServeArgs serve_args;
  auto* serve = configure(app.add_subcommand(
      "serve", "daemon: sampling plus HTTP (/metrics, /api/v1, live stream, web dashboard)"));
  add_serve_options(*serve, serve_args);
  DevicesArgs devices_args;
  auto* devices =
      configure(app.add_subcommand("devices", "GPUs, counter source per GPU, permissions and fixes"));
  devices->add_flag("--json", devices_args.json, "print JSON");
  add_devices_workloads_option(*devices, workloads, devices_args);
  RecordArgs record_args;
  auto* record =
      configure(app.add_subcommand("record", "record a trace (SQLite) until --duration or Ctrl-C"));
  record->add_option("-o,--output", record_args.output, "trace file to write")->required();
  config::add_option(*record, config::Scope::Record, "--duration", record_args.duration_ns);
  record->add_flag("--force", record_args.force, "overwrite an existing file");
  config::add_option(*record, config::Scope::Record, "--speed", record_args.replay_speed);
  ReplayArgs replay_args;
  auto* replay = configure(app.add_subcommand("replay", "play a recorded trace (live view, or --json)"));
  replay->add_option("file", replay_args.file, "trace file")->required();
  config::add_option(*replay, config::Scope::Replay, "--speed", replay_args.speed);
  config::add_option(*replay, config::Scope::Replay, "--loop", replay_args.loop);
  ExportArgs export_args;
  auto* exporter = configure(app.add_subcommand("export", "write a trace's samples as CSV or JSON Lines"));
  exporter->add_option("file", export_args.file, "trace file")->required();
  exporter->add_option("--format", export_args.format, "csv or jsonl")
      ->check(CLI::IsMember({"csv", "jsonl"}));
  exporter->add_option("-o,--output", export_args.output, "output file (default: stdout)");
  exporter->add_flag("--force", export_args.force, "overwrite an existing output file");
  ImportArgs import_args;
  auto* importer = configure(app.add_subcommand(
      "import", "turn a recording of another tool (dcgm-exporter, Prometheus, dmon, nsys) into a trace"));
  importer->add_option("file", import_args.file, "the recording to read")->required();
  config::add_option(*importer, config::Scope::Import, "--output", import_args.output, "-o,--output")
      ->required();
  config::add_option(*importer, config::Scope::Import, "--from", import_args.from);
  config::add_option(*importer, config::Scope::Import, "--delay", import_args.delay_ns);
  config::add_option(*importer, config::Scope::Import, "--force", import_args.force);
  ReportArgs report_args;
  auto* reporter = configure(app.add_subcommand(
      "report", "a trace's efficiency per GPU: SOL, bound time, phases, energy, top kernels"));
  reporter->add_option("file", report_args.file, "trace file")->required();
  reporter->add_flag("--json", report_args.json, "print the JSON report (docs/report.md)");
  config::add_option(*reporter, config::Scope::Report, "--html", report_args.html);
  config::add_option(*reporter, config::Scope::Report, "--force", report_args.force);
  reporter->add_option(
      "--phases", report_args.phases,
      "also judge the phases a workload declared in this JSON file (docs/report.md; exit 6 when "
      "one is off)");
  auto* run_sub = configure(app.add_subcommand(
      "run",
      "run a command, sample the GPUs it uses, log its kernels, report when it ends (run -- CMD ARGS)"));
  run_sub->footer(
      "Usage: solscope run [OPTIONS] -- CMD ARGS...  (exit code: CMD's, or 128 + the signal that ended it)");
  add_run_options(*run_sub, run_args);
  CeilingArgs ceiling_args;
  auto* ceiling =
      configure(app.add_subcommand("ceiling", "attainable SOL of a described workload (roofline)"));
  add_ceiling_options(*ceiling, ceiling_args);
  ceiling_args.detect_gpu = gpu_detector(common);
  FleetArgs fleet_args;
  auto* fleet = configure(app.add_subcommand(
      "fleet", "a fleet's GPUs from Prometheus: SOL, busy-idle GPU-hours, stragglers (--prometheus URL)"));
  add_fleet_options(*fleet, fleet_args);
  CheckArgs check_args;
  check_args.make_runner = make_kernel_runner;
  auto* checker = configure(app.add_subcommand(
      "check", "run calibrated kernels and show expected next to measured, per source; sampling overhead"));
  add_check_options(*checker, check_args);
  checker->footer(
      std::string(
          "Also: --devices LIST (which GPUs; default all) and --json (the table as one JSON document), "
          "given before or\nafter `check`. Method, phases, tolerances and the overhead runs: "
          "docs/accuracy.md.\n\n") +
      kExitCodes);

  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    print_error(err,
                core::Error{core::ErrorCode::InvalidArgument, e.what(), "run `solscope --help` for usage"});
    return kExitUsage;
  }
  if (run_sub->parsed() && run_args.command.empty()) {
    // `solscope run CMD` (no `--`) or `solscope run --`: say how to give the command.
    std::vector<std::string> words = app.remaining();
    for (const auto& w : run_sub->remaining()) words.push_back(w);
    std::string given;
    for (const auto& w : words) given += " " + w;
    print_error(err, core::Error{core::ErrorCode::InvalidArgument,
                                 words.empty() ? "run needs a command after `--`"
                                               : "run takes its command after `--`",
                                 "solscope run [--interval 10ms] [-o trace.sqlite] --" +
                                     (given.empty() ? std::string(" CMD ARGS...") : given)});
    return kExitUsage;
  }
  if (man_page) {
    out << render_man_page(app, std::string("solscope ") + SOLSCOPE_VERSION);
    return kExitOk;
  }
  if (report_extras(app, err)) return kExitUsage;
  if (auto applied = config::apply_config_file(app, config_file, config::process_environment()); !applied) {
    print_error(err, applied.error());
    return kExitUsage;
  }

  install_stop_signals();
  if (serve->parsed()) return run_serve(common, workloads, serve_args, out, err);
  if (devices->parsed()) return run_devices(common, workloads, devices_args, out, err);
  if (record->parsed()) return run_record(common, workloads, record_args, out, err);
  if (replay->parsed()) return run_replay(common, replay_args, out, err);
  if (exporter->parsed()) return run_export(export_args, out, err);
  if (reporter->parsed()) return run_report(report_args, out, err);
  if (importer->parsed()) return run_import(import_args, out, err);
  if (ceiling->parsed()) return run_ceiling(ceiling_args, out, err);
  if (checker->parsed()) return run_check_command(common, check_args, out, err);
  if (run_sub->parsed()) return run_job(common, run_args, out, err);
  if (fleet->parsed()) return run_fleet(common, fleet_args, out, err);
  return run_top(common, workloads, top_args, out, err);
}

}  // namespace solscope::app
