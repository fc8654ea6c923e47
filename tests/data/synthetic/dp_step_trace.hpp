// The SYNTHETIC 4-rank data-parallel step (dp_step.hpp) as a trace: `solscope_make_synthetic_trace
// --dp-step`.
#pragma once

#include <cstdint>
#include <filesystem>

#include "core/result.hpp"

namespace solscope::synthetic {

/// Writes the scenario as a trace (4 devices, the samples with core::derive figures, the kernels table with
/// meta kernel_log = "synthetic", the markers table, meta.synthetic = 1) and closes it. Returns the number
/// of samples; errors: the trace writer's.
[[nodiscard]] auto write_dp_step_trace(const std::filesystem::path& path, bool overwrite)
    -> core::Result<std::uint64_t>;

}  // namespace solscope::synthetic
