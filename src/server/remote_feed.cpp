#include "server/remote_feed.hpp"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/guarded_run.hpp"
#include "core/units.hpp"
#include "net/http_client.hpp"
#include "net/remote_http.hpp"
#include "server/detail/sse_parser.hpp"
#include "server/server.hpp"
#include "wire/device_json.hpp"
#include "wire/iteration_json.hpp"
#include "wire/json_fields.hpp"
#include "wire/sample_json.hpp"

namespace solscope::server {
namespace {

using Json = nlohmann::json;

auto seconds_of(std::chrono::milliseconds d) -> std::pair<time_t, time_t> {
  return {static_cast<time_t>(d.count() / 1000), static_cast<time_t>((d.count() % 1000) * 1000)};
}

/// "http://HOST:PORT" from an address with or without a scheme; empty when it is not HOST:PORT.
auto base_url_of(const std::string& address) -> std::string {
  std::string rest = address;
  std::string scheme = "http://";
  for (const char* s : {"http://", "https://"}) {
    if (rest.starts_with(s)) {
      scheme = s;
      rest = rest.substr(std::string_view(s).size());
    }
  }
  while (rest.ends_with("/")) rest.pop_back();
  const auto colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) return {};
  const std::string port = rest.substr(colon + 1);
  if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      port.size() > 5) {
    return {};
  }
  return scheme + rest;
}

/// The daemon's estimate of each device that sends one (a daemon older than the field sends none: the view
/// then estimates from the streamed samples itself).
using DaemonIterations = std::vector<std::pair<std::uint32_t, core::IterationEstimate>>;

auto daemon_iteration(const Json& device) -> std::optional<core::IterationEstimate> {
  const auto it = device.find("iteration");
  if (it == device.end() || !it->is_object()) return std::nullopt;
  return wire::iteration_from_json(*it);
}

}  // namespace

struct RemoteFeed::Impl {
  Impl(RemoteOptions o, core::LiveState& s, std::string url)
      : options(std::move(o)), state(s), base_url(std::move(url)) {}

  auto make_client(bool for_stream) const -> std::unique_ptr<httplib::Client> {
    auto client = std::make_unique<httplib::Client>(base_url);
    const auto [cs, cus] = seconds_of(options.connect_timeout);
    const auto [rs, rus] = seconds_of(options.read_timeout);
    client->set_connection_timeout(cs, cus);
    client->set_read_timeout(rs, rus);
    client->set_write_timeout(cs, cus);
    client->set_keep_alive(!for_stream);
    if (!options.token.empty()) client->set_bearer_token_auth(options.token);
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    if (!options.ca_cert_path.empty()) client->set_ca_cert_path(options.ca_cert_path.c_str());
#endif
    return client;
  }

  /// The client of the one-shot requests (devices, back-fill): net's, with its bounds (a total deadline, head
  /// and body caps) and this feed's stop flag. The stream itself is cpp-httplib's (endless by design; stop()
  /// ends it).
  auto make_fetcher() const -> core::Result<std::unique_ptr<net::RemoteHttp>> {
    const double read_s = std::chrono::duration<double>(options.read_timeout).count();
    return net::make_remote_http(net::RemoteEndpoint{
        .url = base_url,
        .token = options.token,
        .ca_cert_path = options.ca_cert_path,
        .connect_timeout_s = std::chrono::duration<double>(options.connect_timeout).count(),
        .read_timeout_s = read_s,
        .total_timeout_s = std::max(read_s, net::RemoteEndpoint{}.total_timeout_s),
        .stop = {&stop}});
  }

  auto fetch_json(net::RemoteHttp& client, const std::string& path) const -> core::Result<Json> {
    auto res = client.get(path);
    if (!res) {
      if (res.error().code != core::ErrorCode::Unavailable) return core::propagate(std::move(res));
      return core::fail(core::ErrorCode::Unavailable,
                        "nothing answers at " + options.address + " (" + res.error().message + ")",
                        "check that `solscope serve` runs there and the address and port are right");
    }
    if (res->status == 401 || res->status == 403) {
      return core::fail(core::ErrorCode::PermissionDenied, options.address + " refused the token",
                        "give the daemon's bearer token (SOLSCOPE_TOKEN_FILE)");
    }
    if (res->status != 200) {
      return core::fail(core::ErrorCode::Unavailable,
                        options.address + " answered HTTP " + std::to_string(res->status) + " to " + path);
    }
    Json json = Json::parse(res->body, nullptr, false);
    if (json.is_discarded()) {
      return core::fail(core::ErrorCode::DataLoss, options.address + " answered what is not solscope's API",
                        "check the port: it should be a `solscope serve`");
    }
    return json;
  }

  auto load_devices(net::RemoteHttp& client, bool first) -> core::Result<void>;
  auto backfill(net::RemoteHttp& client) -> core::Result<void>;
  void on_sample(const Json& json);
  auto follow() -> std::string;
  void run();
  void set_status(std::string text) {
    const std::scoped_lock lock(mutex);
    status = std::move(text);
  }
  auto wait(std::chrono::milliseconds d) -> bool {
    std::unique_lock lock(mutex);
    return !wake.wait_for(lock, d, [this] { return stop.load(); });
  }

  RemoteOptions options;
  core::LiveState& state;
  std::string base_url;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> samples{0};
  mutable std::mutex mutex;  ///< status, source, streaming
  std::condition_variable wake;
  std::string status;
  std::string source;
  httplib::Client* streaming = nullptr;
  std::map<std::uint32_t, std::int64_t> last_end_ns;  ///< per device: newest sample end added (feed thread)
  std::vector<std::string> uuids;                     ///< device list identity, to keep history on reconnect
  std::chrono::steady_clock::time_point last_devices = std::chrono::steady_clock::now();
  core::ThreadFault fault;  ///< what stopped the feed thread, if an exception did
  std::thread thread;
};

auto RemoteFeed::Impl::load_devices(net::RemoteHttp& client, bool first) -> core::Result<void> {
  auto json = fetch_json(client, "/api/v1/devices");
  if (!json) return core::propagate(std::move(json));
  const auto list = json->find("devices");
  if (!json->is_object() || list == json->end() || !list->is_array()) {
    return core::fail(core::ErrorCode::DataLoss, options.address + " answered what is not solscope's API");
  }
  std::vector<core::DeviceState> devices;
  std::vector<std::string> ids;
  DaemonIterations iterations;
  for (const Json& d : *list) {
    auto device = wire::device_state_from_json(d);
    if (!device) return core::propagate(std::move(device));
    ids.push_back(device->info.uuid + "#" + std::to_string(device->info.index));
    if (auto estimate = daemon_iteration(d))
      iterations.emplace_back(device->info.index, std::move(*estimate));
    devices.push_back(std::move(*device));
  }
  {
    const std::scoped_lock lock(mutex);
    source = wire::string_field(*json, "source");
  }
  last_devices = std::chrono::steady_clock::now();
  if (first || ids != uuids) {
    uuids = std::move(ids);
    last_end_ns.clear();
    state.set_devices(std::move(devices));
  } else {
    for (auto& d : devices) {
      state.set_processes(d.info.index, std::move(d.processes));
      state.set_workloads(d.info.index, std::move(d.workloads));
      state.set_workload_note(d.info.index, std::move(d.workload_note));
      state.set_lost(d.info.index, d.lost);
    }
  }
  for (const auto& [index, estimate] : iterations) state.set_iteration(index, estimate);
  return core::ok();
}

/// Most /api/v1/samples pages one back-fill of a device follows.
constexpr int kMaxBackfillPages = 64;

auto RemoteFeed::Impl::backfill(net::RemoteHttp& client) -> core::Result<void> {
  for (const auto& d : state.devices()) {
    const std::uint32_t index = d.info.index;
    const auto known = last_end_ns.find(index);
    std::string since = known != last_end_ns.end()
                            ? std::to_string(known->second)
                            : "-" + std::to_string(options.backfill_ns / core::kNsPerS) + "s";
    // An answer holds at most kMaxSamplesPerAnswer windows; next_since_ns continues it (bounded: a daemon
    // keeps 1 h of history).
    for (int page = 0; page < kMaxBackfillPages && !since.empty(); ++page) {
      auto json = fetch_json(client, "/api/v1/samples?device=" + std::to_string(index) + "&since=" + since);
      if (!json) return core::propagate(std::move(json));
      since.clear();
      if (!json->is_object()) break;
      const auto list = json->find("samples");
      if (list == json->end() || !list->is_array()) break;
      for (const Json& s : *list) on_sample(s);
      const auto next = json->find("next_since_ns");
      if (next != json->end() && next->is_number_integer()) since = std::to_string(next->get<std::int64_t>());
    }
  }
  return core::ok();
}

void RemoteFeed::Impl::on_sample(const Json& json) {
  auto sample = wire::sample_from_json(json);
  if (!sample) return;
  // Skip what the back-fill already covered (and anything out of order).
  std::int64_t& last = last_end_ns[sample->device_index];
  if (sample->t_end_ns <= last || sample->t_start_ns < last) return;
  last = sample->t_end_ns;
  state.add(*sample);
}

auto RemoteFeed::Impl::follow() -> std::string {
  auto client = make_client(true);
  {
    const std::scoped_lock lock(mutex);
    if (stop) return {};
    streaming = client.get();
  }
  SseParser parser;
  int http_status = 0;
  const auto refresh = make_fetcher();
  const auto res = client->Get(
      "/api/v1/stream", httplib::Headers{{"Accept", "text/event-stream"}},
      [&http_status](const httplib::Response& r) {
        http_status = r.status;
        return r.status == 200;
      },
      [&](const char* data, std::size_t size) {
        if (stop) return false;
        set_status({});
        parser.feed(std::string_view(data, size), [this](const SseEvent& e) {
          if (e.type != "sample") return;
          Json json = Json::parse(e.data, nullptr, false);
          if (json.is_discarded()) return;
          on_sample(json);
          samples.fetch_add(1, std::memory_order_relaxed);
        });
        if (std::chrono::steady_clock::now() - last_devices >= options.devices_refresh) {
          if (refresh) (void)load_devices(**refresh, false);  // a failed refresh keeps the previous facts
        }
        return true;
      });
  {
    const std::scoped_lock lock(mutex);
    streaming = nullptr;
  }
  if (http_status != 0 && http_status != 200)
    return "the daemon answered HTTP " + std::to_string(http_status);
  if (!res) return httplib::to_string(res.error());
  return "the daemon ended the stream";
}

void RemoteFeed::Impl::run() {
  auto backoff = options.backoff_min;
  while (!stop) {
    const std::string why = follow();
    if (stop) break;
    const auto secs = std::max<std::int64_t>(1, (backoff.count() + 999) / 1000);
    set_status("lost connection to " + options.address + " (" + why + "); retrying in " +
               std::to_string(secs) + " s");
    if (!wait(backoff)) break;
    backoff = std::min(backoff * 2, options.backoff_max);
    auto client = make_fetcher();
    auto reloaded = client ? load_devices(**client, false) : core::Result<void>(core::fail(client.error()));
    if (reloaded) reloaded = backfill(**client);
    if (!reloaded) {
      set_status("lost connection to " + options.address + " (" + reloaded.error().message + ")");
      continue;
    }
    backoff = options.backoff_min;
  }
}

RemoteFeed::RemoteFeed(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RemoteFeed::~RemoteFeed() {
  stop();
}

auto RemoteFeed::connect(RemoteOptions options, core::LiveState& state)
    -> core::Result<std::unique_ptr<RemoteFeed>> {
  // The one URL parser first: it refuses user info ("user:password@") without echoing it.
  if (auto parsed = net::parse_url(options.address); !parsed) return core::propagate(std::move(parsed));
  std::string url = base_url_of(options.address);
  if (url.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "--connect " + options.address + " is not HOST:PORT",
                      "e.g. --connect 127.0.0.1:" + std::to_string(kDefaultDaemonPort) +
                          " or --connect https://node-17:" + std::to_string(kDefaultDaemonPort));
  }
  auto impl = std::make_unique<Impl>(std::move(options), state, std::move(url));
  auto client = impl->make_fetcher();
  if (!client) return core::propagate(std::move(client));
  auto loaded = impl->load_devices(**client, true);
  if (loaded) loaded = impl->backfill(**client);
  if (!loaded) return core::propagate(std::move(loaded));
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] {
    if (!core::guarded_run(
            "the feed from the daemon", [raw] { raw->run(); }, &raw->fault))
      raw->set_status(raw->fault.text());
  });
  return std::unique_ptr<RemoteFeed>(new RemoteFeed(std::move(impl)));
}

void RemoteFeed::stop() {
  {
    const std::scoped_lock lock(impl_->mutex);
    impl_->stop = true;
    if (impl_->streaming != nullptr) impl_->streaming->stop();
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
}

auto RemoteFeed::status() const -> std::string {
  const std::scoped_lock lock(impl_->mutex);
  return impl_->status;
}

auto RemoteFeed::description() const -> std::string {
  const std::scoped_lock lock(impl_->mutex);
  return "solscope serve on " + impl_->options.address + (impl_->source.empty() ? "" : ": " + impl_->source);
}

auto RemoteFeed::samples_received() const -> std::uint64_t {
  return impl_->samples.load(std::memory_order_relaxed);
}

auto local_daemon_running(std::uint16_t port, std::chrono::milliseconds timeout) -> bool {
  const double s = std::chrono::duration<double>(timeout).count();
  const auto client =
      net::make_loopback_http_client({.connect_timeout_s = s, .read_timeout_s = s, .total_timeout_s = s});
  const auto res = client->get("127.0.0.1", port, "/healthz");
  return res && res->status == 200;
}

}  // namespace solscope::server
