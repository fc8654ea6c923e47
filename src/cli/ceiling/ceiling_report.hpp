// Rendering of a ceiling::Ceiling for `solscope ceiling`: a readable breakdown and a JSON document.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "ceiling/ceiling.hpp"
#include "ceiling/ceiling_text.hpp"
#include "ceiling/gpu_spec.hpp"
#include "ceiling/model_arch.hpp"
#include "ceiling/workload.hpp"

namespace solscope::app {

/// What the report describes besides the result itself.
struct CeilingReportInput {
  const ceiling::Ceiling& result;
  const ceiling::GpuSpec& gpu;
  const ceiling::ModelArch& arch;
  std::string config_path;  ///< the config.json read
  ceiling::Phase phase = ceiling::Phase::Decode;
  std::int64_t batch = 1;
  std::int64_t context = 0;
  std::int64_t prompt = 0;
  double measured_tokens_per_s = std::numeric_limits<double>::quiet_NaN();  ///< NaN when not given
};

/// Multi-line text: headline SOL figures, the limiting resource, where the time goes, the operator table
/// (slowest first) and the notes.
[[nodiscard]] auto render_ceiling_text(const CeilingReportInput& in) -> std::string;

/// One JSON object (pretty-printed, newline-terminated) with the same content; unknown numbers are null.
/// Field names carry units (_s, _bytes, _pct, _mhz).
[[nodiscard]] auto render_ceiling_json(const CeilingReportInput& in) -> std::string;

/// The `dtypes` object of both ceiling reports: {"weights", "activations", "kv_cache", "gemm_math"}, each
/// {"dtype": "fp8", "source": "config" | "quantization_config" | "hf_quant_config" | "flag" | "fallback" |
/// "default", "detail": what the source said, as the text report prints it}.
[[nodiscard]] auto dtypes_json(const ceiling::DtypeChoices& dtypes) -> nlohmann::ordered_json;

/// The `gpu` object of every ceiling report: id, sm_clock_mhz, peak_dtype, peak_flops_per_s and
/// memory_bandwidth_bytes_per_s of `c`'s evaluation on `gpu`.
[[nodiscard]] auto gpu_json(const ceiling::GpuSpec& gpu, const ceiling::Ceiling& c) -> nlohmann::ordered_json;

}  // namespace solscope::app
