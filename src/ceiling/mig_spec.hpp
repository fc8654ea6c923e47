// The spec of a MIG instance: the GPU's spec scaled to the instance's share of the SMs and of the memory
// slices, so that the attainable SOL of a workload on an instance is computed against the instance's own
// peaks (docs/design/sol-metrics.md section 9, "Peaks of an instance").
#pragma once

#include "ceiling/gpu_spec.hpp"
#include "core/device_info.hpp"
#include "core/result.hpp"

namespace solscope::ceiling {

/// `gpu` as the MIG instance `instance` sees it:
/// - sm_count = the instance's SMs (DeviceInfo::sm_count, from NVML's device attributes), else
///   round(gpu.sm_count x mig_sm_share) (an import's share from the profile name); every compute peak follows
///   (peak = SMs x FLOP/clock/SM x clock, docs/design/ceiling-model.md 1.3). Dividing by the chip's SMs, not
///   by the 7g profile's, keeps a datasheet peak's meaning: an A100 `3g.40gb` has 42 of the 108 SMs the
///   datasheet's 312 TFLOP/s counts.
/// - memory bandwidth and L2 x mig_memory_share (memory slices own their DRAM channels and L2 slices [NVIDIA
///   MIG User Guide, "Terminology": a memory slice is 1/8 of the memory, with its L2 slices and memory
///   controllers]), else x the instance's memory over the GPU's;
/// - memory capacity = the instance's memory (DeviceInfo::memory_total_bytes), else the GPU's x the share;
/// - no GPU-to-GPU link (NVLink peer-to-peer is not supported between MIG instances [same guide]);
/// - id gets " MIG <profile>" so that notes name it.
/// A whole GPU (`!instance.is_mig()`) gives `gpu` unchanged. Errors: FailedPrecondition "the share of the GPU
/// that MIG instance ... has is unknown" when neither SMs nor a share are known, or the share is outside (0,
/// 1].
[[nodiscard]] auto mig_instance_spec(const GpuSpec& gpu, const core::DeviceInfo& instance)
    -> core::Result<GpuSpec>;

}  // namespace solscope::ceiling
