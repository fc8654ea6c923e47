#include "runtime/dcgm_suggestion.hpp"

#include <cmath>

#include "net/dcgm_exposition.hpp"

namespace solscope::app {
namespace {

/// A device status that names counters held by another profiler (sources/nvidia pm_open_failure's reason).
auto counters_held(const GpuProbe& probe) -> bool {
  for (const auto& d : probe.devices) {
    if (d.status.reason.find("held by another profiler") != std::string::npos) return true;
  }
  return false;
}

/// True when a GPU of the scrape has a DCGM profiling figure (not a placeholder).
auto profiling_running(const net::DcgmScrape& scrape) -> bool {
  using core::MetricId;
  constexpr MetricId kProfiling[] = {MetricId::GrActive,   MetricId::SmActive,       MetricId::SmOccupancy,
                                     MetricId::TensorPipe, MetricId::DramThroughput, MetricId::FmaPipe,
                                     MetricId::Fp16Pipe,   MetricId::Fp64Pipe};
  for (const auto& g : scrape.gpus) {
    for (const MetricId id : kProfiling) {
      if (!std::isnan(g.sample.value(id))) return true;
    }
  }
  return false;
}

}  // namespace

auto dcgm_exporter_suggestion(const GpuProbe& probe, net::HttpClient& client) -> std::string {
  auto response = client.get(kLocalDcgmExporterHost, kLocalDcgmExporterPort, kLocalDcgmExporterPath);
  if (!response || response->status != 200) return {};
  net::DcgmDeviceIndex index;
  auto scrape = net::parse_dcgm_scrape(response->body, index);
  if (!scrape || scrape->gpus.empty()) return {};
  if (!counters_held(probe) && !profiling_running(*scrape)) return {};
  const std::string url = "http://" + std::string(kLocalDcgmExporterHost) + ":" +
                          std::to_string(kLocalDcgmExporterPort) + std::string(kLocalDcgmExporterPath);
  return "DCGM profiling holds the GPU counters here; dcgm-exporter answers at " + url +
         ": run `solscope --dcgm-exporter " + url + "` (tensor/FP pipes and DRAM; L2/L1/issue unknown)";
}

}  // namespace solscope::app
