// The JSON API of `solscope serve` (docs/http-api.md "Endpoints"): bodies of /api/v1/devices and
// /api/v1/samples, and the parsing of their queries. Pure functions of a core::LiveState; no HTTP here.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/live_state.hpp"
#include "core/result.hpp"

namespace solscope::server {

/// What the daemon says about itself in /api/v1/devices.
struct ApiContext {
  std::string hostname;            ///< this node's name (the `hostname` label of /metrics too)
  std::string version;             ///< solscope's version, e.g. "0.1.0"
  std::string source_description;  ///< "NVIDIA GPUs" or "replay of FILE (SYNTHETIC ...)"
  bool synthetic = false;          ///< the figures come from a synthetic trace, not a GPU
  bool fleet = false;              ///< /api/v1/fleet answers (serve --prometheus); set by Server::start
};

/// The body of GET /api/v1/devices: host, version, source, synthetic, fleet, window_ns, newest_ns and per
/// device wire::device_state_to_json() plus `latest_window` (the newest window's wire::window_to_json(), or
/// null) and `iteration` (wire::iteration_to_json), then `workloads`: the node's per-workload roll-up
/// (core::workload_rollup, wire::workload_rollup_to_json), each entry with `steps`: its ranks compared
/// (core::job_steps, wire::job_steps_to_json) when it holds several GPUs, else null.
[[nodiscard]] auto devices_json(const core::LiveState& state, const ApiContext& context) -> std::string;

/// The parameters of one request's query, each key once, percent-decoded ('+' is a space).
using QueryParams = std::map<std::string, std::string, std::less<>>;

/// Parses a query string (the text after '?', without it), for every endpoint, before any route reads it
/// (routes.cpp's pre-routing step answers 400 with the error). The rule: parameters are separated by '&'
/// (empty parts are skipped); each is exactly one KEY=VALUE with a non-empty key and one '=' (a value holding
/// '=' is percent-encoded, %3D); ';' is no separator; '%' is followed by two hex digits; a key appears once.
/// Errors: InvalidArgument (HTTP 400) "query part 'device=0;since=1' is not one KEY=VALUE ...", "query
/// parameter device is given 2 times", "query part '...' holds a bad percent escape".
[[nodiscard]] auto parse_query(std::string_view query) -> core::Result<QueryParams>;

/// The `device` query parameter of `endpoint` (e.g. "/api/v1/stream", named in the hint): a GPU index that
/// `state` has. Errors: InvalidArgument (HTTP 400) "query parameter device must be a GPU index" when absent
/// or not decimal digits within 32 bits; NotFound (HTTP 404) "no GPU N here".
[[nodiscard]] auto parse_device_param(const std::optional<std::string>& text, const core::LiveState& state,
                                      std::string_view endpoint) -> core::Result<std::uint32_t>;

/// The raw query parameters of /api/v1/samples (nullopt = absent).
struct SamplesParams {
  std::optional<std::string> device;
  std::optional<std::string> since;
  std::optional<std::string> window;
};

/// A validated /api/v1/samples query.
struct SamplesQuery {
  std::uint32_t device = 0;
  std::int64_t since_ns = 0;   ///< windows ending after this Unix time (ns) are returned
  std::int64_t window_ns = 0;  ///< merged window length, a whole multiple of the state's window
};

/// Longest window /api/v1/samples merges to: 1 h (docs/http-api.md).
inline constexpr std::int64_t kMaxSamplesWindowNs = 3'600'000'000'000;
/// Default `since`: 5 minutes before the newest sample.
inline constexpr std::int64_t kDefaultSinceNs = 300'000'000'000;

/// Validates a query against `state` (docs/http-api.md "/api/v1/samples"). Errors: InvalidArgument (HTTP 400)
/// for a missing or non-numeric device, a since that is neither a Unix time in ns nor a negative duration,
/// or a window that is not a whole multiple of the state's window between it and 1 h; NotFound (HTTP 404)
/// for a device the state does not have.
[[nodiscard]] auto parse_samples_query(const SamplesParams& params, const core::LiveState& state)
    -> core::Result<SamplesQuery>;

/// Most windows in one /api/v1/samples answer; the rest follow with `since=<next_since_ns>`
/// (docs/http-api.md). 1,000 x about 1.3 KB of JSON: an answer stays near 1.3 MB whatever `since` asks for.
inline constexpr std::size_t kMaxSamplesPerAnswer = 1000;

/// The body of GET /api/v1/samples: {"device": N, "window_ns": W, "samples": [wire::window_to_json(), oldest
/// first], "next_since_ns": T or null}. At most `max_samples` windows (>= 1); when more remain,
/// next_since_ns is the end of the last one sent (ask again with since=T), else null. The open (incomplete)
/// window comes last of all, so that a chart reaches the newest sample. Rendered window by window: no JSON
/// tree of the whole answer.
[[nodiscard]] auto samples_json(const core::LiveState& state, const SamplesQuery& query,
                                std::size_t max_samples = kMaxSamplesPerAnswer) -> std::string;

/// The `data:` line of a `sample` stream event: one SolSample as compact JSON (wire::sol_sample_to_json),
/// with the uuid when `device` knows it (may be nullptr).
[[nodiscard]] auto sample_event_json(const core::SolSample& sample, const core::DeviceInfo* device)
    -> std::string;

/// The `data:` line of a `window` stream event: one closed window (core::LiveState's, with the bound class
/// the core classified from its means) as compact JSON (wire::window_to_json), the shape of /api/v1/samples'
/// windows, with the uuid when `device` knows it (may be nullptr).
[[nodiscard]] auto window_event_json(const core::SolSample& window, const core::DeviceInfo* device)
    -> std::string;

}  // namespace solscope::server
