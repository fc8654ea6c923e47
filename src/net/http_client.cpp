#include "net/http_client.hpp"

#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace solscope::net {
namespace {

auto split_seconds(double seconds, time_t& sec, time_t& usec) -> void {
  const double clamped = std::clamp(seconds, 0.001, 10.0);
  sec = static_cast<time_t>(clamped);
  usec = static_cast<time_t>(std::lround((clamped - static_cast<double>(sec)) * 1e6));
}

class LoopbackHttpClient final : public HttpClient {
 public:
  explicit LoopbackHttpClient(HttpClientLimits limits) : limits_(limits) {}

  auto get(std::string_view host, std::uint16_t port, std::string_view path)
      -> core::Result<HttpResponse> override {
    const std::string url = "http://" + std::string(host) + ":" + std::to_string(port) + std::string(path);
    if (!is_loopback_host(host)) {
      return core::fail(core::ErrorCode::PermissionDenied,
                        "refused to contact " + url + ": not a loopback address",
                        "solscope only probes engines on this machine through 127.0.0.1 or ::1");
    }
    httplib::Client client(std::string(host), port);
    time_t sec = 0;
    time_t usec = 0;
    split_seconds(limits_.connect_timeout_s, sec, usec);
    client.set_connection_timeout(sec, usec);
    split_seconds(limits_.read_timeout_s, sec, usec);
    client.set_read_timeout(sec, usec);
    client.set_write_timeout(sec, usec);
    client.set_follow_location(false);
    client.set_keep_alive(false);
    std::string body;
    bool too_big = false;
    const httplib::Headers headers = {{"Accept-Encoding", "identity"}};
    auto result = client.Get(std::string(path), headers, [&](const char* data, std::size_t length) {
      if (body.size() + length > limits_.max_body_bytes) {
        too_big = true;
        return false;
      }
      body.append(data, length);
      return true;
    });
    if (too_big) {
      return core::fail(core::ErrorCode::ResourceExhausted,
                        url + " answered more than " + std::to_string(limits_.max_body_bytes) + " bytes");
    }
    if (!result) {
      return core::fail(core::ErrorCode::Unavailable,
                        "no answer from " + url + ": " + httplib::to_string(result.error()));
    }
    return HttpResponse{result->status, std::move(body)};
  }

 private:
  HttpClientLimits limits_;
};

}  // namespace

auto make_loopback_http_client(HttpClientLimits limits) -> std::unique_ptr<HttpClient> {
  return std::make_unique<LoopbackHttpClient>(limits);
}

}  // namespace solscope::net
