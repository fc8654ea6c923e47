// The client side of `solscope serve`: keeps a core::LiveState up to date from a daemon's HTTP API, so that
// the terminal view can show a node whose GPU counters a daemon already holds (`solscope --connect
// HOST:PORT`).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "core/live_state.hpp"
#include "core/result.hpp"
#include "server/server.hpp"

namespace solscope::server {

/// Where the daemon is and how to talk to it.
struct RemoteOptions {
  /// "HOST:PORT", "[IPV6]:PORT", or with a scheme: "http://HOST:PORT", "https://HOST:PORT" (TLS).
  std::string address;
  std::string token;         ///< bearer token; empty = none
  std::string ca_cert_path;  ///< TLS: PEM of the CA that signed the daemon's certificate; empty = system CAs
  std::chrono::milliseconds connect_timeout{2'000};
  /// Longer than the stream's 15 s keep-alive, so that a silent but live daemon is not taken for lost.
  std::chrono::milliseconds read_timeout{20'000};
  std::chrono::milliseconds backoff_min{500};  ///< first wait before reconnecting; doubles up to backoff_max
  std::chrono::milliseconds backoff_max{8'000};
  std::int64_t backfill_ns = 900'000'000'000;        ///< history fetched on connect: 15 min of 1 s windows
  std::chrono::milliseconds devices_refresh{5'000};  ///< how often processes and notes are re-read
};

/// A running attachment. Fills `state` on a thread of its own: the device list (LiveState::set_devices), the
/// history (/api/v1/samples), then every streamed sample (LiveState::add); re-reads processes, workload
/// notes, lost flags and the daemon's training-iteration estimates (LiveState::set_iteration: the view shows
/// the daemon's, made from every sample, not one of its own back-filled windows) every devices_refresh;
/// reconnects with exponential backoff when the daemon goes away.
class RemoteFeed {
 public:
  /// Reads the device list once (so that a wrong address or token fails here), back-fills, then starts the
  /// thread. `state` must outlive the feed. Errors: InvalidArgument for an address that is not HOST:PORT
  /// or that net::parse_url refuses (user info "user:password@" included, never echoed);
  /// Unavailable "nothing answers at ADDRESS" (refused, timed out, TLS failure); PermissionDenied "ADDRESS
  /// refused the token" (401/403); DataLoss "ADDRESS answered what is not solscope's API" (bad JSON).
  [[nodiscard]] static auto connect(RemoteOptions options, core::LiveState& state)
      -> core::Result<std::unique_ptr<RemoteFeed>>;
  ~RemoteFeed();  ///< stop()s
  RemoteFeed(const RemoteFeed&) = delete;
  auto operator=(const RemoteFeed&) -> RemoteFeed& = delete;

  /// Ends the stream and joins the thread (within a poll interval). Idempotent.
  void stop();
  /// "" while following the stream; otherwise why not, e.g. "lost connection to 10.0.0.5:9741 (connection
  /// refused); retrying in 4 s". Thread-safe.
  [[nodiscard]] auto status() const -> std::string;
  /// "solscope serve on ADDRESS: SOURCE" (the daemon's source description).
  [[nodiscard]] auto description() const -> std::string;
  /// Samples received from the stream since connect().
  [[nodiscard]] auto samples_received() const -> std::uint64_t;

 private:
  struct Impl;  ///< defined in remote_feed.cpp
  explicit RemoteFeed(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// True when something answers GET http://127.0.0.1:PORT/healthz with 200 within `timeout` (connect plus
/// answer): a local daemon holds the GPU counters.
[[nodiscard]] auto local_daemon_running(std::uint16_t port = kDefaultDaemonPort,
                                        std::chrono::milliseconds timeout = std::chrono::milliseconds(200))
    -> bool;

}  // namespace solscope::server
