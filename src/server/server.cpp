#include "server/server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>

#include "core/guarded_run.hpp"
#include "net/loopback.hpp"
#include "server/detail/connection_pool.hpp"
#include "server/detail/connection_registry.hpp"
#include "server/detail/guarded_server.hpp"
#include "server/detail/routes.hpp"
#include "server/detail/tls_files.hpp"

namespace solscope::server {

/// Longest wait for a client to take any byte of an answer: bounds what a client that stops reading holds.
constexpr std::chrono::milliseconds kWriteTimeout{5'000};

struct Server::Impl {
  Impl(ServerOptions o, const core::LiveState& s)
      : options(std::move(o)),
        state(s),
        hub(options.max_stream_clients, options.stream_queue_events),
        registry(options.max_connections_per_address),
        routes{.state = state,
               .hub = hub,
               .options = options,
               .metrics = {.hostname = options.api.hostname, .version = options.api.version}} {
    if (options.fleet) {
      fleet = std::make_unique<FleetCache>(options.fleet, options.fleet_refresh);
      routes.fleet = fleet.get();
    }
  }
  Impl(const Impl&) = delete;
  auto operator=(const Impl&) -> Impl& = delete;
  ~Impl() { shut_down(); }

  /// The stream event of `sample` (a SolSample, or a closed window for kWindowEvent), with its device's uuid.
  /// The device list is copied from the state only when a sample names a device not seen yet (one copy per
  /// device, not per sample).
  auto event(const core::SolSample& sample, std::string_view type) -> std::shared_ptr<const StreamEvent> {
    const std::scoped_lock lock(devices_mutex);
    auto it = devices.find(sample.device_index);
    if (it == devices.end()) {
      devices.clear();
      for (const auto& d : state.devices()) devices.emplace(d.info.index, d.info);
      it = devices.find(sample.device_index);
    }
    const core::DeviceInfo* info = it == devices.end() ? nullptr : &it->second;
    return std::make_shared<const StreamEvent>(StreamEvent{.device = sample.device_index,
                                                           .data = type == StreamEvent::kWindowEvent
                                                                       ? window_event_json(sample, info)
                                                                       : sample_event_json(sample, info),
                                                           .type = type});
  }

  /// The window of `device` that completed since the previous call (the state's newest complete window when
  /// it is one not returned before), or nullopt. Called after each sample is added, whether or not a client
  /// listens, so it sees every window once. Windows completed before the first call for a device (a state
  /// filled before the server started) are history (/api/v1/samples), not returned.
  auto newly_closed_window(std::uint32_t device) -> std::optional<core::SolSample> {
    const std::scoped_lock lock(devices_mutex);
    const auto [seen, first] = windows_seen.try_emplace(device, 0);
    auto closed = state.newest_closed_window(device, seen->second);
    if (!closed) return std::nullopt;
    seen->second = closed->number;
    if (first) return std::nullopt;
    return closed->window;
  }

  /// Ends the streams, cuts every connection, closes the listener and joins its thread. Idempotent.
  void shut_down() {
    const std::scoped_lock lock(stop_mutex);
    if (stopped) return;
    stopped = true;
    hub.close();
    registry.shut_down_all();
    if (http) http->stop();
    if (thread.joinable()) thread.join();
  }

  ServerOptions options;
  const core::LiveState& state;
  StreamHub hub;
  detail::ConnectionRegistry registry;
  std::unique_ptr<FleetCache> fleet;  ///< with options.fleet
  detail::RouteContext routes;
  std::unique_ptr<httplib::Server> http;
  int port = 0;
  std::thread thread;
  std::mutex stop_mutex;
  bool stopped = false;
  std::mutex devices_mutex;
  std::map<std::uint32_t, core::DeviceInfo> devices;    ///< uuid lookups for stream events
  std::map<std::uint32_t, std::uint64_t> windows_seen;  ///< per device: ClosedWindow::number last published
};

namespace {

auto make_http(const ServerOptions& o, detail::ConnectionRegistry& registry)
    -> core::Result<std::unique_ptr<httplib::Server>> {
  if (o.tls_cert_path.empty() != o.tls_key_path.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "TLS needs both a certificate and a key",
                      "give --tls-cert CERT.pem and --tls-key KEY.pem together");
  }
  const detail::ConnectionLimits limits{.request_deadline = o.request_deadline,
                                        .write_timeout = kWriteTimeout};
  if (o.tls_cert_path.empty()) {
    return std::make_unique<detail::GuardedServer<httplib::Server>>(registry, limits);
  }
  core::Result<void> loaded = core::ok();
  const std::function<bool(SSL_CTX&)> setup = [&](SSL_CTX& ctx) {
    loaded = detail::load_tls_files(ctx, o.tls_cert_path, o.tls_key_path);
    return loaded.has_value();
  };
  auto https = std::make_unique<detail::GuardedServer<httplib::SSLServer>>(registry, limits, setup);
  if (!loaded) return core::propagate(std::move(loaded));
  if (!https->is_valid()) {
    return core::fail(core::ErrorCode::Internal, "cannot make a TLS context", "OpenSSL failed to start");
  }
  return std::unique_ptr<httplib::Server>(std::move(https));
}

/// Reports once whether the listener started: true when it runs, false when it ended first.
class StartSignal {
 public:
  void set(bool running) {
    if (!done_.exchange(true)) promise_.set_value(running);
  }
  [[nodiscard]] auto wait() -> bool { return promise_.get_future().get(); }

 private:
  std::atomic<bool> done_{false};
  std::promise<bool> promise_;
};

void configure(httplib::Server& http, const ServerOptions& o, const std::shared_ptr<StartSignal>& started) {
  const std::size_t threads = std::max<std::size_t>(o.max_connections, 1);
  // cpp-httplib makes the task queue once it runs (is_running() is true from then on): the start signal.
  http.new_task_queue = [threads, started] {
    started->set(true);
    return new detail::ConnectionPool(threads);
  };
  // No read/write timeouts or keep-alive settings: detail::GuardedServer serves each connection itself
  // (non-blocking, one request, its own deadlines), so cpp-httplib's would not apply.
  // Bodies: only the write endpoints take one (pre_route refuses a body anywhere else, and a write's body
  // over the cap, before it is read); this is cpp-httplib's own bound behind that check.
  http.set_payload_max_length(detail::kMaxWriteBodyBytes);
}

/// SO_REUSEADDR only: cpp-httplib's default also sets SO_REUSEPORT, which would let a second daemon bind the
/// same port and share its connections instead of failing. Remembers the listening socket in `fd`.
void set_socket_options(httplib::Server& http, const std::shared_ptr<std::atomic<int>>& fd) {
  http.set_socket_options([fd](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    fd->store(sock);
  });
}

}  // namespace

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  stop();
}

auto Server::start(ServerOptions options, const core::LiveState& state)
    -> core::Result<std::unique_ptr<Server>> {
  if (!net::is_loopback_host(options.host, net::LoopbackForm::Listen) && options.token.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "listening on " + options.host + " requires a bearer token",
                      "give --token-file FILE (one line, at least 16 characters), or listen on 127.0.0.1");
  }
  if (options.api.hostname.empty()) options.api.hostname = local_hostname();
  if (options.api.version.empty()) options.api.version = SOLSCOPE_VERSION;
  if (!options.realtime_ns) {
    options.realtime_ns = [] {
      return static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count());
    };
  }
  options.api.fleet = options.fleet != nullptr;
  auto impl = std::make_unique<Impl>(std::move(options), state);
  auto http = make_http(impl->options, impl->registry);
  if (!http) return core::propagate(std::move(http));
  impl->http = std::move(*http);
  auto started = std::make_shared<StartSignal>();
  configure(*impl->http, impl->options, started);
  auto listen_fd = std::make_shared<std::atomic<int>>(-1);
  set_socket_options(*impl->http, listen_fd);
  detail::install_routes(*impl->http, impl->routes);
  const ServerOptions& o = impl->options;
  impl->port = o.port == 0 ? impl->http->bind_to_any_port(o.host)
                           : (impl->http->bind_to_port(o.host, o.port) ? o.port : -1);
  const std::string where = o.host + ":" + std::to_string(o.port);
  if (impl->port <= 0) {
    return core::fail(core::ErrorCode::Unavailable, "cannot listen on " + where,
                      "another process may hold the port, or the address is not on this machine: choose "
                      "another with --listen");
  }
  // cpp-httplib listens with a backlog of 5: a burst of clients (a dashboard reload on many screens, a scrape
  // storm) would wait for SYN retransmits of 1, 3, 7 s. listen() again on the bound socket raises it.
  if (const int fd = listen_fd->load(); fd >= 0) ::listen(fd, SOMAXCONN);
  httplib::Server* raw = impl->http.get();
  impl->thread = std::thread([raw, started] {
    (void)core::guarded_run("the HTTP server", [raw] { raw->listen_after_bind(); });
    started->set(false);
  });
  // Returns once the listener runs (stop() is a no-op on a server not yet listening), or fails when it ended
  // before running.
  if (!started->wait()) {
    return core::fail(core::ErrorCode::Unavailable, "the listener on " + where + " stopped at once",
                      "see the system log; try another --listen address");
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

auto Server::port() const -> std::uint16_t {
  return static_cast<std::uint16_t>(impl_->port);
}

auto Server::url() const -> std::string {
  const std::string& host = impl_->options.host;
  const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  const char* scheme = impl_->options.tls_cert_path.empty() ? "http://" : "https://";
  return scheme + shown + ":" + std::to_string(impl_->port);
}

void Server::publish(const core::SolSample& sample) {
  const auto window = impl_->newly_closed_window(sample.device_index);
  if (!impl_->hub.has_clients()) return;
  if (window) impl_->hub.publish(impl_->event(*window, StreamEvent::kWindowEvent));
  impl_->hub.publish(impl_->event(sample, StreamEvent::kSampleEvent));
}

void Server::stop() {
  impl_->shut_down();
}

auto Server::stream_stats() const -> StreamStats {
  return impl_->hub.stats();
}

auto local_hostname() -> std::string {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace solscope::server
