#include "cli/check/check_command.hpp"

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "check/run/check_render.hpp"
#include "cli/config/bind.hpp"
#include "runtime/messages.hpp"
#include "runtime/options.hpp"
#include "trace/writer.hpp"
#include "wire/json_text.hpp"

namespace solscope::app {
namespace {

/// --source: the sources to check, in order; nullopt for an unknown name.
auto sources_for(const std::string& name) -> std::optional<std::vector<core::SourceKind>> {
  using core::SourceKind;
  if (name == "all") return std::vector{SourceKind::PmSampling, SourceKind::Gpm, SourceKind::NvmlOnly};
  if (name == "pm") return std::vector{SourceKind::PmSampling};
  if (name == "gpm") return std::vector{SourceKind::Gpm};
  if (name == "nvml") return std::vector{SourceKind::NvmlOnly};
  return std::nullopt;
}

auto options_from(const CommonOptions& common, const CheckArgs& args) -> Outcome<CheckOptions> {
  CheckOptions options;
  auto sources = sources_for(args.source);
  if (!sources) {
    return core::fail(
        Failure{core::Error{core::ErrorCode::InvalidArgument, "--source " + args.source + " is not a source",
                            "give pm, gpm, nvml or all"},
                kExitUsage});
  }
  options.sources = std::move(*sources);
  options.single_source = options.sources.size() == 1;
  options.phase_ns = std::llround(args.seconds * 1e9);
  options.overhead = !args.no_overhead;
  options.overhead_options.run_ns = options.phase_ns / 2;
  options.devices = common.devices;
  return options;
}

auto open_trace(const std::string& path) -> Outcome<std::optional<trace::Writer>> {
  if (path.empty()) return std::optional<trace::Writer>{};
  trace::WriterOptions writer_options;
  writer_options.source_description = fmt::format("recorded by solscope {} check", SOLSCOPE_VERSION);
  auto writer = trace::Writer::open(path, writer_options);
  if (!writer) {
    const bool usage = writer.error().code == core::ErrorCode::InvalidArgument;
    return core::fail(Failure{writer.error(), usage ? kExitUsage : kExitFailure});
  }
  return std::optional<trace::Writer>(std::move(*writer));
}

}  // namespace

void add_check_options(CLI::App& check, CheckArgs& args) {
  using config::Scope;
  config::add_option(check, Scope::Check, "--seconds", args.seconds);
  config::add_option(check, Scope::Check, "--source", args.source)
      ->check(CLI::IsMember({"pm", "gpm", "nvml", "all"}));
  config::add_option(check, Scope::Check, "--output", args.output, "-o,--output");
  config::add_option(check, Scope::Check, "--no-overhead", args.no_overhead);
}

auto run_check_with(const CommonOptions& common, const CheckArgs& args, CheckDeps deps,
                    const std::atomic<bool>& stop, std::ostream& out, std::ostream& err) -> int {
  auto options = options_from(common, args);
  if (!options) {
    print_error(err, options.error().error);
    return options.error().exit_code;
  }
  const bool interval_set = common.interval_ns.has_value() && *common.interval_ns != kDefaultIntervalNs;
  if (interval_set || !common.replay.empty() || !common.dcgm_exporter.empty()) {
    print_warning(err, std::string("check samples live GPUs at 10 ms: --interval and --replay are not used") +
                           (common.dcgm_exporter.empty() ? "" : ", nor --dcgm-exporter"));
  }
  // The driver first: without one, no trace file is made.
  auto probe = deps.probe();
  if (!probe) {
    print_error(err, probe.error());
    return exit_code_for_source_error(probe.error());
  }
  deps.probe = [found = *probe]() -> core::Result<GpuProbe> { return found; };
  auto writer = open_trace(args.output);
  if (!writer) {
    print_error(err, writer.error().error);
    return writer.error().exit_code;
  }
  deps.writer = *writer ? &**writer : nullptr;
  auto report = run_check(*options, deps, stop, err);
  if (*writer) {
    // The table travels with the samples: a bug report needs only the file.
    if (report) {
      if (auto kept = (*writer)->set_metadata(kCheckMetaKey, wire::json_text(check_json(*report))); !kept) {
        print_error(err, kept.error());
      }
    }
    if (auto closed = (*writer)->close(); !closed) print_error(err, closed.error());
  }
  if (report && stop.load()) print_warning(err, "stopped by a signal: the check is incomplete");
  if (!report) {
    print_error(err, report.error().error);
    return report.error().exit_code;
  }
  if (common.json) {
    out << wire::json_text(check_json(*report), wire::kJsonPretty) << '\n';
  } else {
    render_check_table(*report, out);
  }
  if (*writer)
    print_note(err, fmt::format("kept {} samples in {}", (*writer)->committed_samples(), args.output));
  return check_exit_code(*report);
}

}  // namespace solscope::app
