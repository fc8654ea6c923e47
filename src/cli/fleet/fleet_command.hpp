// `solscope fleet --prometheus URL`: the fleet view over a Prometheus server (docs/fleet.md), in the
// terminal, or one snapshot as JSON with --json.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "cli/cli.hpp"
#include "core/result.hpp"
#include "fleet/prometheus_fleet.hpp"

namespace CLI {
class App;
}

namespace solscope::app {

/// Options of `solscope fleet` (rows of the option table, Scope::Fleet).
struct FleetArgs {
  std::string prometheus;                            ///< --prometheus URL (required)
  std::string selector;                              ///< --selector '{cluster="a"}'
  std::int64_t since_ns = kDefaultFleetWindowNs;     ///< --since: the window, ending at --at
  std::int64_t refresh_ns = kDefaultFleetRefreshNs;  ///< --refresh: time between the view's refreshes
  std::string token_file;                            ///< --prometheus-token-file
  std::string ca_file;                               ///< --prometheus-ca
  std::string at;                                    ///< --at: end of the window; empty = now
  std::size_t gpu_limit = fleet::kDefaultGpuLimit;
  bool step_series = false;  ///< --step-series: reduce the window here (FleetQuery::aggregate_on_server off)
  std::string by;            ///< --by namespace|pod|job: the workload roll-up (table or --json); empty = GPUs
  std::string job_label;  ///< --job-label LABEL: groups of the iteration stragglers; empty = job, else host
};

/// Adds the options above to the `fleet` subcommand.
void add_fleet_options(CLI::App& fleet, FleetArgs& args);

/// "1700000000", "1700000000.5" (Unix seconds) or "2023-11-14T22:13:20Z" to Unix ns. Errors: InvalidArgument
/// naming the value and the accepted forms.
[[nodiscard]] auto parse_fleet_time(const std::string& text) -> core::Result<std::int64_t>;

/// Runs the fleet view (common.json: print one snapshot as JSON and exit); with --by, prints the workload
/// roll-up as a table (or JSON) and exits. Exit codes: 0; 2 for a bad command line (an unknown --by value,
/// with the accepted ones, a --job-label that is not a Prometheus label name) or a selector Prometheus
/// rejects; 1 when Prometheus cannot be read (the message says why).
auto run_fleet(const CommonOptions& common, const FleetArgs& args, std::ostream& out, std::ostream& err)
    -> int;

}  // namespace solscope::app
