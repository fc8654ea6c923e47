// `solscope serve`: the per-node daemon (sampling + HTTP, docs/http-api.md), and its options.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/serve/serve_fleet.hpp"
#include "core/result.hpp"
#include "server/server.hpp"

namespace CLI {
class App;
}

namespace solscope::app {

/// Options of `solscope serve`.
struct ServeArgs {
  /// --listen ADDRESS:PORT (IPv6 in brackets; port 0 = any free).
  std::string listen =
      std::string(server::kDefaultListenHost) + ":" + std::to_string(server::kDefaultDaemonPort);
  std::string token_file;  ///< --token-file: bearer token (required off loopback)
  std::string tls_cert;    ///< --tls-cert PEM file (with --tls-key: HTTPS)
  std::string tls_key;     ///< --tls-key PEM file
  std::string hostname;    ///< --hostname / SOLSCOPE_HOSTNAME: the hostname label; empty = gethostname()
  /// --max-clients: concurrent /api/v1/stream clients (range: the option table).
  std::size_t max_clients = server::kDefaultMaxStreamClients;
  /// --client-queue: events queued per stream client (range: the option table).
  std::size_t client_queue = server::kDefaultStreamQueueEvents;
  /// --max-connections: connections served at once, streams included (range: the option table).
  std::size_t max_connections = server::kDefaultMaxConnections;
  /// --max-connections-per-address: open connections per client address (range: the option table).
  std::size_t max_connections_per_address = server::kDefaultMaxConnectionsPerAddress;
  double replay_speed = 1.0;  ///< --speed: with --replay, trace seconds per second (0 = fastest)
  bool loop = false;          ///< --loop: with --replay, start again at the end
  PrometheusArgs prometheus;  ///< --prometheus and its options: the fleet view (serve_fleet.hpp)
};

/// A --listen value split: host without brackets, and port.
struct ListenAddress {
  std::string host;
  std::uint16_t port = server::kDefaultDaemonPort;
};

/// Parses "HOST:PORT", "[IPV6]:PORT", or a bare "HOST" (default port). Errors: InvalidArgument naming the
/// value when the port is not 0-65535 or the host is empty.
[[nodiscard]] auto parse_listen_address(const std::string& text) -> core::Result<ListenAddress>;

/// Adds `serve`'s options to its subcommand.
void add_serve_options(CLI::App& serve, ServeArgs& args);

/// Samples (or replays --replay FILE) and serves HTTP until SIGINT/SIGTERM; prints "solscope: listening on
/// URL" on `err` once the port is bound. With --prometheus it also serves the fleet view; then, without a
/// GPU (and without --replay), it serves the fleet view alone. Otherwise, without a GPU and without --replay
/// it fails with the NVIDIA source's error and exit code. A replay that ends (without --loop) keeps its last
/// figures served until stopped.
auto run_serve(const CommonOptions& common, const WorkloadOptions& workloads, const ServeArgs& args,
               std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
