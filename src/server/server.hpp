// The HTTP server of `solscope serve` (docs/http-api.md): /metrics, /api/v1/devices, /api/v1/samples,
// /api/v1/stream (Server-Sent Events), /api/v1/fleet (with a fleet provider), /api/v1/profiling (with a PM
// yield board: the status, and the only writes, pause and resume), /healthz, /readyz and the built-in web
// dashboard, over HTTP or HTTPS, on one address. It reads a core::LiveState and streams the samples it is
// given with publish(), and the state's windows as they complete.
//
// Example:
//   core::LiveState state;
//   auto server = server::Server::start({.host = "127.0.0.1", .port = 0}, state);
//   if (!server) return fail(server.error());
//   // engine thread, per sample: state.add(s); (*server)->publish(s);
//   (*server)->stop();
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/live_state.hpp"
#include "core/pm_yield.hpp"
#include "core/result.hpp"
#include "server/detail/api.hpp"
#include "server/detail/event_stream.hpp"
#include "server/detail/fleet_api.hpp"

namespace solscope::server {

/// The daemon's default port: collides with none of dcgm-exporter (9400), Utilyze (8079), node_exporter
/// (9100), Prometheus (9090) or Grafana (3000) (docs/design/architecture.md section 6).
inline constexpr std::uint16_t kDefaultDaemonPort = 9741;
/// The daemon's default address: loopback only (no token needed there).
inline constexpr std::string_view kDefaultListenHost = "127.0.0.1";
/// Concurrent /api/v1/stream clients: default and the most `--max-clients` accepts.
inline constexpr std::size_t kDefaultMaxStreamClients = 64;
inline constexpr std::size_t kMaxStreamClientsLimit = 4096;
/// Events queued per stream client: default and the most `--client-queue` accepts.
inline constexpr std::size_t kDefaultStreamQueueEvents = 512;
inline constexpr std::size_t kMaxStreamQueueEvents = 65536;
/// Connections served at once (streams included): default and the most `--max-connections` accepts.
inline constexpr std::size_t kDefaultMaxConnections = 256;
inline constexpr std::size_t kMaxConnectionsLimit = 65536;
/// Open connections per client address: default and the most `--max-connections-per-address` accepts.
inline constexpr std::size_t kDefaultMaxConnectionsPerAddress = 32;

/// Where and how to serve.
struct ServerOptions {
  std::string host{
      kDefaultListenHost};  ///< address to bind (no brackets for IPv6); non-loopback requires `token`
  std::uint16_t port = kDefaultDaemonPort;  ///< TCP port; 0 = any free port (see Server::port())
  std::string token;          ///< bearer token every request but /healthz must send; empty = none
  std::string tls_cert_path;  ///< PEM certificate (chain); with tls_key_path: HTTPS, else HTTP
  std::string tls_key_path;   ///< PEM private key
  /// Concurrent /api/v1/stream clients (>= 1); 429 beyond.
  std::size_t max_stream_clients = kDefaultMaxStreamClients;
  /// Events queued per stream client (>= 1); oldest dropped beyond.
  std::size_t stream_queue_events = kDefaultStreamQueueEvents;
  /// Connections served at once (>= 1), streams included; a thread each.
  std::size_t max_connections = kDefaultMaxConnections;
  /// Open connections per client address (>= 1); 429 beyond.
  std::size_t max_connections_per_address = kDefaultMaxConnectionsPerAddress;
  std::chrono::milliseconds request_deadline{
      5'000};  ///< from connect to the request's last header, TLS included
  std::chrono::milliseconds keep_alive_interval{15'000};  ///< ": keep-alive" comment after this long idle
  ApiContext api;  ///< host name (empty = this machine's), version, source description, synthetic
  /// The fleet behind GET /api/v1/fleet and /api/v1/fleet/history (serve --prometheus); null = those
  /// paths answer 404.
  std::shared_ptr<fleet::FleetProvider> fleet;
  std::chrono::seconds fleet_refresh = kDefaultFleetRefresh;  ///< Prometheus asked at most this often (>= 0)
  /// No local source (serve --prometheus on a machine without a GPU): /readyz answers 200 once listening
  /// instead of waiting for a sample that never comes.
  bool fleet_only = false;
  /// The PM yield board behind GET /api/v1/profiling and POST /api/v1/profiling/pause and /resume (the
  /// runtime applies its decisions to the source); null = those paths answer 404.
  std::shared_ptr<core::PmYieldBoard> pm_yield;
  /// Now as Unix-epoch ns, for the pauses' times (since, until, expiry); empty = the system clock
  /// (std::chrono::system_clock). Tests give a fixed clock.
  std::function<std::int64_t()> realtime_ns;
};

/// A running server. Thread-safe: publish() from the engine thread, stop() from any thread.
class Server {
 public:
  /// Binds and starts serving on a thread of its own; returns once the server accepts connections. `state`
  /// must outlive the server. Errors: InvalidArgument "listening on HOST requires a bearer token"
  /// (non-loopback host, empty token) and "TLS needs both a certificate and a key"; the TLS files' errors,
  /// naming the file and the reason (NotFound: missing or unreadable; InvalidArgument: not PEM, key does not
  /// match the certificate; Unimplemented: encrypted key); Unavailable "cannot listen on HOST:PORT" (port
  /// taken, address not on this machine, no permission) or "the listener on HOST:PORT stopped at once".
  [[nodiscard]] static auto start(ServerOptions options, const core::LiveState& state)
      -> core::Result<std::unique_ptr<Server>>;
  ~Server();  ///< stop()s
  Server(const Server&) = delete;
  auto operator=(const Server&) -> Server& = delete;

  /// The bound TCP port (the chosen one when started with port 0).
  [[nodiscard]] auto port() const -> std::uint16_t;
  /// "http://HOST:PORT" or "https://HOST:PORT" (IPv6 hosts in brackets).
  [[nodiscard]] auto url() const -> std::string;
  /// Queues `sample` for every stream client (renders its JSON once; nothing when no client listens),
  /// preceded by the window of its device that adding it to the state completed, if any (event `window`: the
  /// state's window, with the bound class the core classified from its means). Never waits for a client; call
  /// after adding `sample` to the state, once per sample.
  void publish(const core::SolSample& sample);
  /// Ends the streams, stops accepting, cuts every open connection (whatever its client does: a request
  /// still arriving, an answer not read) and joins the server's threads; returns within about a second.
  /// Idempotent.
  void stop();
  /// The stream's counters (also exported on /metrics).
  [[nodiscard]] auto stream_stats() const -> StreamStats;

 private:
  struct Impl;  ///< defined in server.cpp
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// This machine's host name (gethostname); "localhost" when it has none. The default of ApiContext::hostname
/// (the `hostname` label) when the caller gives none (serve --hostname / SOLSCOPE_HOSTNAME).
[[nodiscard]] auto local_hostname() -> std::string;

}  // namespace solscope::server
