#include "cli/fleet/fleet_command.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <ctime>
#include <optional>

#include "cli/config/bind.hpp"
#include "cli/fleet/workload_table.hpp"
#include "core/duration.hpp"
#include "fleet/fleet_json.hpp"
#include "fleet/prometheus_fleet.hpp"
#include "net/token_file.hpp"
#include "runtime/environment.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "runtime/signals.hpp"
#include "tui/fleet_tui.hpp"

namespace solscope::app {
namespace {

using core::ErrorCode;

auto failure(const core::Error& e) -> int {
  return e.code == ErrorCode::InvalidArgument ? kExitUsage : kExitFailure;
}

auto make_query(const FleetArgs& args) -> core::Result<fleet::FleetQuery> {
  fleet::FleetQuery q;
  q.selector = args.selector;
  q.window_ns = args.since_ns;
  q.gpu_limit = args.gpu_limit;
  q.aggregate_on_server = !args.step_series;
  q.job_label = args.job_label;
  if (!args.at.empty()) {
    auto at = parse_fleet_time(args.at);
    if (!at) return core::propagate(at);
    q.end_ns = *at;
  }
  return q;
}

auto make_provider(const FleetArgs& args) -> core::Result<std::unique_ptr<fleet::FleetProvider>> {
  if (args.prometheus.empty()) {
    return core::fail(ErrorCode::InvalidArgument, "fleet needs --prometheus URL",
                      "solscope fleet --prometheus http://prometheus:9090 [--selector '{cluster=\"a\"}']");
  }
  net::RemoteEndpoint endpoint;
  endpoint.url = args.prometheus;
  endpoint.ca_cert_path = args.ca_file;
  endpoint.stop = {&stop_flag()};  // Ctrl-C cancels a query in flight (the view installs the handlers)
  if (!args.token_file.empty()) {
    auto token = net::read_token_file(args.token_file);
    if (!token) return core::propagate(token);
    endpoint.token = std::move(*token);
  }
  auto query = make_query(args);
  if (!query) return core::propagate(query);
  return fleet::make_prometheus_fleet(endpoint, std::move(*query));
}

}  // namespace

void add_fleet_options(CLI::App& fleet, FleetArgs& args) {
  using config::Scope;
  config::add_option(fleet, Scope::Fleet, "--prometheus", args.prometheus);
  config::add_option(fleet, Scope::Fleet, "--selector", args.selector);
  config::add_option(fleet, Scope::Fleet, "--since", args.since_ns);
  config::add_option(fleet, Scope::Fleet, "--refresh", args.refresh_ns);
  config::add_option(fleet, Scope::Fleet, "--prometheus-token-file", args.token_file);
  config::add_option(fleet, Scope::Fleet, "--prometheus-ca", args.ca_file);
  config::add_option(fleet, Scope::Fleet, "--at", args.at);
  config::add_option(fleet, Scope::Fleet, "--gpu-limit", args.gpu_limit);
  config::add_option(fleet, Scope::Fleet, "--step-series", args.step_series);
  config::add_option(fleet, Scope::Fleet, "--by", args.by);
  config::add_option(fleet, Scope::Fleet, "--job-label", args.job_label);
}

auto parse_fleet_time(const std::string& text) -> core::Result<std::int64_t> {
  const auto bad = [&] {
    return core::fail(ErrorCode::InvalidArgument, "--at " + text + " is not a time",
                      "give Unix seconds (1700000000) or UTC as YYYY-MM-DDTHH:MM:SSZ");
  };
  if (text.empty()) return bad();
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() + text.size()) {
    if (!std::isfinite(seconds) || seconds <= 0 || seconds > 1e11) return bad();
    return static_cast<std::int64_t>(std::llround(seconds * 1e3)) * 1'000'000;
  }
  std::tm tm{};
  const char* rest = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest == nullptr || std::string_view(rest) != "Z") return bad();
  const std::time_t t = timegm(&tm);
  if (t <= 0) return bad();
  return static_cast<std::int64_t>(t) * 1'000'000'000;
}

auto run_fleet(const CommonOptions& common, const FleetArgs& args, std::ostream& out, std::ostream& err)
    -> int {
  std::optional<fleet::GroupBy> by;
  if (!args.by.empty()) {
    auto parsed = parse_fleet_group_by(args.by);
    if (!parsed) {
      print_error(err, parsed.error());
      return kExitUsage;
    }
    by = *parsed;
  }
  auto provider = make_provider(args);
  if (!provider) {
    print_error(err, provider.error());
    return failure(provider.error());
  }
  if (by) {
    auto rollup = (*provider)->workloads(*by);
    if (!rollup) {
      print_error(err, rollup.error());
      return failure(rollup.error());
    }
    if (common.json) {
      out << fleet::workloads_json(*rollup) << '\n';
    } else {
      print_workload_table(*rollup, out);
    }
    return kExitOk;
  }
  if (common.json) {
    auto snap = (*provider)->snapshot();
    if (!snap) {
      print_error(err, snap.error());
      return failure(snap.error());
    }
    out << fleet::snapshot_json(*snap) << '\n';
    return kExitOk;
  }
  tui::FleetTuiOptions view;
  view.refresh_ns = args.refresh_ns;
  view.term = config::env_or_empty("TERM");
  view.no_color = config::env_or_empty("NO_COLOR");
  view.colors = config::env_or_empty("SOLSCOPE_COLORS");
  view.ascii = !config::env_or_empty("SOLSCOPE_ASCII").empty();
  view.stats_path = config::env_or_empty("SOLSCOPE_TUI_STATS");
  auto shown = tui::run_fleet_tui(**provider, view, install_stop_signals());
  if (!shown) {
    print_error(err, shown.error());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace solscope::app
