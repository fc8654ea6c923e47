// Rendering of a ceiling::ServeCeiling for `solscope ceiling --serve`: the serving figures, the steady-state
// step mix and its two representative steps, as text or JSON (docs/design/ceiling-model.md section 6).
#pragma once

#include <string>

#include "ceiling/gpu_spec.hpp"
#include "ceiling/model_arch.hpp"
#include "ceiling/serving.hpp"

namespace solscope::app {

/// What the serving report describes besides the result itself.
struct ServeReportInput {
  const ceiling::ServeCeiling& result;
  const ceiling::GpuSpec& gpu;
  const ceiling::ModelArch& arch;
  std::string config_path;  ///< the config.json read
  /// Why the concurrency was chosen (--concurrency max, --max-tpot-ms: ceiling_capacity.hpp); empty when
  /// given.
  std::string concurrency_choice = {};
};

/// Multi-line text: headline SOL figures (activity and useful), throughput and latency, phase split, the step
/// mix, the two representative steps and the notes.
[[nodiscard]] auto render_serve_text(const ServeReportInput& in) -> std::string;

/// One JSON object (pretty-printed, newline-terminated) with the same content; unknown numbers are null.
/// Field names carry units (_s, _pct, _per_s).
[[nodiscard]] auto render_serve_json(const ServeReportInput& in) -> std::string;

}  // namespace solscope::app
