// Semantic styles of the terminal view: every cell names a role (what it shows), and the terminal backend
// maps roles to colours for the terminal's capability (256 colours, 16 colours, or monochrome attributes).
#pragma once

#include <cstdint>
#include <string_view>

namespace solscope::tui {

/// What a cell shows; the backend picks its colour and attributes (themes are roles: docs/design/style.md 4).
enum class Role : std::uint8_t {
  Normal,
  Dim,               ///< secondary text, axis labels, empty bar track
  Title,             ///< panel and chart titles
  Header,            ///< the top status line
  Footer,            ///< the key line at the bottom
  Selected,          ///< the selected GPU's title or row
  BarCompute,        ///< Compute SOL bar and chart
  BarMemory,         ///< Memory SOL bar and chart
  BarUtil,           ///< classic utilization bar and chart
  Marker,            ///< attainable-SOL marker
  Good,              ///< healthy state (PM sampling, compute bound)
  Warn,              ///< coarser source, latency bound, paused
  Bad,               ///< SOL n/a, lost GPU, errors
  Synthetic,         ///< the SYNTHETIC badge
  BarCommunication,  ///< communication in the one-iteration strip chart (interconnect busy, SMs waiting)
  kCount
};
inline constexpr std::size_t kRoleCount = static_cast<std::size_t>(Role::kCount);

/// How many colours the view uses.
enum class ColorMode : std::uint8_t {
  Mono,      ///< attributes only (bold, reverse, dim, underline)
  Color16,   ///< the 8 ANSI colours (plus bold for bright)
  Color256,  ///< the xterm 256-colour palette
};

/// Lowercase name: "mono", "16", "256".
[[nodiscard]] auto to_string(ColorMode mode) -> std::string_view;

/// Chooses the colour mode (pure). `no_color` is $NO_COLOR (https://no-color.org: any non-empty value means
/// no colour); `forced` is $SOLSCOPE_COLORS ("256", "16", "mono"/"none"/"never"; anything else is ignored);
/// `terminal_colors` is what the terminal reports (curses COLORS; 0 or less without colour support). NO_COLOR
/// wins over everything, then `forced` (never above what the terminal supports, except that "256" is honoured
/// on a terminal with 16 or more colours), then the terminal's own count.
[[nodiscard]] auto choose_color_mode(std::string_view no_color, std::string_view forced, int terminal_colors)
    -> ColorMode;

}  // namespace solscope::tui
