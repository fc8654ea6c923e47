// `solscope fleet --by namespace|pod|job` as text: the --by value read, and the workload roll-up's table
// (docs/fleet.md "Workloads").
#pragma once

#include <ostream>
#include <string_view>

#include "core/result.hpp"
#include "fleet/fleet_model.hpp"

namespace solscope::app {

/// The GroupBy of a --by value ("namespace", "pod", "job"). Errors: InvalidArgument "--by V is not a way to
/// group the fleet's GPUs", with a hint naming the accepted values and the closest one ("did you mean ...?").
[[nodiscard]] auto parse_fleet_group_by(std::string_view text) -> core::Result<fleet::GroupBy>;

/// Writes the roll-up: a title line (grouping, source), one row per group (group, GPUs, allocated, idle,
/// busy-idle and wasted GPU-hours with 3 decimals, Compute SOL mean with 1 or "n/a"), a total row, and each
/// note as "note: ...".
void print_workload_table(const fleet::WorkloadRollup& rollup, std::ostream& out);

}  // namespace solscope::app
