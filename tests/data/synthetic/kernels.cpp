// The SYNTHETIC kernel log of the profiles (profiles.hpp synthetic_kernels): made up, never measured.
#include <cstdint>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "data/synthetic/profiles.hpp"

namespace solscope::synthetic {
namespace {

constexpr std::int32_t kPid = 4242;

/// One kind of kernel a phase launches: every period_ns, running duration_ns.
struct KernelKind {
  const char* name;
  std::int64_t period_ns;
  std::int64_t duration_ns;
  std::uint32_t grid_x;
  std::uint32_t block_x;
};

// Indexed by phase (profiles.hpp phase_at): idle launches nothing (a 10 ms step to the next check).
constexpr KernelKind kKinds[] = {
    {"", 10'000'000, 0, 0, 0},
    {"synthetic_gemm_bf16_128x256", 5'000'000, 4'000'000, 132, 256},
    {"synthetic_decode_gemv_bf16", 2'500'000, 2'000'000, 528, 128},
    {"synthetic_elementwise_add", 2'000'000, 40'000, 4, 64},
};

auto record(std::uint32_t gpu, std::int64_t start_ns, std::int64_t duration_ns, std::uint32_t stream,
            std::uint64_t correlation, const KernelKind& kind) -> core::KernelRecord {
  core::KernelRecord k;
  k.device = gpu;
  k.start_ns = start_ns;
  k.end_ns = start_ns + duration_ns;
  k.pid = kPid;
  k.stream = stream;
  k.correlation = correlation;
  k.grid = {kind.grid_x, 1, 1};
  k.block = {kind.block_x, 1, 1};
  k.name = kind.name;
  return k;
}

}  // namespace

auto synthetic_kernels(const ProfileOptions& o) -> std::vector<core::KernelRecord> {
  constexpr KernelKind kAllReduce{"synthetic_allreduce_ring", 0, 1'500'000, 32, 512};
  std::vector<core::KernelRecord> out;
  const auto end_ns = static_cast<std::int64_t>(o.seconds * static_cast<double>(core::kNsPerS));
  std::uint64_t correlation = 0;
  for (std::uint32_t gpu = 0; gpu < o.devices; ++gpu) {
    std::uint64_t gemms = 0;
    for (std::int64_t t = 0; t < end_ns;) {
      const int phase = phase_at(o, gpu, static_cast<double>(t) / static_cast<double>(core::kNsPerS));
      const KernelKind& kind = kKinds[phase];
      if (phase != 0 && t + kind.duration_ns <= end_ns) {
        out.push_back(record(gpu, o.start_ns + t, kind.duration_ns, 7, ++correlation, kind));
        if (phase == 1 && gemms++ % 4 == 3) {  // overlaps the GEMM's last 1 ms and runs 0.5 ms past it
          out.push_back(
              record(gpu, o.start_ns + t + 3'000'000, kAllReduce.duration_ns, 14, ++correlation, kAllReduce));
        }
      }
      t += kind.period_ns;
    }
  }
  return out;
}

}  // namespace solscope::synthetic
