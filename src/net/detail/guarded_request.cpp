#include "net/detail/guarded_request.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "net/detail/watched_stream.hpp"

namespace solscope::net::detail {
namespace {

using core::ErrorCode;

auto seconds_of(RequestWatch::Clock::duration d) -> double {
  return std::chrono::duration<double>(d).count();
}

auto after(double seconds) -> RequestWatch::Clock::duration {
  return std::chrono::duration_cast<RequestWatch::Clock::duration>(std::chrono::duration<double>(seconds));
}

/// cpp-httplib's client `Base` (ClientImpl or SSLClient) with its connect and its stream replaced by the
/// watched ones.
template <class Base>
class WatchedImpl final : public Base {
 public:
  WatchedImpl(const std::string& host, int port, RequestWatch& watch) : Base(host, port), watch_(watch) {}

 private:
  using Socket = httplib::ClientImpl::Socket;

  auto create_and_connect_socket(Socket& socket, httplib::Error& error) -> bool override {
    const int fd = connect_guarded(this->host_, this->port_, watch_);
    if (fd < 0) {
      error = watch_.verdict() == Cut::Stopped ? httplib::Error::Canceled : httplib::Error::Connection;
      return false;
    }
    socket.sock = fd;
    watch_.active();  // the idle timer starts at the connection
    return true;
  }

  auto process_socket(const Socket& socket, std::function<bool(httplib::Stream&)> callback) -> bool override {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    WatchedStream stream(socket.sock, socket.ssl, watch_);
#else
    WatchedStream stream(socket.sock, nullptr, watch_);
#endif
    return callback(stream);
  }

  RequestWatch& watch_;
};

class Client final : public GuardedClient {
 public:
  Client(bool tls, const std::string& host, int port, const RequestBounds& bounds, bool keep_alive)
      : watch_(bounds),
        origin_(fmt::format("{}://{}:{}", tls ? "https" : "http",
                            host.find(':') == std::string::npos ? host : "[" + host + "]", port)) {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    if (tls) {
      impl_ = std::make_unique<WatchedImpl<httplib::SSLClient>>(host, port, watch_);
    } else {
      impl_ = std::make_unique<WatchedImpl<httplib::ClientImpl>>(host, port, watch_);
    }
#else
    (void)tls;
    impl_ = std::make_unique<WatchedImpl<httplib::ClientImpl>>(host, port, watch_);
#endif
    // The TLS handshake is cpp-httplib's, bounded by its connect timeout; reads and writes are the stream's.
    const double connect_s = bounds.connect_timeout_s;
    const auto sec = static_cast<time_t>(connect_s);
    impl_->set_connection_timeout(
        sec, static_cast<time_t>(std::lround((connect_s - static_cast<double>(sec)) * 1e6)));
    impl_->set_follow_location(false);
    impl_->set_keep_alive(keep_alive);
  }

  auto send(const std::string& method, const std::string& path, const std::string& body,
            const std::string& content_type) -> core::Result<HttpResponse> override {
    watch_.begin();
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.headers = {{"Accept-Encoding", "identity"}};
    if (method != "GET") {
      req.body = body;
      req.headers.emplace("Content-Type", content_type);
    }
    std::string answer;
    const std::size_t cap = watch_.bounds().max_body_bytes;
    req.response_handler = [this](const httplib::Response&) {
      watch_.head_complete();
      return true;
    };
    req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
      if (answer.size() + n > cap) {
        watch_.cut(Cut::BodyBytes);
        return false;
      }
      answer.append(data, n);
      return true;
    };
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    if (!impl_->send(req, res, error)) {
      return core::fail(request_error(watch_, origin_ + path, httplib::to_string(error)));
    }
    return HttpResponse{res.status, std::move(answer)};
  }

  void set_bearer_token(const std::string& token) override {
    impl_->set_bearer_token_auth(token);
  }

  void set_tls(const std::string& ca_cert_path, bool verify) override {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    if (!ca_cert_path.empty()) impl_->set_ca_cert_path(ca_cert_path);
    impl_->enable_server_certificate_verification(verify);
#else
    (void)ca_cert_path;
    (void)verify;
#endif
  }

 private:
  RequestWatch watch_;
  std::string origin_;  ///< "http://host:port", for messages
  std::unique_ptr<httplib::ClientImpl> impl_;
};

}  // namespace

void RequestWatch::begin() {
  const auto now = Clock::now();
  deadline_ = now + after(bounds_.total_timeout_s);
  last_active_ = now;
  head_bytes_ = 0;
  head_lines_ = 0;
  head_done_ = false;
  cut_ = Cut::None;
  connect_error_.clear();
}

auto RequestWatch::running() -> bool {
  if (cut_ != Cut::None) return false;
  if (bounds_.stop.raised()) {
    cut_ = Cut::Stopped;
  } else if (Clock::now() >= deadline_) {
    cut_ = Cut::Deadline;
  }
  return cut_ == Cut::None;
}

auto RequestWatch::idle() -> bool {
  if (seconds_of(Clock::now() - last_active_) < bounds_.read_timeout_s) return false;
  cut_ = Cut::Idle;
  return true;
}

auto RequestWatch::count_head(const char* data, std::size_t n) -> bool {
  if (head_done_) return true;
  head_bytes_ += n;
  head_lines_ += static_cast<std::size_t>(std::count(data, data + n, '\n'));
  // The blank line that ends the head is not a line of it.
  if (head_lines_ > bounds_.max_head_lines + 1) {
    cut_ = Cut::HeadLines;
  } else if (head_bytes_ > bounds_.max_head_bytes) {
    cut_ = Cut::HeadBytes;
  }
  return cut_ == Cut::None;
}

auto RequestWatch::slice_s() const -> double {
  return std::min({kStopPollS, bounds_.read_timeout_s, bounds_.connect_timeout_s});
}

auto RequestWatch::left_s() const -> double {
  return std::max(0.0, seconds_of(deadline_ - Clock::now()));
}

auto request_error(const RequestWatch& watch, const std::string& url, const std::string& reason)
    -> core::Error {
  const RequestBounds& b = watch.bounds();
  switch (watch.verdict()) {
    case Cut::Stopped:
      return {
          ErrorCode::Aborted, fmt::format("the request to {} was cancelled: solscope is stopping", url), {}};
    case Cut::Deadline:
      return {ErrorCode::Unavailable,
              fmt::format("no complete answer from {} within {:g} s (the request's time limit)", url,
                          b.total_timeout_s),
              {}};
    case Cut::Idle:
      return {ErrorCode::Unavailable,
              fmt::format("no answer from {}: nothing came for {:g} s", url, b.read_timeout_s),
              {}};
    case Cut::HeadLines:
      return {ErrorCode::ResourceExhausted,
              fmt::format("{} answered more than {} header lines (the limit of a response head)", url,
                          b.max_head_lines),
              {}};
    case Cut::HeadBytes:
      return {ErrorCode::ResourceExhausted,
              fmt::format("{} answered a head of more than {} bytes (the limit of a response head)", url,
                          b.max_head_bytes),
              {}};
    case Cut::BodyBytes:
      return {
          ErrorCode::ResourceExhausted,
          fmt::format("{} answered more than {} bytes (the limit of a response body)", url, b.max_body_bytes),
          {}};
    case Cut::None:
      break;
  }
  const std::string& why = watch.connect_error().empty() ? reason : watch.connect_error();
  return {ErrorCode::Unavailable, fmt::format("no answer from {}: {}", url, why), {}};
}

auto make_guarded_client(bool tls, const std::string& host, int port, const RequestBounds& bounds,
                         bool keep_alive) -> std::unique_ptr<GuardedClient> {
  return std::make_unique<Client>(tls, host, port, bounds, keep_alive);
}

}  // namespace solscope::net::detail
