#include "server/detail/api.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/duration.hpp"
#include "core/job_steps.hpp"
#include "core/workload_rollup.hpp"
#include "wire/device_json.hpp"
#include "wire/iteration_json.hpp"
#include "wire/json_text.hpp"
#include "wire/sample_json.hpp"
#include "wire/workload_json.hpp"

namespace solscope::server {
namespace {

using Json = nlohmann::ordered_json;

auto parse_digits(std::string_view text) -> std::optional<std::int64_t> {
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || text.front() == '-' || text.front() == '+') {
    return std::nullopt;
  }
  return value;
}

auto hex_digit(char c) -> int {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// application/x-www-form-urlencoded decoding: %XX and '+' for a space; nullopt for a bad escape.
auto percent_decode(std::string_view text) -> std::optional<std::string> {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] != '%') {
      out += text[i];
    } else {
      if (i + 2 >= text.size()) return std::nullopt;
      const int high = hex_digit(text[i + 1]);
      const int low = hex_digit(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out += static_cast<char>(high * 16 + low);
      i += 2;
    }
  }
  return out;
}

auto bad_query_part(std::string_view part, std::string_view why) -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument,
                    "query part '" + std::string(part) + "' " + std::string(why),
                    "separate parameters with '&' and give each once as KEY=VALUE, e.g. "
                    "/api/v1/samples?device=0&since=-5m");
}

}  // namespace

auto parse_query(std::string_view query) -> core::Result<QueryParams> {
  QueryParams params;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    const auto eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0 || part.find('=', eq + 1) != std::string_view::npos ||
        part.find(';') != std::string_view::npos) {
      return bad_query_part(part, "is not one KEY=VALUE (';' separates nothing; a '=' in a value is %3D)");
    }
    auto key = percent_decode(part.substr(0, eq));
    auto value = percent_decode(part.substr(eq + 1));
    if (!key || !value)
      return bad_query_part(part, "holds a bad percent escape (% is followed by 2 hex digits)");
    if (params.contains(*key)) {
      return core::fail(core::ErrorCode::InvalidArgument,
                        "query parameter " + *key + " is given more than once", "give each parameter once");
    }
    params.emplace(std::move(*key), std::move(*value));
  }
  return params;
}

auto parse_device_param(const std::optional<std::string>& text, const core::LiveState& state,
                        std::string_view endpoint) -> core::Result<std::uint32_t> {
  const auto device = text ? parse_digits(*text) : std::nullopt;
  if (!device || *device > std::numeric_limits<std::uint32_t>::max()) {
    return core::fail(core::ErrorCode::InvalidArgument, "query parameter device must be a GPU index",
                      "e.g. " + std::string(endpoint) + "?device=0");
  }
  const auto index = static_cast<std::uint32_t>(*device);
  if (!state.snapshot(index)) {
    return core::fail(core::ErrorCode::NotFound, "no GPU " + std::to_string(index) + " here",
                      "GET /api/v1/devices lists the GPUs");
  }
  return index;
}

auto parse_samples_query(const SamplesParams& params, const core::LiveState& state)
    -> core::Result<SamplesQuery> {
  SamplesQuery q;
  auto device = parse_device_param(params.device, state, "/api/v1/samples");
  if (!device) return core::propagate(std::move(device));
  q.device = *device;
  const std::int64_t base_ns = state.options().window_ns;
  q.window_ns = base_ns;
  if (params.window) {
    const auto w = core::parse_duration_ns(*params.window);
    if (!w || *w < base_ns || *w > kMaxSamplesWindowNs || *w % base_ns != 0) {
      return core::fail(
          core::ErrorCode::InvalidArgument,
          "query parameter window=" + *params.window + " is not a whole number of seconds from 1s to 1h",
          "e.g. window=10s");
    }
    q.window_ns = *w;
  }
  const std::int64_t newest_ns = state.newest_ns();
  q.since_ns = newest_ns - kDefaultSinceNs;
  if (params.since) {
    const std::string& since = *params.since;
    if (since.starts_with("-")) {
      const auto ago = core::parse_duration_ns(std::string_view(since).substr(1));
      if (!ago) {
        return core::fail(core::ErrorCode::InvalidArgument,
                          "query parameter since=" + since + " is not a negative duration",
                          "e.g. since=-5m, or a Unix time in ns");
      }
      q.since_ns = newest_ns - *ago;
    } else if (const auto t = parse_digits(since)) {
      q.since_ns = *t;
    } else {
      return core::fail(
          core::ErrorCode::InvalidArgument,
          "query parameter since=" + since + " is neither a Unix time in ns nor a negative duration",
          "e.g. since=-5m");
    }
  }
  return q;
}

auto samples_json(const core::LiveState& state, const SamplesQuery& query, std::size_t max_samples)
    -> std::string {
  const auto snapshot = state.snapshot(query.device);
  const core::DeviceInfo* info = snapshot ? &snapshot->state.info : nullptr;
  const std::int64_t merge = query.window_ns / state.options().window_ns;
  const std::size_t cap = std::max<std::size_t>(max_samples, 1);
  // One more than the cap tells whether a continuation is needed; nothing beyond it is copied.
  std::vector<core::SolSample> windows = state.windows(query.device, query.since_ns, merge, true, cap + 1);
  const bool more = windows.size() > cap;
  if (more) windows.resize(cap);
  std::string out = "{\"device\":" + std::to_string(query.device) +
                    ",\"window_ns\":" + std::to_string(query.window_ns) + ",\"samples\":[";
  for (std::size_t i = 0; i < windows.size(); ++i) {
    if (i > 0) out += ',';
    out += wire::json_text(wire::window_to_json(windows[i], info));
  }
  out += "],\"next_since_ns\":";
  out += more ? std::to_string(windows.back().t_end_ns) : "null";
  out += '}';
  return out;
}

namespace {

/// The node's roll-up with each entry's `steps`: its ranks compared (core::job_steps) when it is a job, else
/// null.
auto rollup_json(std::span<const core::DeviceSnapshot> snapshots, std::span<const core::DeviceState> states)
    -> Json {
  const std::vector<core::WorkloadRollup> rollup = core::workload_rollup(states);
  Json out = wire::workload_rollup_to_json(rollup);
  for (std::size_t i = 0; i < rollup.size() && i < out.size(); ++i) {
    const auto job = core::job_steps(rollup[i], snapshots);
    out[i]["steps"] = job ? wire::job_steps_to_json(*job) : Json(nullptr);
  }
  return out;
}

}  // namespace

auto devices_json(const core::LiveState& state, const ApiContext& context) -> std::string {
  Json devices = Json::array();
  const std::vector<core::DeviceSnapshot> snapshots = state.snapshot();
  std::vector<core::DeviceState> states;
  for (const core::DeviceSnapshot& d : snapshots) {
    Json device = wire::device_state_to_json(d.state);
    device["latest_window"] =
        d.latest_window ? wire::window_to_json(*d.latest_window, &d.state.info) : Json(nullptr);
    device["iteration"] = wire::iteration_to_json(d.iteration);
    devices.push_back(std::move(device));
    states.push_back(d.state);
  }
  Json out = Json::object();
  out["host"] = context.hostname;
  out["version"] = context.version;
  out["source"] = context.source_description;
  out["synthetic"] = context.synthetic;
  out["fleet"] = context.fleet;
  out["window_ns"] = state.options().window_ns;
  out["newest_ns"] = state.newest_ns();
  out["devices"] = std::move(devices);
  out["workloads"] = rollup_json(snapshots, states);
  return wire::json_text(out);
}

auto sample_event_json(const core::SolSample& sample, const core::DeviceInfo* device) -> std::string {
  return wire::json_text(wire::sol_sample_to_json(sample, device));
}

auto window_event_json(const core::SolSample& window, const core::DeviceInfo* device) -> std::string {
  return wire::json_text(wire::window_to_json(window, device));
}

}  // namespace solscope::server
