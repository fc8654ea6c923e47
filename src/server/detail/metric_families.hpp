// The MetricFamily values of /metrics (prometheus-cpp's data model), one builder per group of families.
#pragma once

#include <span>
#include <vector>

#include <prometheus/metric_family.h>

#include "core/live_state.hpp"
#include "server/detail/event_stream.hpp"
#include "server/detail/metrics.hpp"

namespace solscope::server::detail {

/// Every family of docs/http-api.md "Metrics" for `devices`, in a stable order, without empty families.
[[nodiscard]] auto collect_families(std::span<const core::DeviceSnapshot> devices,
                                    const MetricsContext& context, const StreamStats* stream)
    -> std::vector<prometheus::MetricFamily>;

}  // namespace solscope::server::detail
