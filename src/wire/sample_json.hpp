// The JSON shape of one SOL sample and of one closed window, in both directions: what the JSON Lines output
// of the live commands (`--json`), the trace's JSONL export, the server's API and stream (docs/http-api.md)
// write, and what the terminal view reads back from a daemon.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/device_info.hpp"
#include "core/result.hpp"
#include "core/sol_sample.hpp"

namespace solscope::wire {

/// One sample as a JSON object, keys in this order:
///
/// device, uuid (only when `device` is given and knows it), t_start_ns, t_end_ns, source (core::to_string),
/// flags (core::SampleFlag bits), pm_pause (why PM sampling was paused, core::to_string(PmPauseReason):
/// "manual", "profiler", "dcgm", "counters_busy", "policy"; always written, "none" when it was not; in a
/// window, that of its latest sample), compute_sol_pct, compute_pipe, memory_sol_pct, memory_path, bound,
/// pipes {pipe name: pct, every core::Pipe}, paths {path name: pct, every core::MemPath}, dram_bytes_per_s,
/// attainable_compute_sol_pct, attainable_memory_sol_pct, attainable_limiter (core::to_string(Limiter):
/// "compute", "memory", "kernel_overhead", "interconnect"; null when unknown), attainable_compute_gap_pts,
/// attainable_memory_gap_pts (attainable - live in percentage points, core::attainable_gap; written, never
/// read: a reader derives them again), then every catalog metric by its catalog name (core::metric_catalog()
/// order, e.g. "tensor_pipe_pct", "power_w").
///
/// Units are those of the names (percent 0-100 of peak, bytes/s, MHz, W, degrees C, bytes). Unknown values
/// (NaN, or no pipe/path) are JSON null, never 0 (number_or_null). Numbers print in the shortest form that
/// reads back to the same double. `device` may be nullptr.
[[nodiscard]] auto sol_sample_to_json(const core::SolSample& sample, const core::DeviceInfo* device)
    -> nlohmann::ordered_json;

/// Appends the JSON text of one sample to `out`, without a line end: the same bytes as
/// json_text(sol_sample_to_json(sample, device)) (wire/json_text.hpp; the same field list,
/// detail/sample_fields.hpp; invalid UTF-8 in the UUID becomes U+FFFD), written straight with fmt instead of
/// through a document: about 1-2 us a sample against 25-30 us (bench/wire_bench.cpp). For the JSON Lines of
/// `--json` and of `export --format jsonl`.
void append_sol_sample_json(std::string& out, const core::SolSample& sample, const core::DeviceInfo* device);

/// One closed window as a JSON object: `window` is core::WindowAccumulator::result() (every figure the
/// duration-weighted mean of its samples, the pipe and path those with the highest mean, the bound classified
/// again from the means by core::classify_bound; t_start_ns and t_end_ns the earliest start and latest end of
/// its samples), written in the sample's shape (sol_sample_to_json), so that a reader takes a window and a
/// sample alike. `device` may be nullptr.
[[nodiscard]] auto window_to_json(const core::SolSample& window, const core::DeviceInfo* device)
    -> nlohmann::ordered_json;

/// A SolSample (or window) from its JSON object (sol_sample_to_json). Missing or null numbers are NaN,
/// unknown pipe/path/bound/source names are "unknown" (kCount, Bound::Unknown, SourceKind::None), a missing,
/// null or unknown pm_pause is PmPauseReason::kNone (a daemon older than the pause writes none); keys it
/// does not know are ignored (newer daemons may add some). Errors: InvalidArgument "sample JSON ..." when
/// `json` is not an object or `device`, `t_start_ns` or `t_end_ns` is missing or not an integer.
[[nodiscard]] auto sample_from_json(const nlohmann::json& json) -> core::Result<core::SolSample>;

}  // namespace solscope::wire
