// `solscope devices`: the hint to read dcgm-exporter when DCGM profiling holds the GPU counters on this node.
#pragma once

#include <string>

#include "net/http_client.hpp"
#include "runtime/gpu_backend.hpp"

namespace solscope::app {

/// Where `solscope devices` looks for a local dcgm-exporter: its default address.
inline constexpr std::string_view kLocalDcgmExporterHost = "127.0.0.1";
inline constexpr std::uint16_t kLocalDcgmExporterPort = 9400;
inline constexpr std::string_view kLocalDcgmExporterPath = "/metrics";

/// The suggestion line, or "" when none applies. It applies when GET http://127.0.0.1:9400/metrics through
/// `client` answers a dcgm-exporter page (net::parse_dcgm_scrape accepts it) and the counters are held:
/// a device of `probe` says so ("held by another profiler" in its status), or the page carries DCGM profiling
/// figures (DCGM_FI_PROF_* with values: DCGM profiling is running, and it owns the counters, one profiler per
/// GPU). The line: "DCGM profiling holds the GPU counters here; dcgm-exporter answers at URL: run `solscope
/// --dcgm-exporter URL` (tensor/FP pipes and DRAM; L2/L1/issue unknown)". Never fails: an exporter that
/// does not answer gives "".
[[nodiscard]] auto dcgm_exporter_suggestion(const GpuProbe& probe, net::HttpClient& client) -> std::string;

}  // namespace solscope::app
