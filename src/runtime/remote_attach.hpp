// The seam where the terminal view attaches to a running `solscope serve` instead of sampling itself (one
// profiler per GPU: a daemon holding the counters keeps them). server::RemoteFeed does the work.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "core/live_state.hpp"
#include "core/result.hpp"

namespace solscope::app {

/// A live attachment to a daemon: keeps a LiveState up to date (on its own thread) until destroyed.
class RemoteAttachment {
 public:
  virtual ~RemoteAttachment() = default;
  /// For the view's header, e.g. "solscope serve on 127.0.0.1:9741: NVIDIA GPUs".
  [[nodiscard]] virtual auto description() const -> std::string = 0;
  /// "" while attached, else why the feed stopped and when it retries (e.g. "lost connection to
  /// 127.0.0.1:9741 (Connection); retrying in 2 s"); polled once per frame.
  [[nodiscard]] virtual auto status() const -> std::string = 0;
};

/// Attaches to the daemon at `host_port` ("HOST:PORT", "[IPV6]:PORT", "http://..." or "https://..." for TLS)
/// and feeds `state` (set_devices, history, add, set_processes, set_workload_note, set_lost) until the
/// attachment is destroyed; reconnects by itself. The bearer token is read from the file named by
/// $SOLSCOPE_TOKEN_FILE (as `serve --token-file`), the CA of a TLS daemon from $SOLSCOPE_TLS_CA (PEM;
/// default: the system's CAs). `stop` is not watched: destroying the attachment stops it. Errors:
/// InvalidArgument (not HOST:PORT, unreadable token file), Unavailable "nothing answers at ADDRESS",
/// PermissionDenied (token refused), DataLoss (not solscope's API).
[[nodiscard]] auto connect_remote(const std::string& host_port, core::LiveState& state,
                                  const std::atomic<bool>& stop)
    -> core::Result<std::unique_ptr<RemoteAttachment>>;

/// "127.0.0.1:9741" when a local solscope daemon answers GET /healthz there within 200 ms
/// (server::local_daemon_running), else "".
[[nodiscard]] auto find_local_daemon() -> std::string;

}  // namespace solscope::app
