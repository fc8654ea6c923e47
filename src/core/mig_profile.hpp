// MIG instance shares from a GPU-instance profile name ("3g.40gb"), for the places that know the profile but
// not NVML's profile info: dcgm-exporter scrapes (`GPU_I_PROFILE`) and Prometheus answers. The rule and its
// limits are stated in docs/design/sol-metrics.md, "MIG", "Imports and labels".
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace solscope::core {

/// The two numbers of a MIG GPU-instance profile name "<N>g.<M>gb" (an optional "+me", "+gfx" ... suffix is
/// ignored): N compute slices, M GB of memory.
struct MigProfileName {
  std::uint32_t compute_slices = 0;  ///< N, >= 1
  double memory_gb = 0;              ///< M, > 0
};

/// Parses "<N>g.<M>gb[+suffix]"; nullopt for any other text (empty, "7g", "3g.40", "g.10gb").
[[nodiscard]] auto parse_mig_profile_name(std::string_view profile) -> std::optional<MigProfileName>;

/// Compute slices of the whole GPU named `model_name` (dcgm-exporter `modelName`, NVML's name): its "Max
/// Number of Instances" in NVIDIA's MIG User Guide, "Supported GPUs" (7 on A100, H100, H20, H200, GH200, B200
/// and GB200; 4 on A30 and RTX PRO 6000 Blackwell; 2 on RTX PRO 5000 Blackwell). 0 = unknown model.
[[nodiscard]] auto mig_compute_slices_of(std::string_view model_name) -> std::uint32_t;

/// Memory of the whole GPU in GB as the MIG User Guide's "Supported GPUs" table gives it: the "<M>GB" in
/// the model name when it has one ("NVIDIA H100 80GB HBM3" = 80, "NVIDIA A100-SXM4-40GB" = 40), else the
/// table's size for models named without it (A30 24, H100 80 and H100 NVL 94, H20 96, H200 141, B200 180,
/// GB200 186, RTX PRO 6000 Blackwell 96, RTX PRO 5000 Blackwell 48; GH200 always 96, its name's size counts
/// the CPU's memory too). 0 = unknown model.
[[nodiscard]] auto mig_parent_memory_gb(std::string_view model_name) -> double;

/// An instance's share of its GPU (each 0-1; NaN = unknown).
struct MigShares {
  double sm_share;
  double memory_share;
};

/// The shares of the instance of profile `profile` on a GPU named `model_name`: SM share = N /
/// mig_compute_slices_of(), memory share = M / mig_parent_memory_gb(), each capped at 1 and NaN when the
/// profile name or the model is not known. Approximations of NVML's exact figures (multiprocessorCount and
/// memorySizeMB of the instance profile over the GPU's): see docs/design/sol-metrics.md "MIG".
[[nodiscard]] auto mig_shares_from_profile(std::string_view profile, std::string_view model_name)
    -> MigShares;

}  // namespace solscope::core
