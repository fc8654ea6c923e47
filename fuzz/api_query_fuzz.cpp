// libFuzzer target: the query of the daemon's JSON API (server/detail/api.hpp), from the raw query string on.
//
// The input is the text after '?' of a request. parse_query() splits and decodes it as the server does
// (routes.cpp's pre-routing step refuses what it refuses; a parsed query is unambiguous: each key once, one
// value), then /api/v1/samples' and /api/v1/stream's parsers check it against a small live state of two GPUs;
// a query they accept is answered (samples_json), so that every accepted `since` and `window` also runs the
// window merge. Durations are parsed on their own too.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/duration.hpp"
#include "core/live_state.hpp"
#include "server/detail/api.hpp"

namespace {

using solscope::core::LiveState;

constexpr std::int64_t kStartNs = 1'767'225'600'000'000'000;  // 2026-01-01T00:00:00Z
constexpr std::int64_t kSampleNs = 100'000'000;

/// Two GPUs (0 and 3) with 30 s of 100 ms samples each.
auto make_state() -> const LiveState& {
  static LiveState state;
  static const bool filled = [] {
    for (std::int64_t n = 0; n < 300; ++n) {
      for (const std::uint32_t device : {0U, 3U}) {
        solscope::core::SolSample sample;
        sample.device_index = device;
        sample.t_start_ns = kStartNs + n * kSampleNs;
        sample.t_end_ns = sample.t_start_ns + kSampleNs;
        sample.compute_sol_pct = static_cast<double>(n % 100);
        sample.memory_sol_pct = static_cast<double>((n * 7) % 100);
        state.add(sample);
      }
    }
    return true;
  }();
  (void)filled;
  return state;
}

/// The value of `name`; nullopt when absent.
auto value_of(const solscope::server::QueryParams& params, const char* name) -> std::optional<std::string> {
  const auto it = params.find(name);
  if (it == params.end()) return std::nullopt;
  return it->second;
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  const LiveState& state = make_state();
  const std::string query(reinterpret_cast<const char*>(data), size);
  const auto parsed_query = solscope::server::parse_query(query);
  if (!parsed_query) return 0;  // 400 before any route
  const solscope::server::QueryParams& params = *parsed_query;
  for (const auto& [key, value] : params) (void)solscope::core::parse_duration_ns(value);

  const solscope::server::SamplesParams samples{value_of(params, "device"), value_of(params, "since"),
                                                value_of(params, "window")};
  if (const auto parsed = solscope::server::parse_samples_query(samples, state)) {
    (void)solscope::server::samples_json(state, *parsed).size();
  } else {
    (void)parsed.error().describe();
  }
  if (params.contains("device")) {
    (void)solscope::server::parse_device_param(value_of(params, "device"), state, "/api/v1/stream");
  }
  return 0;
}
