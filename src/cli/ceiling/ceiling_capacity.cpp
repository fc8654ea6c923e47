#include "cli/ceiling/ceiling_capacity.hpp"

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ceiling/capacity.hpp"
#include "cli/ceiling/ceiling_serve_report.hpp"
#include "cli/ceiling/ceiling_sweep_report.hpp"
#include "cli/report/html_page.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "runtime/output_path.hpp"

namespace solscope::app {
namespace {

auto usage(core::Error error) -> core::Unexpected<Failure> {
  return core::fail(Failure{std::move(error), kExitUsage});
}

auto usage(std::string message, std::string hint) -> core::Unexpected<Failure> {
  return usage(core::Error{core::ErrorCode::InvalidArgument, std::move(message), std::move(hint)});
}

auto has_limits(const CeilingArgs& args) -> bool {
  return !std::isnan(args.max_tpot_ms) || !std::isnan(args.max_ttft_ms);
}

auto limits_of(const CeilingArgs& args) -> ceiling::CapacityLimits {
  return ceiling::CapacityLimits{args.max_tpot_ms / core::kKilo, args.max_ttft_ms / core::kKilo};
}

/// The first capacity option given, for "... needs --serve".
auto first_capacity_option(const CeilingArgs& args) -> std::string {
  if (args.sweep_points > 0) return "--sweep";
  if (args.concurrency_max) return "--concurrency max";
  if (!std::isnan(args.max_tpot_ms)) return "--max-tpot-ms";
  if (!std::isnan(args.max_ttft_ms)) return "--max-ttft-ms";
  if (args.csv) return "--csv";
  return args.html.empty() ? std::string() : "--html";
}

/// Why the chosen point won: "the most output tokens/s with TPOT <= 30 ms that fits in 72.0 GB", said as
/// "within 0.5% of ..." when the tie rule picked a lower concurrency than the very most.
auto choice_reason(std::span<const ceiling::SweepPoint> sweep, std::size_t best,
                   const ceiling::CapacityLimits& limits) -> std::string {
  const double most = ceiling::most_output_tokens_per_s(sweep);
  const ceiling::ServeCeiling& s = sweep[best].ceiling;
  const std::string limit_text = ceiling::limits_text(limits);
  std::string reason =
      fmt::format("the most output tokens/s{}{} that fits in {:.1f} GB", limit_text.empty() ? "" : " with ",
                  limit_text, s.prefill_step.memory_usable_bytes / core::kGiga);
  if (s.output_tokens_per_s < most) {
    reason = fmt::format("within {:g}% of {}, at less latency",
                         ceiling::kThroughputTieFraction * core::kPercent, reason);
  }
  return fmt::format("{}; best of {} concurrencies from 1 to {}", reason, sweep.size(),
                     sweep.back().concurrency);
}

auto write_page(const CeilingArgs& args, const SweepReportInput& report) -> Outcome<void> {
  auto page = render_sweep_html(report);
  if (!page) return core::fail(Failure{page.error(), kExitFailure});
  if (auto written = write_html_page(*page, args.html); !written) {
    return core::fail(Failure{written.error(), kExitFailure});
  }
  return {};
}

auto run_sweep(const CeilingArgs& args, const CapacityInput& in, const ceiling::ServeTraffic& traffic,
               std::ostream& out) -> Outcome<void> {
  const ceiling::CapacityLimits limits = limits_of(args);
  if (!args.html.empty()) {
    std::vector<std::string> inputs{in.config_path};
    if (!args.gpu_specs.empty()) inputs.push_back(args.gpu_specs);
    if (auto checked = check_output_path(args.html, inputs, args.force); !checked)
      return usage(checked.error());
  }
  auto sweep = ceiling::sweep_concurrency(in.db, in.gpu, in.arch, in.base, traffic, limits,
                                          static_cast<int>(args.sweep_points));
  if (!sweep) return usage(sweep.error());
  auto best = ceiling::best_point(*sweep, limits);
  const SweepReportInput report{*sweep,  best ? std::optional<std::size_t>(*best) : std::nullopt,
                                limits,  in.gpu,
                                in.arch, in.config_path};
  if (!args.html.empty()) {
    if (auto written = write_page(args, report); !written) return written;
  }
  if (args.csv) {
    out << render_sweep_csv(report);
  } else if (args.json) {
    out << render_sweep_json(report);
  } else {
    // The text names models and paths from config files: terminal_safe() keeps escapes off the terminal.
    out << core::terminal_safe(render_sweep_text(report), core::LineBreaks::Keep);
  }
  return {};
}

}  // namespace

auto wants_capacity(const CeilingArgs& args) -> bool {
  return args.concurrency_max || has_limits(args) || args.sweep_points > 0;
}

auto check_capacity_options(const CeilingArgs& args) -> Outcome<void> {
  const std::string option = first_capacity_option(args);
  if (!args.serve && !option.empty()) {
    return usage(option + " plans the serving capacity: it needs --serve", "add --serve (and --isl, --osl)");
  }
  const bool sweep = args.sweep_points > 0;
  if (args.csv && !sweep) return usage("--csv prints the sweep's table: it needs --sweep", "add --sweep");
  if (!args.html.empty() && !sweep) {
    return usage("--html writes the sweep's page: it needs --sweep", "add --sweep");
  }
  if (args.csv && args.json) return usage("--csv and --json both choose the output", "give one of them");
  return {};
}

auto run_capacity(const CeilingArgs& args, const CapacityInput& in, std::ostream& out) -> Outcome<void> {
  const ceiling::ServeTraffic traffic{args.isl, args.osl, 1, args.max_batched_tokens};
  if (args.sweep_points > 0) return run_sweep(args, in, traffic, out);
  const ceiling::CapacityLimits limits = limits_of(args);
  auto sweep = ceiling::sweep_concurrency(in.db, in.gpu, in.arch, in.base, traffic, limits);
  if (!sweep) return usage(sweep.error());
  auto best = ceiling::best_point(*sweep, limits);
  if (!best) return usage(best.error());
  const ceiling::SweepPoint& chosen = (*sweep)[*best];
  const std::string reason = choice_reason(*sweep, *best, limits);
  const ServeReportInput report{chosen.ceiling, in.gpu, in.arch, in.config_path, reason};
  if (args.json) {
    out << render_serve_json(report);
    return {};
  }
  const std::string text =
      fmt::format("Chosen: concurrency {} ({})\n\n", chosen.concurrency, reason) + render_serve_text(report);
  out << core::terminal_safe(text, core::LineBreaks::Keep);
  return {};
}

}  // namespace solscope::app
