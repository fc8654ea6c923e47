// libFuzzer target: the text importers of `solscope import` (imports/importer.hpp): dcgm-exporter scrapes,
// Prometheus query_range JSON, dcgmi dmon and nvidia-smi dmon logs, and format detection.
//
// The first byte picks the format (its value modulo 4); the rest is the file. Every import either fails with
// an error or gives samples whose spans are positive, whose devices exist and whose values are unknown (NaN)
// or inside their metric's range (the shared domain check, core/metric_domain.hpp).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/metric_domain.hpp"
#include "imports/importer.hpp"

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  if (size == 0) return 0;
  using solscope::imports::ImportFormat;
  constexpr ImportFormat kFormats[] = {ImportFormat::DcgmExporter, ImportFormat::PrometheusJson,
                                       ImportFormat::DcgmiDmon, ImportFormat::NvidiaSmiDmon};
  const ImportFormat format = kFormats[data[0] % 4];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)solscope::imports::detect_format(text, "txt");
  const auto recording = solscope::imports::import_text(text, format, 1'000'000'000);
  if (!recording) return 0;
  for (const auto& s : recording->samples) {
    if (s.t_end_ns <= s.t_start_ns || s.device_index >= recording->devices.size()) std::abort();
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      const auto id = static_cast<solscope::core::MetricId>(i);
      if (!std::isnan(s.values[i]) && !solscope::core::in_domain(id, s.values[i])) std::abort();
    }
  }
  return 0;
}
