#include "server/detail/routes.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <semaphore>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/auth.hpp"
#include "server/detail/api.hpp"
#include "server/detail/assets.hpp"
#include "server/detail/profiling_api.hpp"
#include "server/detail/write_guard.hpp"
#include "wire/json_text.hpp"

namespace solscope::server::detail {
namespace {

using httplib::Request;
using httplib::Response;
using Handled = httplib::Server::HandlerResponse;

constexpr const char* kJson = "application/json";
/// Retry-After of a 429 (seconds): about the time a dead stream client takes to be noticed (keep-alive
/// write).
constexpr const char* kRetryAfterS = "15";
/// How long a stream connection waits for events before checking the keep-alive and shutdown.
constexpr std::chrono::milliseconds kStreamPoll{250};
/// The dashboard may load only its own files (no CDN); uPlot sets inline styles.
constexpr const char* kDashboardCsp =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

void set_error(Response& res, int status, const std::string& message, const std::string& hint = {}) {
  res.status = status;
  nlohmann::json body{{"error", message}};
  if (!hint.empty()) body["hint"] = hint;
  res.set_content(wire::json_text(body) + "\n", kJson);
}

/// An API error as its HTTP answer: NotFound is 404, anything else 400.
void set_error(Response& res, const core::Error& error) {
  set_error(res, error.code == core::ErrorCode::NotFound ? 404 : 400, error.message, error.hint);
}

/// A JSON answer, compressed as the request accepts (ctx.encode, here on the handler's thread).
void set_json(const Request& req, Response& res, const RouteContext& ctx, std::string body) {
  res.set_header("Cache-Control", "no-store");
  set_encoded_body(res, ctx.encode(req, std::move(body)), kJson);
}

/// The query of `req`: the request target after its first '?' (cpp-httplib has cut a fragment off).
auto raw_query(const Request& req) -> std::string_view {
  const std::string_view target = req.target;
  const auto mark = target.find('?');
  return mark == std::string_view::npos ? std::string_view() : target.substr(mark + 1);
}

/// The query parameters of `req`, by the one rule of parse_query(). cpp-httplib's own req.params are never
/// read: they keep the last part of `k=v1=v2` and every value of a repeated key. pre_route() has answered 400
/// to a query that does not parse, so none reaches a route.
auto query_of(const Request& req) -> QueryParams {
  auto parsed = parse_query(raw_query(req));
  return parsed ? std::move(*parsed) : QueryParams{};
}

auto param(const QueryParams& query, std::string_view name) -> std::optional<std::string> {
  const auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  return it->second;
}

/// Method, body and token, before any route runs (docs/http-api.md "Security").
/// Paths that answer without a token: liveness and readiness (for probes that cannot send one) and the
/// dashboard's static page and assets, which hold no data (the page asks for the token and sends it on its
/// API calls; a browser cannot send a bearer token when it opens a page).
auto open_without_token(const std::string& path) -> bool {
  return path == "/healthz" || path == "/readyz" || path == "/" || path == "/index.html" ||
         path == "/fleet.html" || path.starts_with("/assets/");
}

void refuse(Response& res, const Refusal& refusal) {
  if (!refusal.allow.empty()) res.set_header("Allow", refusal.allow);
  set_error(res, refusal.status, refusal.error, refusal.hint);
}

auto pre_route(const Request& req, Response& res, const RouteContext& ctx) -> Handled {
  // The write endpoints take POST with a body (check_write, after the token); every other path is read-only.
  const bool write = is_write_path(req.path);
  if (!write && req.method != "GET" && req.method != "HEAD") {
    res.set_header("Allow", "GET, HEAD");
    set_error(
        res, 405, "method " + req.method + " is not allowed",
        "this path is read-only: use GET (the only writes are POST /api/v1/profiling/pause and /resume)");
    return Handled::Handled;
  }
  const bool has_body = req.has_header("Transfer-Encoding") ||
                        (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0");
  if (!write && has_body) {
    set_error(res, 413, "requests must not carry a body");
    return Handled::Handled;
  }
  // Every endpoint's query, whether it reads one or not: one rule, one 400.
  if (auto query = parse_query(raw_query(req)); !query) {
    set_error(res, query.error());
    return Handled::Handled;
  }
  if (open_without_token(req.path)) return Handled::Unhandled;
  switch (check_bearer(req.get_header_value("Authorization"), ctx.options.token)) {
    case AuthCheck::Ok:
      if (write) {
        const bool tls = !ctx.options.tls_cert_path.empty();
        if (auto refusal = check_write(req, ctx.options.token, tls, kMaxWriteBodyBytes)) {
          refuse(res, *refusal);
          return Handled::Handled;
        }
      }
      return Handled::Unhandled;
    case AuthCheck::Missing:
      res.set_header("WWW-Authenticate", "Bearer");
      set_error(res, 401, "this server requires a bearer token", "send Authorization: Bearer <token>");
      return Handled::Handled;
    case AuthCheck::Wrong:
      set_error(res, 403, "wrong bearer token");
      return Handled::Handled;
  }
  return Handled::Unhandled;
}

/// /api/v1/samples answers rendered and compressed at once: with kMaxSamplesPerAnswer, their memory stays
/// under about 4 x 6 MB (the windows copied from the state and their JSON) and their CPU under 4 cores
/// however many clients ask.
constexpr std::ptrdiff_t kMaxConcurrentSamplesAnswers = 4;
using SamplesGate = std::counting_semaphore<kMaxConcurrentSamplesAnswers>;
/// How long a samples request waits for its turn before a 503.
constexpr std::chrono::seconds kSamplesWait{20};

void get_samples(const Request& req, Response& res, const RouteContext& ctx, SamplesGate& gate) {
  const QueryParams query_params = query_of(req);
  const SamplesParams params{param(query_params, "device"), param(query_params, "since"),
                             param(query_params, "window")};
  auto query = parse_samples_query(params, ctx.state);
  if (!query) {
    set_error(res, query.error());
    return;
  }
  if (!gate.try_acquire_for(kSamplesWait)) {
    res.set_header("Retry-After", "1");
    set_error(res, 503, "too many /api/v1/samples requests at once", "retry in a second");
    return;
  }
  EncodedBody body;
  {
    // Gives the turn back however the rendering ends (an exception included). The compression is part of the
    // turn: it costs more CPU than the rendering.
    const std::unique_ptr<SamplesGate, void (*)(SamplesGate*)> turn(&gate,
                                                                    [](SamplesGate* g) { g->release(); });
    body = ctx.encode(req, samples_json(ctx.state, *query));
  }
  res.set_header("Cache-Control", "no-store");
  set_encoded_body(res, std::move(body), kJson);
}

void get_readyz(Response& res, const core::LiveState& state, bool fleet_only) {
  const auto devices = state.devices();
  if (fleet_only) {
    res.set_header("Cache-Control", "no-store");
    res.set_content("ready: fleet view only\n", "text/plain; charset=utf-8");
    return;
  }
  const bool all_lost =
      !devices.empty() && std::all_of(devices.begin(), devices.end(), [](const auto& d) { return d.lost; });
  res.set_header("Cache-Control", "no-store");
  if (state.newest_ns() == 0) {
    res.status = 503;
    res.set_content("not ready: no sample yet\n", "text/plain; charset=utf-8");
  } else if (all_lost) {
    res.status = 503;
    res.set_content("not ready: every GPU is lost\n", "text/plain; charset=utf-8");
  } else {
    res.set_content("ready\n", "text/plain; charset=utf-8");
  }
}

void get_asset(const Request& req, Response& res, const RouteContext& ctx) {
  const auto asset = find_asset(req.path);
  if (!asset) {
    set_error(res, 404, "no " + req.path + " here",
              req.path == "/" ? "this solscope was built without the web dashboard (web/src)" : "");
    return;
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_header("Content-Security-Policy", kDashboardCsp);
  res.set_header("X-Frame-Options", "DENY");
  set_encoded_body(res, ctx.encode(req, std::string(asset->bytes)), std::string(asset->content_type));
}

/// The fleet endpoints without a fleet: say how to get one.
void no_fleet(Response& res) {
  set_error(res, 404, "this daemon shows no fleet",
            "start it with `solscope serve --prometheus URL` to show the GPUs a Prometheus server holds");
}

void get_fleet(const Request& req, Response& res, const RouteContext& ctx) {
  if (ctx.fleet == nullptr) return no_fleet(res);
  auto json = ctx.fleet->snapshot_json();
  if (!json) {
    set_error(res, fleet_error_status(json.error()), json.error().message, json.error().hint);
    return;
  }
  set_json(req, res, ctx, **json);
}

void get_fleet_history(const Request& req, Response& res, const RouteContext& ctx) {
  if (ctx.fleet == nullptr) return no_fleet(res);
  const QueryParams query = query_of(req);
  const auto host = param(query, "host");
  const auto gpu = param(query, "gpu");
  if (!host || !gpu || host->empty() || gpu->empty()) {
    set_error(res, 400, "query parameters host and gpu are required",
              "e.g. /api/v1/fleet/history?host=node-1&gpu=0 (the host and gpu of a row of /api/v1/fleet)");
    return;
  }
  auto json = ctx.fleet->history_json(*host, *gpu);
  if (!json) {
    set_error(res, fleet_error_status(json.error()), json.error().message, json.error().hint);
    return;
  }
  set_json(req, res, ctx, std::move(*json));
}

/// The profiling endpoints without a PM yield board.
void no_board(Response& res) {
  set_error(res, 404, "this server offers no PM pause (/api/v1/profiling)",
            "a `solscope serve` that samples this node's GPUs (or a replay) offers it; a fleet-only one does "
            "not");
}

auto device_indices(const core::LiveState& state) -> std::vector<std::uint32_t> {
  std::vector<std::uint32_t> indices;
  for (const auto& d : state.devices()) indices.push_back(d.info.index);
  return indices;
}

void get_profiling(const Request& req, Response& res, const RouteContext& ctx) {
  if (!ctx.options.pm_yield) return no_board(res);
  set_json(
      req, res, ctx,
      profiling_status_json(*ctx.options.pm_yield, device_indices(ctx.state), ctx.options.realtime_ns()));
}

void post_pause(const Request& req, Response& res, const RouteContext& ctx) {
  if (!ctx.options.pm_yield) return no_board(res);
  const std::int64_t now_ns = ctx.options.realtime_ns();
  const auto devices = device_indices(ctx.state);
  auto pause = parse_pause_request(req.body, req.remote_addr, now_ns, devices);
  if (!pause) return set_error(res, pause.error());
  if (auto started = ctx.options.pm_yield->pause(std::move(*pause)); !started) {
    return set_error(res, started.error());
  }
  set_json(req, res, ctx, profiling_status_json(*ctx.options.pm_yield, devices, now_ns));
}

void post_resume(const Request& req, Response& res, const RouteContext& ctx) {
  if (!ctx.options.pm_yield) return no_board(res);
  if (auto read = parse_resume_request(req.body); !read) return set_error(res, read.error());
  const std::int64_t now_ns = ctx.options.realtime_ns();
  const bool resumed = ctx.options.pm_yield->resume(now_ns);
  set_json(req, res, ctx,
           profiling_status_json(*ctx.options.pm_yield, device_indices(ctx.state), now_ns, resumed));
}

/// One stream connection's state, owned by its content provider.
struct StreamConnection {
  std::shared_ptr<StreamClient> client;
  std::string hello;
  std::uint64_t next_id = 0;
  std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
};

auto write(httplib::DataSink& sink, const std::string& text) -> bool {
  return sink.write(text.data(), text.size());
}

/// Sends what is queued (or a keep-alive comment); false when the client is gone.
auto pump(StreamConnection& c, httplib::DataSink& sink, std::chrono::milliseconds keep_alive) -> bool {
  if (!c.hello.empty()) return write(sink, std::exchange(c.hello, std::string()));
  StreamBatch batch = c.client->take(kStreamPoll);
  if (batch.closed) {
    sink.done();
    return true;
  }
  std::string out;
  if (batch.dropped > 0) {
    out += "event: dropped\ndata: {\"dropped\":";
    out += std::to_string(batch.dropped);
    out += "}\n\n";
  }
  for (const auto& e : batch.events) {
    out += "id: ";
    out += std::to_string(++c.next_id);
    out += "\nevent: ";
    out += e->type;
    out += "\ndata: ";
    out += e->data;
    out += "\n\n";
  }
  const auto now = std::chrono::steady_clock::now();
  if (out.empty() && now - c.last_write >= keep_alive) out = ": keep-alive\n\n";
  if (out.empty()) return true;
  c.last_write = now;
  return write(sink, out);
}

void get_stream(const Request& req, Response& res, const RouteContext& ctx) {
  std::optional<std::uint32_t> device;
  if (const auto text = param(query_of(req), "device")) {
    const auto index = parse_device_param(text, ctx.state, "/api/v1/stream");
    if (!index) {
      set_error(res, index.error());
      return;
    }
    device = *index;
  }
  auto client = ctx.hub.connect(device);
  if (!client) {
    res.set_header("Retry-After", kRetryAfterS);
    set_error(res, 429, "too many stream clients", "retry later, or raise --max-clients");
    return;
  }
  nlohmann::json hello{{"window_ns", ctx.state.options().window_ns}, {"devices", nlohmann::json::array()}};
  for (const auto& d : ctx.state.devices()) {
    if (!device || d.info.index == *device) hello["devices"].push_back(d.info.index);
  }
  auto connection = std::make_shared<StreamConnection>();
  connection->client = std::move(client);
  connection->hello = "event: hello\ndata: " + wire::json_text(hello) + "\n\n";
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider(
      "text/event-stream",
      [connection, keep_alive = ctx.options.keep_alive_interval](
          std::size_t /*offset*/, httplib::DataSink& sink) { return pump(*connection, sink, keep_alive); },
      [connection](bool /*success*/) { connection->client.reset(); });
}

}  // namespace

void install_routes(httplib::Server& http, const RouteContext& context) {
  const RouteContext* ctx = &context;
  // Byte ranges are ignored (detail::drop_ranges): say so.
  http.set_default_headers(
      {{"X-Content-Type-Options", "nosniff"}, {"Referrer-Policy", "no-referrer"}, {"Accept-Ranges", "none"}});
  http.set_pre_routing_handler(
      [ctx](const Request& req, Response& res) { return pre_route(req, res, *ctx); });
  http.set_error_handler([](const Request& req, Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) {
      set_error(res, 404, "no " + req.path + " here", "see docs/http-api.md for the endpoints");
    } else {
      set_error(res, res.status, "bad request");
    }
  });
  http.Get("/metrics", [ctx](const Request& req, Response& res) {
    const StreamStats stream = ctx->hub.stats();
    res.set_header("Cache-Control", "no-store");
    set_encoded_body(res, ctx->encode(req, render_metrics(ctx->state, ctx->metrics, &stream)),
                     kMetricsContentType);
  });
  http.Get("/api/v1/devices", [ctx](const Request& req, Response& res) {
    set_json(req, res, *ctx, devices_json(ctx->state, ctx->options.api));
  });
  auto gate = std::make_shared<SamplesGate>(kMaxConcurrentSamplesAnswers);
  http.Get("/api/v1/samples",
           [ctx, gate](const Request& req, Response& res) { get_samples(req, res, *ctx, *gate); });
  http.Get("/api/v1/stream", [ctx](const Request& req, Response& res) { get_stream(req, res, *ctx); });
  http.Get("/api/v1/fleet", [ctx](const Request& req, Response& res) { get_fleet(req, res, *ctx); });
  http.Get("/api/v1/fleet/history",
           [ctx](const Request& req, Response& res) { get_fleet_history(req, res, *ctx); });
  http.Get("/api/v1/profiling", [ctx](const Request& req, Response& res) { get_profiling(req, res, *ctx); });
  http.Post("/api/v1/profiling/pause",
            [ctx](const Request& req, Response& res) { post_pause(req, res, *ctx); });
  http.Post("/api/v1/profiling/resume",
            [ctx](const Request& req, Response& res) { post_resume(req, res, *ctx); });
  http.Get("/healthz", [](const Request&, Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content("ok\n", "text/plain; charset=utf-8");
  });
  http.Get("/readyz",
           [ctx](const Request&, Response& res) { get_readyz(res, ctx->state, ctx->options.fleet_only); });
  for (const char* path : {"/", "/index.html", "/fleet.html", "/assets/.*"}) {
    http.Get(path, [ctx](const Request& req, Response& res) { get_asset(req, res, *ctx); });
  }
}

}  // namespace solscope::server::detail
