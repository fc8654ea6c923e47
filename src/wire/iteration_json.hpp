// The JSON shape of a GPU's training iteration (core::IterationEstimate) and of a job's ranks compared
// (core::JobSteps), both ways where a view reads them back (docs/http-api.md "/api/v1/devices", Iteration).
// Pure, as the rest of the wire.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/iteration.hpp"
#include "core/job_steps.hpp"

namespace solscope::wire {

/// A device's `iteration`: {periodic, period_s, jitter_s, confidence (0-1), window_s, estimated_at_ns,
/// parts {compute, memory, communication, latency, idle} (0-1 each), communication_ratio,
/// exposed_communication_ratio (0-1), communication_offset_s ([0, period_s), epoch-anchored), strip (the
/// core::kIterationStripBins part names of one iteration; [] when not periodic), note}. Unknown numbers are
/// null (number_or_null): every figure but confidence when not periodic, the offset when the iteration has no
/// communication.
[[nodiscard]] auto iteration_to_json(const core::IterationEstimate& estimate) -> nlohmann::ordered_json;

/// The inverse of iteration_to_json. Anything not an object, or absent or mistyped fields, read as their
/// defaults (not periodic, unknown figures); a strip that is not exactly kIterationStripBins known part names
/// makes the estimate not periodic (a view never draws a strip it cannot trust). Never throws.
[[nodiscard]] auto iteration_from_json(const nlohmann::json& json) -> core::IterationEstimate;

/// A job's ranks compared (beside its roll-up entry): {ranks: [{device, rank, iteration_s, compute_s,
/// communication_s, exposed_communication_s}], not_periodic: [device...], straggler: {device, rank} or null,
/// spread_pct, iteration_spread_pct (null without a straggler)}.
[[nodiscard]] auto job_steps_to_json(const core::JobSteps& job) -> nlohmann::ordered_json;

}  // namespace solscope::wire
