// The fleet view of `solscope fleet`: one row per GPU of a Prometheus-backed fleet (fleet/fleet_model.hpp),
// sorted, filtered and scrolled, and one GPU's history as charts. Pure: keys change a FleetViewState, and
// render_fleet() draws a Frame from the data and that state; the loop that fetches and shows is
// fleet_tui.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fleet/fleet_math.hpp"
#include "fleet/fleet_model.hpp"
#include "tui/detail/frame.hpp"
#include "tui/detail/ui_state.hpp"

namespace solscope::tui {

/// The user's choices in the fleet view.
struct FleetViewState {
  fleet::SortKey sort = fleet::SortKey::Host;
  std::string filter;           ///< case-insensitive text matched against host, GPU, model, job, UUID
  bool editing_filter = false;  ///< '/' typed: keys edit the filter until Enter or Esc
  std::size_t selected = 0;     ///< index into FleetViewData::visible
  std::size_t top = 0;          ///< first visible row shown
  bool detail = false;          ///< the selected GPU's history is shown
  bool ascii = false;           ///< ASCII charts
};

/// What the fleet view shows.
struct FleetViewData {
  fleet::FleetSnapshot snapshot;             ///< rows sorted by FleetViewState::sort (apply_view())
  std::vector<std::size_t> visible;          ///< indices of snapshot.rows passing the filter, in order
  std::optional<fleet::GpuHistory> history;  ///< the detail view's GPU, once fetched
  std::string error;                         ///< the last fetch's error ("" = none); the view goes on
  std::string source;                        ///< the provider's describe()
  std::int64_t refreshed_unix_ns = 0;        ///< when the snapshot was fetched (0 = never)
  std::int64_t refresh_ns = 0;               ///< refresh interval, for the header
};

/// What a key asks of the loop.
enum class FleetAction : std::uint8_t {
  None,         ///< redraw only
  Quit,         ///< q (not while editing the filter)
  OpenHistory,  ///< Enter on a row: fetch the selected GPU's history
  Refresh,      ///< r: fetch now
};

/// Rows of the table on a frame of `frame_rows` (header, notes, column titles and footer taken off), >= 1.
[[nodiscard]] auto fleet_table_rows(int frame_rows) -> int;

/// Sorts the snapshot's rows by state.sort, recomputes `visible` from state.filter and keeps the selection on
/// the same GPU when it is still visible (else clamps it), and the selection on screen.
void apply_view(FleetViewData& data, FleetViewState& state, int table_rows);

/// Handles one key: arrows, PgUp/PgDn, Home/End move; s cycles the sort key; / edits the filter (Enter keeps
/// it, Esc clears it); Enter opens the selected GPU's history; Esc goes back; r refreshes; q quits.
[[nodiscard]] auto fleet_key(const Key& key, FleetViewState& state, FleetViewData& data, int table_rows)
    -> FleetAction;

/// The selected row, or null when none is visible.
[[nodiscard]] auto selected_row(const FleetViewData& data, const FleetViewState& state)
    -> const fleet::FleetRow*;

/// Draws the whole screen: the table, or the selected GPU's history in the detail view.
void render_fleet(const FleetViewData& data, const FleetViewState& state, Frame& frame);

}  // namespace solscope::tui
