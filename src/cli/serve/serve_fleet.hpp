// The fleet side of `solscope serve --prometheus URL`: the Prometheus fleet reader made from serve's options,
// and the daemon that serves only the fleet view (/api/v1/fleet, /fleet.html) on a machine without a GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "fleet/fleet_model.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/options.hpp"
#include "server/server.hpp"

namespace solscope::app {

/// serve's Prometheus options (option table, Scope::Serve).
struct PrometheusArgs {
  std::string url;       ///< --prometheus: http(s)://HOST:PORT[/PREFIX]; empty = no fleet view
  std::string selector;  ///< --selector: PromQL label matchers, e.g. {cluster="a"}; empty = every series
  std::int64_t since_ns = kDefaultFleetWindowNs;  ///< --since: the window, ending now (range: option table)
  std::string token_file;  ///< --prometheus-token-file: bearer token sent to Prometheus; empty = none
  std::string ca_file;  ///< --prometheus-ca: PEM CA bundle for an https:// Prometheus; empty = the system's
};

/// The fleet reader for `args` (fleet::make_prometheus_fleet). Asks Prometheus nothing yet (the first
/// /api/v1/fleet does). Errors (exit code kExitUsage): a bad URL or CA file, an unreadable or unsafe
/// token file (net::read_token_file's messages).
[[nodiscard]] auto open_prometheus_fleet(const PrometheusArgs& args)
    -> Outcome<std::shared_ptr<fleet::FleetProvider>>;

/// Serves `options` (with options.fleet set) and no local GPU until SIGINT/SIGTERM: the fleet view only.
/// Prints "solscope: listening on URL" on `err` once bound. Returns kExitOk when stopped, kExitFailure when
/// the server cannot start (a port, a TLS file).
[[nodiscard]] auto serve_fleet_only(server::ServerOptions options, std::ostream& err) -> int;

}  // namespace solscope::app
