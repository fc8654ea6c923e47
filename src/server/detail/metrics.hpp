// /metrics: the Prometheus exposition of a core::LiveState (docs/http-api.md "Metrics"), built at scrape time
// by a prometheus-cpp Collectable and rendered by its TextSerializer (text format 0.0.4).
#pragma once

#include <span>
#include <string>

#include "core/live_state.hpp"
#include "server/detail/event_stream.hpp"

namespace solscope::server {

/// Node-wide facts for the labels and the info series.
struct MetricsContext {
  std::string hostname;  ///< value of the `hostname` label (dcgm-exporter's spelling)
  std::string version;   ///< `solscope_build_info{version}`
};

/// The exposition of `devices` (their latest complete windows, busy counters and facts) plus the stream's
/// counters when `stream` is given. A figure that is unknown (NaN) is left out, never written as 0 or NaN; a
/// family with no series is left out. Independent of the process locale.
[[nodiscard]] auto render_metrics(std::span<const core::DeviceSnapshot> devices,
                                  const MetricsContext& context, const StreamStats* stream = nullptr)
    -> std::string;

/// render_metrics() of state.snapshot() (one snapshot, taken under the state's lock).
[[nodiscard]] auto render_metrics(const core::LiveState& state, const MetricsContext& context,
                                  const StreamStats* stream = nullptr) -> std::string;

/// The Content-Type of the exposition: "text/plain; version=0.0.4; charset=utf-8".
inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace solscope::server
