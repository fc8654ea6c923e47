// Writes the SYNTHETIC workloads scenario (workloads.hpp) as a trace: samples with core::derive figures and
// the workloads table, meta.synthetic = 1.
#pragma once

#include <cstdint>
#include <filesystem>

#include "core/result.hpp"

namespace solscope::synthetic {

/// Writes the scenario to `path` (replacing it when `overwrite`): the devices, each second's workload changes
/// (Writer::add_workloads) before that second's samples, and closes it. Returns the number of samples (40).
/// Errors: the trace writer's.
[[nodiscard]] auto write_workloads_trace(const std::filesystem::path& path, bool overwrite = false)
    -> core::Result<std::uint64_t>;

}  // namespace solscope::synthetic
