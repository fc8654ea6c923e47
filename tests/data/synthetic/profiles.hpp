// The profiles of the one SYNTHETIC trace generator (solscope_make_synthetic_trace): besides the random
// samples of synthetic_trace.hpp, the phase and constant loads the integration tests and benchmarks replay,
// and the demo phases of the bundled tests/data/demo-trace.sqlite. Every value is made up; every trace says
// so.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "core/kernel_record.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "data/synthetic/iteration_load.hpp"

namespace solscope::synthetic {

/// random: synthetic_trace.hpp's samples (seeded). demo: idle, tensor-bound, DRAM-bound and launch-bound
/// quarters of the trace, shifted per GPU. phases: the same four loads, 4 s each, with a wobble. constant:
/// one load per GPU for the whole trace (constant_load_pct()), so a rate() over it is known exactly.
/// training: a data-parallel training job's iterations, serving: an LLM server's random request bursts
/// (iteration_trace.hpp).
enum class Profile { Random, Demo, Phases, Constant, Training, Serving };

/// "random", "demo", "phases", "constant", "training" or "serving"; nullopt otherwise.
[[nodiscard]] auto parse_profile(std::string_view name) -> std::optional<Profile>;

/// What to write. Demo, phases and constant start at 2026-01-01T00:00:00Z unless start_ns is set.
struct ProfileOptions {
  Profile profile = Profile::Phases;
  std::uint32_t devices = 2;
  std::uint32_t hz = 100;      ///< samples per second and GPU (1-10000); random: 100 (10 ms)
  double seconds = 10.0;       ///< length; random: samples per GPU = seconds x hz
  std::int64_t start_ns = 0;   ///< 0 = the profile's default
  int attainable_device = -1;  ///< this GPU's samples carry an attainable SOL of 55 % / 40 %; -1 = none
  std::uint64_t seed = 1;      ///< random only
  bool overwrite = false;
  /// Also write a SYNTHETIC kernels table (synthetic_kernels()); not for the random profile.
  bool kernels = false;
  IterationOptions iteration{};  ///< the training profile's period, jitter, drift and noise
};

/// The load of GPU `gpu` at `t_s` seconds into the trace: 0 idle, 1 tensor-bound, 2 DRAM-bound,
/// 3 launch-bound (Constant: always 1; Random: 0).
[[nodiscard]] auto phase_at(const ProfileOptions& options, std::uint32_t gpu, double t_s) -> int;

/// A SYNTHETIC kernel log that matches the profile's phases (kernels named "synthetic_*", pid 4242):
/// tensor phases run a 4 ms GEMM every 5 ms with a 1.5 ms all-reduce on a second stream overlapping every
/// 4th; DRAM phases a 2 ms GEMV every 2.5 ms; launch-bound phases a 40 us elementwise kernel every 2 ms;
/// idle phases nothing. Times are absolute (options.start_ns must be set); in start order per GPU.
[[nodiscard]] auto synthetic_kernels(const ProfileOptions& options) -> std::vector<core::KernelRecord>;

/// Writes the trace (devices, samples with core::derive figures, meta.synthetic = 1) and closes it. Returns
/// the number of samples. Errors: InvalidArgument for options out of range, and the trace writer's.
[[nodiscard]] auto write_profile_trace(const std::filesystem::path& path, const ProfileOptions& options)
    -> core::Result<std::uint64_t>;

}  // namespace solscope::synthetic
