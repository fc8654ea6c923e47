#include "net/http_client.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "net/detail/guarded_request.hpp"

namespace solscope::net {
namespace {

/// `seconds` within [lo, hi] (a NaN reads as hi).
auto clamp_s(double seconds, double lo, double hi) -> double {
  return std::isnan(seconds) ? hi : std::clamp(seconds, lo, hi);
}

class LoopbackHttpClient final : public HttpClient {
 public:
  explicit LoopbackHttpClient(HttpClientLimits limits)
      : bounds_{.connect_timeout_s = clamp_s(limits.connect_timeout_s, 0.001, 10.0),
                .read_timeout_s = clamp_s(limits.read_timeout_s, 0.001, 10.0),
                .total_timeout_s = clamp_s(limits.total_timeout_s, 0.001, 60.0),
                .max_body_bytes = limits.max_body_bytes,
                .stop = limits.stop} {}

  auto get(std::string_view host, std::uint16_t port, std::string_view path)
      -> core::Result<HttpResponse> override {
    if (!is_loopback_host(host)) {
      return core::fail(core::ErrorCode::PermissionDenied,
                        "refused to contact http://" + std::string(host) + ":" + std::to_string(port) +
                            std::string(path) + ": not a loopback address",
                        "solscope only probes engines on this machine through 127.0.0.1 or ::1");
    }
    // A new connection per request: engines come and go between probes.
    auto client = detail::make_guarded_client(false, std::string(host), port, bounds_, false);
    return client->send("GET", std::string(path), {}, {});
  }

 private:
  detail::RequestBounds bounds_;
};

}  // namespace

auto make_loopback_http_client(HttpClientLimits limits) -> std::unique_ptr<HttpClient> {
  return std::make_unique<LoopbackHttpClient>(limits);
}

}  // namespace solscope::net
