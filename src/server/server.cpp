#include "server/server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <map>
#include <mutex>
#include <thread>

#include "server/auth.hpp"
#include "server/detail/routes.hpp"

namespace solscope::server {

/// Seconds a request may take to arrive or to be written (cpp-httplib's read/write timeouts): bounds what a
/// slow or stalled client holds.
constexpr time_t kIoTimeoutS = 5;
/// One request per connection: cpp-httplib holds a worker thread for as long as a connection stays open, so
/// an idle keep-alive connection (or a refused stream client) would block a worker for the whole keep-alive
/// time. Scrapes come every 15 s or so, far apart for keep-alive to matter. A new connection may wait this
/// long before sending its request.
constexpr std::size_t kKeepAliveMaxRequests = 1;
constexpr time_t kKeepAliveTimeoutS = 2;

struct Server::Impl {
  Impl(ServerOptions o, const core::LiveState& s)
      : options(std::move(o)),
        state(s),
        hub(options.max_stream_clients, options.stream_queue_events),
        routes{.state = state,
               .hub = hub,
               .options = options,
               .metrics = {.hostname = options.api.hostname, .version = options.api.version}} {}

  /// The stream event's JSON of `sample`, with its device's uuid. The device list is copied from the state
  /// only when a sample names a device not seen yet (one copy per device, not per sample).
  auto event_json(const core::SolSample& sample) -> std::string {
    const std::scoped_lock lock(devices_mutex);
    auto it = devices.find(sample.device_index);
    if (it == devices.end()) {
      devices.clear();
      for (const auto& d : state.devices()) devices.emplace(d.info.index, d.info);
      it = devices.find(sample.device_index);
    }
    return sample_event_json(sample, it == devices.end() ? nullptr : &it->second);
  }

  ServerOptions options;
  const core::LiveState& state;
  StreamHub hub;
  detail::RouteContext routes;
  std::unique_ptr<httplib::Server> http;
  int port = 0;
  std::thread thread;
  std::mutex stop_mutex;
  bool stopped = false;
  std::mutex devices_mutex;
  std::map<std::uint32_t, core::DeviceInfo> devices;  ///< uuid lookups for stream events
};

namespace {

auto make_http(const ServerOptions& o) -> core::Result<std::unique_ptr<httplib::Server>> {
  if (o.tls_cert_path.empty() != o.tls_key_path.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "TLS needs both a certificate and a key",
                      "give --tls-cert CERT.pem and --tls-key KEY.pem together");
  }
  if (o.tls_cert_path.empty()) return std::make_unique<httplib::Server>();
  auto https = std::make_unique<httplib::SSLServer>(o.tls_cert_path.c_str(), o.tls_key_path.c_str());
  if (!https->is_valid()) {
    return core::fail(core::ErrorCode::NotFound,
                      "cannot load the TLS certificate " + o.tls_cert_path + " or key " + o.tls_key_path,
                      "both must be readable PEM files, the key matching the certificate");
  }
  return std::unique_ptr<httplib::Server>(std::move(https));
}

void configure(httplib::Server& http, const ServerOptions& o) {
  const std::size_t threads =
      std::max<std::size_t>(o.max_stream_clients, 1) + std::max<std::size_t>(o.request_workers, 1);
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_read_timeout(kIoTimeoutS);
  http.set_write_timeout(kIoTimeoutS);
  http.set_keep_alive_max_count(kKeepAliveMaxRequests);
  http.set_keep_alive_timeout(kKeepAliveTimeoutS);
  http.set_payload_max_length(0);
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
  if (!is_loopback_host(options.host) && options.token.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "listening on " + options.host + " requires a bearer token",
                      "give --token-file FILE (one line, at least 16 characters), or listen on 127.0.0.1");
  }
  if (options.api.hostname.empty()) options.api.hostname = local_hostname();
  if (options.api.version.empty()) options.api.version = SOLSCOPE_VERSION;
  auto http = make_http(options);
  if (!http) return tl::unexpected(std::move(http.error()));
  auto impl = std::make_unique<Impl>(std::move(options), state);
  impl->http = std::move(*http);
  configure(*impl->http, impl->options);
  auto listen_fd = std::make_shared<std::atomic<int>>(-1);
  set_socket_options(*impl->http, listen_fd);
  detail::install_routes(*impl->http, impl->routes);
  const ServerOptions& o = impl->options;
  impl->port = o.port == 0 ? impl->http->bind_to_any_port(o.host)
                           : (impl->http->bind_to_port(o.host, o.port) ? o.port : -1);
  if (impl->port <= 0) {
    return core::fail(core::ErrorCode::Unavailable,
                      "cannot listen on " + o.host + ":" + std::to_string(o.port),
                      "another process may hold the port, or the address is not on this machine: choose "
                      "another with --listen");
  }
  // cpp-httplib listens with a backlog of 5: a burst of clients (a dashboard reload on many screens, a scrape
  // storm) would wait for SYN retransmits of 1, 3, 7 s. listen() again on the bound socket raises it.
  if (const int fd = listen_fd->load(); fd >= 0) ::listen(fd, SOMAXCONN);
  httplib::Server* raw = impl->http.get();
  impl->thread = std::thread([raw] { raw->listen_after_bind(); });
  // stop() is a no-op on a server not yet listening: wait until it is, so that a stop right after start
  // works.
  for (int i = 0; i < 400 && !raw->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
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
  if (!impl_->hub.has_clients()) return;
  impl_->hub.publish(std::make_shared<const StreamEvent>(
      StreamEvent{.device = sample.device_index, .data = impl_->event_json(sample)}));
}

void Server::stop() {
  const std::scoped_lock lock(impl_->stop_mutex);
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->hub.close();
  impl_->http->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
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
