#include "cli/serve/serve_command.hpp"

#include <charconv>
#include <chrono>
#include <memory>
#include <thread>

#include <CLI/CLI.hpp>

#include "attainable/attainable_wiring.hpp"
#include "cli/config/bind.hpp"
#include "core/guarded_run.hpp"
#include "core/pm_yield.hpp"
#include "net/loopback.hpp"
#include "net/token_file.hpp"
#include "runtime/engine_loop.hpp"
#include "runtime/environment.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/live_feed.hpp"
#include "runtime/live_sampling.hpp"
#include "runtime/messages.hpp"
#include "runtime/pm_yield_driver.hpp"
#include "runtime/signals.hpp"
#include "runtime/source_factory.hpp"
#include "server/server.hpp"
#include "sources/replay/trace_replay_source.hpp"

namespace solscope::app {
namespace {

/// How often the daemon checks for a stop signal and the engine's end.
constexpr std::chrono::milliseconds kTick{100};

auto usage_error(const std::string& what, const std::string& hint) -> Failure {
  return Failure{core::Error{core::ErrorCode::InvalidArgument, what, hint}, kExitUsage};
}

/// The server's options from the command line (token read, TLS pair checked).
auto server_options_from(const ServeArgs& args) -> Outcome<server::ServerOptions> {
  auto listen = parse_listen_address(args.listen);
  if (!listen) return core::fail(Failure{listen.error(), kExitUsage});
  server::ServerOptions o;
  o.host = listen->host;
  o.port = listen->port;
  if (!args.token_file.empty()) {
    auto token = net::read_token_file(args.token_file);
    if (!token) return core::fail(Failure{token.error(), kExitUsage});
    o.token = std::move(*token);
  } else if (!net::is_loopback_host(o.host, net::LoopbackForm::Listen)) {
    return core::fail(usage_error("--listen " + args.listen +
                                      " is not a loopback address and no "
                                      "--token-file was given",
                                  "give --token-file FILE (a bearer token of 16+ characters), or listen "
                                  "on 127.0.0.1"));
  }
  if (args.tls_cert.empty() != args.tls_key.empty()) {
    return core::fail(usage_error("--tls-cert and --tls-key go together", "give both PEM files, or neither"));
  }
  o.tls_cert_path = args.tls_cert;
  o.tls_key_path = args.tls_key;
  o.api.hostname = args.hostname;
  o.max_stream_clients = args.max_clients;
  o.stream_queue_events = args.client_queue;
  o.max_connections = args.max_connections;
  o.max_connections_per_address = args.max_connections_per_address;
  return o;
}

/// Serves until a signal, reporting the engine's end once (and what a replay read) and each fault a guarded
/// thread caught (the process refresh, the HTTP server; core::thread_faults) as it happens. Returns the exit
/// code.
auto serve_until_stopped(const BackgroundEngine& engine, const OpenedSource& opened, bool& read_reported,
                         std::ostream& err) -> int {
  const auto& stop = install_stop_signals();
  bool reported_end = false;
  std::size_t faults_seen = 0;
  while (!stop.load()) {
    std::this_thread::sleep_for(kTick);
    for (const auto& fault : core::thread_faults().since(faults_seen)) print_warning(err, fault);
    if (!engine.done() || reported_end) continue;
    reported_end = true;
    const auto result = engine.result();
    if (result && !*result) {
      print_error(err, result->error());
      return kExitFailure;
    }
    read_reported = true;
    if (report_replay_end(opened, err) != kExitOk) return kExitBadTrace;  // nothing could be read
    if (!stop.load()) print_note(err, "the replay ended: serving its last figures until stopped");
  }
  return kExitOk;
}

}  // namespace

auto parse_listen_address(const std::string& text) -> core::Result<ListenAddress> {
  ListenAddress a;
  std::string port_text;
  if (text.starts_with("[")) {
    const auto close = text.find(']');
    if (close == std::string::npos) {
      return core::fail(core::ErrorCode::InvalidArgument, "--listen " + text + " has no closing ]",
                        "write IPv6 addresses as [::1]:" + std::to_string(server::kDefaultDaemonPort));
    }
    a.host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':')
        return core::fail(core::ErrorCode::InvalidArgument, "--listen " + text + " is not [ADDRESS]:PORT");
      port_text = text.substr(close + 2);
    }
  } else if (const auto colon = text.rfind(':'); colon != std::string::npos && text.find(':') == colon) {
    a.host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  } else {
    a.host = text;
  }
  if (a.host.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "--listen " + text + " names no address",
                      "e.g. --listen 127.0.0.1:" + std::to_string(server::kDefaultDaemonPort) +
                          " or --listen 0.0.0.0:" + std::to_string(server::kDefaultDaemonPort));
  }
  if (!port_text.empty() || text.ends_with(":")) {
    unsigned port = 0;
    const auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (port_text.empty() || ec != std::errc() || ptr != port_text.data() + port_text.size() ||
        port > 65535) {
      return core::fail(core::ErrorCode::InvalidArgument, "--listen " + text + " has no valid port",
                        "the port is 0-65535 (0 = any free port)");
    }
    a.port = static_cast<std::uint16_t>(port);
  }
  return a;
}

void add_serve_options(CLI::App& serve, ServeArgs& args) {
  using config::Scope;
  config::add_option(serve, Scope::Serve, "--listen", args.listen);
  config::add_option(serve, Scope::Serve, "--token-file", args.token_file);
  config::add_option(serve, Scope::Serve, "--tls-cert", args.tls_cert);
  config::add_option(serve, Scope::Serve, "--tls-key", args.tls_key);
  config::add_option(serve, Scope::Serve, "--hostname", args.hostname);
  config::add_option(serve, Scope::Serve, "--max-clients", args.max_clients);
  config::add_option(serve, Scope::Serve, "--client-queue", args.client_queue);
  config::add_option(serve, Scope::Serve, "--max-connections", args.max_connections);
  config::add_option(serve, Scope::Serve, "--max-connections-per-address", args.max_connections_per_address);
  config::add_option(serve, Scope::Serve, "--speed", args.replay_speed);
  config::add_option(serve, Scope::Serve, "--loop", args.loop);
  config::add_option(serve, Scope::Serve, "--prometheus", args.prometheus.url);
  config::add_option(serve, Scope::Serve, "--selector", args.prometheus.selector);
  config::add_option(serve, Scope::Serve, "--since", args.prometheus.since_ns);
  config::add_option(serve, Scope::Serve, "--prometheus-token-file", args.prometheus.token_file);
  config::add_option(serve, Scope::Serve, "--prometheus-ca", args.prometheus.ca_file);
}

auto run_serve(const CommonOptions& common, const WorkloadOptions& workloads, const ServeArgs& args,
               std::ostream& /*out*/, std::ostream& err) -> int {
  auto config = source_config_from(common);
  auto options = server_options_from(args);
  auto plan = plan_attainable(common, workloads);
  for (const core::Error* e : {config ? nullptr : &config.error(), options ? nullptr : &options.error().error,
                               plan ? nullptr : &plan.error()}) {
    if (e == nullptr) continue;
    print_error(err, *e);
    return kExitUsage;
  }
  if (!args.prometheus.url.empty()) {
    auto fleet = open_prometheus_fleet(args.prometheus);
    if (!fleet) {
      print_error(err, fleet.error().error);
      return fleet.error().exit_code;
    }
    options->fleet = std::move(*fleet);
  }
  auto opened = open_sampling_source(common, *config, args.replay_speed, args.loop);
  if (!opened && options->fleet && common.replay.empty() && common.dcgm_exporter.empty()) {
    // No local GPU to sample (no driver, no device, counters held): the fleet view is what this daemon is
    // for.
    print_note(err, "no local GPU is sampled (" + opened.error().error.message + "): fleet view only");
    return serve_fleet_only(std::move(*options), err);
  }
  if (!opened) {
    print_error(err, opened.error().error);
    return opened.error().exit_code;
  }
  const auto attainable = attainable_for(std::move(*plan), *opened);
  // The PM yield's board: the profiler watch and the engine read it; the HTTP API's pause and resume write
  // it.
  PmYieldSetup pm_yield = pm_yield_setup(common.pm_policy, opened->live);
  options->api.source_description = opened->description;
  options->api.synthetic = opened->synthetic;
  // The board behind /api/v1/profiling (`solscope profile pause|resume|status`): the runtime's for a live
  // source; for a replay one of the API's own (a pause is kept and shown; there are no counters to give
  // back).
  options->pm_yield =
      pm_yield.board ? pm_yield.board : std::make_shared<core::PmYieldBoard>(common.pm_policy);
  core::LiveState state;
  auto server = server::Server::start(std::move(*options), state);
  if (!server) {
    print_error(err, server.error());
    opened->source->stop();
    // The command line was checked above (server_options_from): what fails here (a port, a TLS file) is a
    // run-time failure.
    return kExitFailure;
  }
  print_note(err, "serving " + opened->description);
  if (opened->replay_report && opened->replay_report->problem) {
    print_warning(err, opened->replay_report->problem->describe());  // what the open found damaged
  }
  print_note(err, "listening on " + (*server)->url());
  err.flush();
  server::Server& http = **server;
  LiveSamplingOptions sampling{
      // A replay at --speed 0 is paced by its sinks (nothing dropped), as in `replay` and `record`.
      .engine = {.poll_interval_ns = poll_interval_for(config->interval_ns), .pace = opened->paced},
      .annotate = attainable ? attainable->annotator() : std::function<void(core::RawSample&)>{},
      .publish = [&http](const core::SolSample& s) { http.publish(s); },
      .notes = {},
      .pm_yield = std::move(pm_yield),
      .refresh = config::workload_refresh_options(workloads, config::process_environment())};
  if (attainable) {
    sampling.notes = [a = attainable.get()](std::uint32_t device) { return a->description_of(device); };
    attainable->start();
  }
  int code = kExitOk;
  bool read_reported = false;  // a replay's account is told at its end, or at shutdown
  {
    LiveSampling live(*opened->source, state, install_stop_signals(), std::move(sampling));
    code = serve_until_stopped(live.engine(), *opened, read_reported, err);
    live.stop();
    err << live.engine().warnings();  // a lost GPU, a view that fell behind
  }
  http.stop();
  opened->source->stop();
  if (attainable) attainable->stop();
  if (!read_reported) (void)report_replay_end(*opened, err);
  return code;
}

}  // namespace solscope::app
