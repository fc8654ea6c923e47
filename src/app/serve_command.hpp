// `solscope serve`: the per-node daemon (sampling + HTTP), and its options.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "app/cli.hpp"
#include "app/commands.hpp"

namespace CLI {
class App;
}

namespace solscope::app {

/// The daemon's default port: collides with none of dcgm-exporter (9400), Utilyze (8079), node_exporter
/// (9100), Prometheus (9090) or Grafana (3000) (architecture.md "Server").
inline constexpr std::uint16_t kDefaultServePort = 9741;

/// Options of `solscope serve`.
struct ServeArgs {
  std::string listen = "127.0.0.1:9741";  ///< --listen ADDRESS:PORT
  std::string token_file;                 ///< --token-file: bearer token (required off loopback)
  std::string tls_cert;                   ///< --tls-cert PEM file
  std::string tls_key;                    ///< --tls-key PEM file
};

/// Adds `serve`'s options to its subcommand.
void add_serve_options(CLI::App& serve, ServeArgs& args);

/// Samples (or replays --replay FILE) and serves HTTP until SIGINT/SIGTERM.
auto run_serve(const CommonOptions& common, const WorkloadOptions& workloads, const ServeArgs& args,
               std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
