#include "imports/dcgm_exporter_import.hpp"

#include <limits>

#include "imports/dcgm_exposition.hpp"
#include "imports/dcgmi_dmon.hpp"

namespace solscope::imports {
namespace {

/// 2200-01-01 in Unix ms (ns since the epoch fit an int64 until 2262).
constexpr std::int64_t kMaxUnixMs = 7'258'118'400'000;

}  // namespace

auto import_dcgm_exporter(std::string_view text, std::int64_t single_ns) -> core::Result<Recording> {
  DcgmDeviceIndex index;
  auto scrapes = parse_dcgm_scrapes(text, index);
  if (!scrapes) return core::propagate(scrapes);
  Recording recording;
  recording.devices.resize(index.size());
  bool untimed = false;
  for (const DcgmScrape& scrape : *scrapes) {
    untimed = untimed || scrape.timestamp_ms == std::numeric_limits<std::int64_t>::min();
    if (!untimed && (scrape.timestamp_ms < 0 || scrape.timestamp_ms > kMaxUnixMs)) {
      return core::fail(
          core::ErrorCode::DataLoss,
          "timestamp " + std::to_string(scrape.timestamp_ms) + " ms is not a time between 1970 and 2200",
          "sample lines carry Unix milliseconds, e.g. 1735689600000");
    }
    for (const DcgmGpuSample& gpu : scrape.gpus) {
      if (gpu.device.index < recording.devices.size()) recording.devices[gpu.device.index] = gpu.device;
      core::RawSample raw = gpu.sample;
      raw.t_end_ns = untimed ? 0 : scrape.timestamp_ms * 1'000'000;
      recording.samples.push_back(raw);
    }
    for (const auto& [name, count] : scrape.unknown_names) recording.unmapped[name] += count;
  }
  for (std::size_t i = 0; i < recording.devices.size(); ++i) {
    recording.devices[i].index = static_cast<std::uint32_t>(i);
  }
  span_from_previous(recording.samples, single_ns);
  recording.relative_times = untimed;
  recording.sol_definition = std::string(kDcgmSolDefinition);
  recording.synthetic = declares_synthetic(text);
  return recording;
}

}  // namespace solscope::imports
