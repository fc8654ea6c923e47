#include "cli/serve/serve_fleet.hpp"

#include <chrono>
#include <thread>

#include "core/duration.hpp"
#include "core/guarded_run.hpp"
#include "fleet/prometheus_fleet.hpp"
#include "net/token_file.hpp"
#include "runtime/messages.hpp"
#include "runtime/signals.hpp"

namespace solscope::app {
namespace {

/// How often the fleet-only daemon checks for a stop signal.
constexpr std::chrono::milliseconds kTick{100};

auto usage(core::Error error) -> Failure {
  return Failure{std::move(error), kExitUsage};
}

}  // namespace

auto open_prometheus_fleet(const PrometheusArgs& args) -> Outcome<std::shared_ptr<fleet::FleetProvider>> {
  net::RemoteEndpoint endpoint;
  endpoint.url = args.url;
  endpoint.ca_cert_path = args.ca_file;
  endpoint.stop = {&stop_flag()};  // a stop signal cancels a query in flight, so the server's threads end
  if (!args.token_file.empty()) {
    auto token = net::read_token_file(args.token_file);
    if (!token) return core::fail(usage(token.error()));
    endpoint.token = std::move(*token);
  }
  fleet::FleetQuery query;
  query.selector = args.selector;
  query.window_ns = args.since_ns;
  auto provider = fleet::make_prometheus_fleet(endpoint, std::move(query));
  if (!provider) return core::fail(usage(provider.error()));
  return std::shared_ptr<fleet::FleetProvider>(std::move(*provider));
}

auto serve_fleet_only(server::ServerOptions options, std::ostream& err) -> int {
  const std::string fleet = options.fleet->describe();
  options.api.source_description = "no local GPU; fleet view of " + fleet;
  options.fleet_only = true;  // /readyz: ready once listening
  core::LiveState state;      // stays empty: /api/v1/devices lists no GPU
  auto server = server::Server::start(std::move(options), state);
  if (!server) {
    print_error(err, server.error());
    return kExitFailure;
  }
  print_note(err, "serving the fleet view of " + fleet + " at " + (*server)->url() + "/fleet.html");
  print_note(err, "listening on " + (*server)->url());
  err.flush();
  const auto& stop = install_stop_signals();
  std::size_t faults_seen = 0;
  while (!stop.load()) {
    std::this_thread::sleep_for(kTick);
    for (const auto& fault : core::thread_faults().since(faults_seen)) print_warning(err, fault);
  }
  (*server)->stop();
  return kExitOk;
}

}  // namespace solscope::app
