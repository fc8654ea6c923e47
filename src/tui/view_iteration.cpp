// The training iteration of one GPU in the terminal view: its "iteration" line (period, jitter, compute,
// communication and exposed communication shares, confidence; or "not periodic" and why) and the
// one-iteration strip chart with its legend (core/iteration.hpp, docs/design/sol-metrics.md section 12).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "core/iteration.hpp"
#include "core/units.hpp"
#include "tui/detail/view_parts.hpp"
#include "tui/format.hpp"

namespace solscope::tui::detail {
namespace {

/// The strip's label, before its cells.
constexpr std::string_view kStripLabel = " one iteration ";
/// Cells between the strip and its legend, and between two legend entries.
constexpr int kLegendGap = 2;

/// A ratio 0-1 as a percentage ("62.0%"), "n/a" when NaN.
auto ratio_pct(double ratio) -> std::string {
  return format_pct(ratio * core::kPercent);
}

/// How the one-iteration strip chart draws a part: its glyph (FULL BLOCK, DARK, MEDIUM and LIGHT SHADE,
/// MIDDLE DOT for compute, memory, communication, latency, idle), its ASCII stand-in ('#', '=', '~', '-',
/// '.') and its role (colour). Distinct glyphs keep the parts apart on a monochrome terminal.
struct PartLook {
  char32_t glyph;
  char32_t ascii;
  Role role;
};

auto part_look(core::IterationPart part) -> PartLook {
  switch (part) {
    case core::IterationPart::Compute:
      return {U'\u2588', U'#', Role::BarCompute};  // FULL BLOCK
    case core::IterationPart::Memory:
      return {U'\u2593', U'=', Role::BarMemory};  // DARK SHADE
    case core::IterationPart::Communication:
      return {U'\u2592', U'~', Role::BarCommunication};  // MEDIUM SHADE
    case core::IterationPart::Latency:
      return {U'\u2591', U'-', Role::Warn};  // LIGHT SHADE
    case core::IterationPart::Idle:
    case core::IterationPart::kCount:
      break;
  }
  return {U'\u00B7', U'.', Role::Dim};  // MIDDLE DOT
}

}  // namespace

auto iteration_line(const core::IterationEstimate& it) -> std::string {
  const std::string confidence =
      std::isnan(it.confidence) ? std::string() : fmt::format("  confidence {:.2f}", it.confidence);
  if (!it.periodic) {
    const std::string why = it.note.empty() ? std::string() : fmt::format(" ({})", it.note);
    return "iteration not periodic" + why + confidence;
  }
  return "iteration " + format_seconds(it.period_s) + "  jitter " + format_seconds(it.jitter_s) +
         "  compute " + ratio_pct(it.compute_ratio) + "  communication " + ratio_pct(it.communication_ratio) +
         "  exposed " + ratio_pct(it.exposed_communication_ratio) + confidence;
}

auto strip_cells(const core::IterationEstimate& it, int width) -> std::vector<core::IterationPart> {
  const int cells = std::min(width, static_cast<int>(core::kIterationStripBins));
  std::vector<core::IterationPart> out;
  if (!it.periodic || cells <= 0) return out;
  out.reserve(static_cast<std::size_t>(cells));
  for (int i = 0; i < cells; ++i) {
    const auto bin =
        static_cast<std::size_t>(i) * core::kIterationStripBins / static_cast<std::size_t>(cells);
    out.push_back(it.strip[bin]);
  }
  return out;
}

void draw_iteration_strip(const core::IterationEstimate& it, int row, const Rect& area, Frame& frame) {
  const bool ascii = frame.ascii();
  const int label = static_cast<int>(kStripLabel.size());
  const auto cells = strip_cells(it, area.width - label);
  if (cells.empty()) return;
  int x = area.col + frame.put(row, area.col, kStripLabel, Role::Dim, area.width);
  for (const core::IterationPart part : cells) {
    const PartLook look = part_look(part);
    frame.set(row, x++, ascii ? look.ascii : look.glyph, look.role);
  }
  // The legend, entry by entry while whole entries fit.
  x += kLegendGap;
  for (std::size_t i = 0; i < core::kIterationPartCount; ++i) {
    const auto part = static_cast<core::IterationPart>(i);
    const std::string name(core::to_string(part));
    const int width = 2 + static_cast<int>(name.size());
    if (x + width > area.right()) break;
    const PartLook look = part_look(part);
    frame.set(row, x, ascii ? look.ascii : look.glyph, look.role);
    frame.put(row, x + 2, name, Role::Dim);
    x += width + kLegendGap;
  }
}

}  // namespace solscope::tui::detail
