#include "imports/detail/dcgm_exporter_import.hpp"

#include <limits>

#include "imports/detail/dcgmi_dmon.hpp"
#include "net/dcgm_exposition.hpp"

namespace solscope::imports {
auto import_dcgm_exporter(std::string_view text, std::int64_t single_ns) -> core::Result<Recording> {
  net::DcgmDeviceIndex index;
  auto scrapes = net::parse_dcgm_scrapes(text, index);
  if (!scrapes) return core::propagate(scrapes);
  Recording recording;
  recording.devices.resize(index.size());
  bool untimed = false;
  for (const net::DcgmScrape& scrape : *scrapes) {
    untimed = untimed || scrape.timestamp_ms == std::numeric_limits<std::int64_t>::min();
    // parse_dcgm_scrapes refused timestamps outside 1970-2200, so the ns below fit an int64.
    for (const net::DcgmGpuSample& gpu : scrape.gpus) {
      if (gpu.device.index < recording.devices.size()) recording.devices[gpu.device.index] = gpu.device;
      core::RawSample raw = gpu.sample;
      raw.t_end_ns = untimed ? 0 : scrape.timestamp_ms * 1'000'000;
      recording.samples.push_back(raw);
    }
    for (const auto& [name, count] : scrape.unknown_names) recording.unmapped[name] += count;
    recording.tally.repeated_values += scrape.repeated_values;
  }
  for (std::size_t i = 0; i < recording.devices.size(); ++i) {
    recording.devices[i].index = static_cast<std::uint32_t>(i);
  }
  if (auto spanned = span_from_previous(recording, single_ns); !spanned) return core::propagate(spanned);
  recording.relative_times = untimed;
  recording.sol_definition = std::string(kDcgmSolDefinition);
  recording.synthetic = declares_synthetic(text);
  return recording;
}

}  // namespace solscope::imports
