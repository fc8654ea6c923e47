// Rendering of a concurrency sweep for `solscope ceiling --serve --sweep` (ceiling/capacity.hpp,
// docs/design/ceiling-model.md section 6.6): a table over concurrency as text, JSON or CSV, and one
// self-contained HTML page with the throughput-versus-interactivity curve and the activity curve.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ceiling/capacity.hpp"
#include "ceiling/gpu_spec.hpp"
#include "ceiling/model_arch.hpp"
#include "core/result.hpp"

namespace solscope::app {

/// What the sweep report describes.
struct SweepReportInput {
  std::span<const ceiling::SweepPoint> points;  ///< in increasing concurrency, at least one
  std::optional<std::size_t> best;              ///< ceiling::best_point(); nullopt when no point qualifies
  ceiling::CapacityLimits limits;
  const ceiling::GpuSpec& gpu;
  const ceiling::ModelArch& arch;
  std::string config_path;  ///< the config.json read
};

/// Headline (model, GPU, traffic, memory limit, limits, best point) and one row per point: concurrency,
/// output tokens/s per GPU, tokens/s per user (1 / TPOT), TTFT and TPOT in ms, activity % (attainable Compute
/// SOL), MFU % (useful Compute SOL), Memory SOL %, limiter, fits, and a mark for the best point and for
/// points outside the limits.
[[nodiscard]] auto render_sweep_text(const SweepReportInput& in) -> std::string;

/// The sweep as one JSON object: "gpu", "model", "traffic", "limits" (max_tpot_s, max_ttft_s; null = none),
/// "memory_usable_bytes", "max_fitting_concurrency" (0 when one request does not fit),
/// "best_concurrency" (null when none qualifies) and "points" (one object per row, units in the names,
/// unknown numbers null).
[[nodiscard]] auto sweep_json(const SweepReportInput& in) -> nlohmann::ordered_json;

/// sweep_json() as pretty-printed text, newline-terminated.
[[nodiscard]] auto render_sweep_json(const SweepReportInput& in) -> std::string;

/// A header row, then one row per point (RFC 4180, "\n" line ends): concurrency,
/// output_tokens_per_s_per_gpu, tokens_per_s_per_user, ttft_ms, tpot_ms, activity_pct, mfu_pct,
/// memory_sol_pct, limiter, fits, within_limits, best. Numbers in the shortest form that reads back, unknown
/// ones empty; text cells through trace::append_csv_cell().
[[nodiscard]] auto render_sweep_csv(const SweepReportInput& in) -> std::string;

/// The HTML page (web/src/sweep.html with uPlot, common.css, sweep.css, sweep.js and sweep_json(in)),
/// rendered by render_html_page (cli/report/html_page.hpp). Errors: render_html_page's.
[[nodiscard]] auto render_sweep_html(const SweepReportInput& in) -> core::Result<std::string>;

}  // namespace solscope::app
