// The generator's `training` and `serving` profiles (profiles.hpp): SYNTHETIC samples of a data-parallel
// training job (iterations of a BF16 GEMM phase, an NVLink all-reduce the SMs wait for, and idle) and of an
// LLM server (DRAM-bound decode bursts arriving at random), following iteration_load.hpp's schedules.
#pragma once

#include <filesystem>
#include <vector>

#include "core/device_info.hpp"
#include "core/result.hpp"
#include "data/synthetic/iteration_load.hpp"
#include "data/synthetic/profiles.hpp"
#include "trace/writer.hpp"

namespace solscope::synthetic {

/// GPU `gpu`'s training schedule: options.iteration's period, jitter and drift over options.seconds, 70%
/// compute, 20% communication, 10% idle, seeded with options.seed + gpu, its first iteration starting
/// 0.1 x gpu s into the trace (so that the GPUs' phases differ).
[[nodiscard]] auto training_shape(const ProfileOptions& options, std::uint32_t gpu) -> TrainingShape;

/// GPU `gpu`'s serving schedule: 1.5 requests/s, each 0.05-1.2 s busy, seeded with options.seed + gpu.
[[nodiscard]] auto serving_shape(const ProfileOptions& options, std::uint32_t gpu) -> ServingShape;

/// Writes the training or serving profile's samples to `path` (write_samples). Errors: the trace writer's.
[[nodiscard]] auto write_iteration_trace(const std::filesystem::path& path, const ProfileOptions& options,
                                         trace::WriterOptions writer,
                                         const std::vector<core::DeviceInfo>& devs)
    -> core::Result<std::uint64_t>;

}  // namespace solscope::synthetic
