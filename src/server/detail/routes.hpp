// The HTTP routes of the server, on a cpp-httplib server (private to src/server).
#pragma once

#include <httplib.h>

#include <cstddef>

#include "core/live_state.hpp"
#include "server/detail/body_encoding.hpp"
#include "server/detail/event_stream.hpp"
#include "server/detail/fleet_api.hpp"
#include "server/detail/metrics.hpp"
#include "server/server.hpp"

namespace solscope::server::detail {

/// Largest request body the server reads (4 KiB), on the write endpoints only (a pause is under 200 bytes);
/// any other request with a body is refused before it is read.
inline constexpr std::size_t kMaxWriteBodyBytes = 4096;

/// What the routes read. Every member must outlive the httplib::Server they are installed on.
struct RouteContext {
  const core::LiveState& state;
  StreamHub& hub;
  const ServerOptions& options;
  MetricsContext metrics;
  FleetCache* fleet = nullptr;  ///< the fleet endpoints' cache; null = no fleet (404)
  /// How answers are compressed (encode_body; tests put a stand-in here). /api/v1/samples calls it inside
  /// its limit of answers at once.
  BodyEncoder encode = encode_body;
};

/// Installs the pre-routing checks (method, body, query, token, and the writes' own: docs/http-api.md
/// "Security"), the error bodies and every endpoint. The
/// server must be a GuardedServer (its request setup hides Accept-Encoding from cpp-httplib, which would
/// otherwise compress the answers a second time).
void install_routes(httplib::Server& http, const RouteContext& context);

}  // namespace solscope::server::detail
