// The loop of `solscope fleet`: fetches a FleetSnapshot now and every refresh, shows it (fleet_view.hpp), and
// fetches one GPU's history on Enter. Fetch errors are shown in the view, which goes on and retries at the
// next refresh.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "core/result.hpp"
#include "fleet/fleet_model.hpp"

namespace solscope::tui {

/// How run_fleet_tui() runs.
struct FleetTuiOptions {
  std::int64_t refresh_ns = 5'000'000'000;  ///< time between snapshots, > 0
  std::string term;                         ///< $TERM as read by the caller
  std::string no_color;                     ///< $NO_COLOR
  std::string colors;                       ///< $SOLSCOPE_COLORS
  bool ascii = false;                       ///< $SOLSCOPE_ASCII set
  /// When not empty, timing figures are written there at exit (fetches, mean fetch, render and present time),
  /// for bench/fleet_bench. From $SOLSCOPE_TUI_STATS.
  std::string stats_path;
};

/// Shows the fleet of `provider` on the terminal until q, or `stop` becomes true. The terminal is restored on
/// every return. Errors: those of Terminal::open (no usable terminal).
[[nodiscard]] auto run_fleet_tui(fleet::FleetProvider& provider, const FleetTuiOptions& options,
                                 const std::atomic<bool>& stop) -> core::Result<void>;

}  // namespace solscope::tui
