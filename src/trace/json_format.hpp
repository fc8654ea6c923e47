// The JSON shape of one SOL sample, shared by `--json` live output (JSON Lines) and the trace JSONL export.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/device_info.hpp"
#include "core/sol_sample.hpp"

namespace solscope::trace {

/// `v` as a JSON number, or null when NaN (unknown is null, never 0). Shared by every JSON writer.
[[nodiscard]] auto number_or_null(double v) -> nlohmann::ordered_json;

/// One sample as a JSON object, keys in this order:
///
/// device, uuid (only when `device` is given and knows it), t_start_ns, t_end_ns, source (core::to_string),
/// flags (core::SampleFlag bits), compute_sol_pct, compute_pipe, memory_sol_pct, memory_path, bound,
/// pipes {pipe name: pct, every core::Pipe}, paths {path name: pct, every core::MemPath}, dram_bytes_per_s,
/// attainable_compute_sol_pct, attainable_memory_sol_pct, then every catalog metric by its catalog name
/// (core::metric_catalog() order, e.g. "tensor_pipe_pct", "power_w").
///
/// Units are those of the names (percent 0-100 of peak, bytes/s, MHz, W, degrees C, bytes). Unknown values
/// (NaN, or no pipe/path) are JSON null, never 0. Numbers print in the shortest form that reads back to the
/// same double. `device` may be nullptr.
[[nodiscard]] auto sol_sample_to_json(const core::SolSample& sample, const core::DeviceInfo* device)
    -> nlohmann::ordered_json;

}  // namespace solscope::trace
