// The screen layout of the terminal view as a pure function of the terminal size, the GPU count and the view
// (docs/design/style.md section 4): where the header, each GPU's panel or row, the history charts, the
// process table and the key footer go. Tested by invariants over many sizes (tests/tui/layout_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tui/detail/geometry.hpp"

namespace solscope::tui {

/// The views of the terminal view.
enum class View : std::uint8_t {
  Sol,        ///< default: Compute/Memory SOL bars beside the classic utilization, per GPU
  Classic,    ///< nvidia-smi-like table (utilization, memory, power, temperature, clocks)
  Dcgm,       ///< DCGM-like profiling table (SM active, occupancy, GR active, DRAM, pipes)
  Detail,     ///< one GPU with every pipe and path
  Workloads,  ///< one row per workload on the GPUs (workload_rollup.hpp), then the process table
};

/// Lowercase name: "sol", "classic", "dcgm", "detail", "workloads".
[[nodiscard]] auto to_string(View view) -> std::string_view;

/// Smallest screen the view draws into; below it only a "terminal too small" message is shown.
inline constexpr int kMinCols = 40;
inline constexpr int kMinRows = 8;
/// A full SOL panel: title, Compute/Memory/classic bars, activity line, device-state line, note line.
inline constexpr int kFullPanelHeight = 7;
inline constexpr int kFullPanelMinWidth = 72;
/// Detail view: at this width and more its pipes and paths sit side by side, else pipes above paths.
inline constexpr int kDetailWideCols = 120;
/// Most panel columns side by side.
inline constexpr int kMaxPanelColumns = 4;
/// History charts: title row, at least 3 plot rows, the time axis row.
inline constexpr int kChartMinHeight = 5;
inline constexpr int kChartMaxHeight = 14;
inline constexpr int kChartMinWidth = 20;
/// Process table: heading row and at least 2 process rows.
inline constexpr int kProcessesMinHeight = 3;

/// What compute_layout() lays out.
struct LayoutRequest {
  int rows = 24;  ///< terminal rows (any value; <= 0 is an empty screen)
  int cols = 80;  ///< terminal columns
  std::size_t device_count = 0;
  View view = View::Sol;
  std::size_t selected = 0;  ///< the selected GPU (position in the device list); kept visible when scrolling
  bool show_charts = true;
  bool show_processes = true;
  std::size_t workload_count = 0;  ///< rows of the Workloads view's roll-up (0: one row says there is none)
};

/// Where everything goes. All rectangles lie inside the screen and no two non-empty ones overlap.
struct Layout {
  bool too_small = false;  ///< below kMinRows x kMinCols: `header` is the whole screen, the rest is empty
  Rect header;             ///< top status line
  Rect footer;             ///< bottom key line
  Rect table_header;       ///< column titles of the Classic and DCGM tables; empty otherwise
  /// panels[i] shows the GPU at position first_device + i: full panels (height kFullPanelHeight), compact
  /// rows (height 1 or 2), table rows (height 1) or the one Detail panel.
  std::vector<Rect> panels;
  std::size_t first_device = 0;
  bool compact = false;      ///< SOL view with compact rows instead of full panels
  std::vector<Rect> charts;  ///< 0, 1 or 3 history charts: Compute SOL, Memory SOL, classic utilization
  Rect processes;            ///< process table; may be empty
  /// Workloads view: the roll-up's rows below `table_header` (at least 1 row, at most workload_count when
  /// that is more than 0; the first ones when they do not fit); empty in the other views.
  Rect workloads;
  Rect body;  ///< everything between header and footer
};

/// Computes the layout (pure; see Layout for the guarantees). Full SOL panels are used when they fit with
/// room for the charts, in up to kMaxPanelColumns columns of at least kFullPanelMinWidth; otherwise compact
/// rows (two lines per GPU when they fit, else one), scrolled so that `selected` stays visible. The Workloads
/// view has no GPU panels: a heading, the roll-up's rows, and the process table when at least
/// kProcessesMinHeight rows are left.
[[nodiscard]] auto compute_layout(const LayoutRequest& request) -> Layout;

}  // namespace solscope::tui
