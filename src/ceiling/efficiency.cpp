#include "ceiling/detail/efficiency.hpp"

#include <algorithm>
#include <cmath>

#include "core/enum_table.hpp"
#include "core/units.hpp"

namespace solscope::ceiling {

constexpr core::EnumNames<GemmFamily> kFamilyNames({"tokens_on_m", "swap_ab", "gemv", "moe_grouped",
                                                    "weight_only"},
                                                   "unknown");

auto to_string(GemmFamily family) -> std::string_view {
  return kFamilyNames(family);
}

auto token_tile_for(double m, const std::vector<int>& tiles) -> int {
  int best = 128;
  double best_rows = INFINITY;
  for (int tile : tiles) {  // ascending: a larger tile wins a tie (fewer tiles, same padding)
    const double rows = std::ceil(m / tile) * tile;
    if (tile > 0 && rows <= best_rows) {
      best = tile;
      best_rows = rows;
    }
  }
  return best;
}

void schedule_tiles(GemmTiling& t, double k, int sm_count) {
  const double sms = sm_count;
  t.split_k = 1;
  if (t.tiles > 0 && t.tiles < sms) {
    t.split_k = std::max(1.0, std::min(std::floor(sms / t.tiles), std::floor(k / kMinSplitK)));
  }
  const double work = t.tiles * t.split_k;
  t.waves = std::ceil(work / sms);
  t.wave_efficiency = t.waves > 0 ? work / (t.waves * sms) : 0.0;
}

auto gemm_tiling(const GemmShape& shape, const ArchEfficiency& arch, int sm_count) -> GemmTiling {
  GemmTiling t;
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0 || shape.groups <= 0 || sm_count <= 0) return t;
  t.token_tile = token_tile_for(shape.m, arch.gemm_token_tiles);
  t.feature_tile = std::max(arch.gemm_feature_tile, 1);
  const double tm = t.token_tile;
  const double tn = t.feature_tile;
  t.token_tiles = shape.groups * std::ceil(shape.m / tm);
  t.tiles = t.token_tiles * std::ceil(shape.n / tn);
  schedule_tiles(t, shape.k, sm_count);
  t.padded_flops = t.tiles * tm * tn * 2.0 * shape.k;
  return t;
}

auto memory_time_s(double bytes, const GpuSpec& gpu) -> double {
  return bytes / (gpu.memory_bandwidth_bytes_per_s * gpu.memory_efficiency);
}

auto all_reduce_bus_bytes_per_s(const GpuSpec& gpu, const CollectiveModel& model) -> double {
  const double link =
      gpu.link_bidir_bytes_per_s > 0 ? gpu.link_bidir_bytes_per_s : gpu.host_link_bidir_bytes_per_s;
  return link / 2.0 * model.bus_efficiency;
}

auto all_reduce_time_s(double bytes, int tp, const GpuSpec& gpu, const CollectiveModel& model) -> double {
  if (tp <= 1) return 0.0;
  const double t = tp;
  const double bus = all_reduce_bus_bytes_per_s(gpu, model);
  const double transfer = bus > 0 ? 2.0 * (t - 1.0) / t * bytes / bus : INFINITY;
  return model.latency_us * core::kMicro + transfer;
}

auto dequant_alu_ops(const GemmShape& shape, int token_tile) -> double {
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0 || shape.groups <= 0 || token_tile <= 0) return 0.0;
  return shape.groups * std::ceil(shape.m / token_tile) * shape.n * shape.k * kDequantOpsPerWeight;
}

auto dequant_alu_ops(const GemmShape& shape, const GemmTiling& tiling) -> double {
  if (shape.n <= 0 || shape.k <= 0) return 0.0;
  const double blocks = tiling.dequant_blocks > 0 ? tiling.dequant_blocks : tiling.token_tiles;
  return blocks * shape.n * shape.k * kDequantOpsPerWeight;
}

auto alu_ops_per_s(const GpuSpec& gpu, double sm_clock_mhz) -> double {
  return static_cast<double>(gpu.sm_count) * gpu.flop_per_clock_per_sm[index_of(Dtype::Fp32)] / 2.0 *
         sm_clock_mhz * core::kMega;
}

auto all_to_all_time_s(double bytes_sent, int ep, const GpuSpec& gpu, const CollectiveModel& model)
    -> double {
  if (ep <= 1) return 0.0;
  const double bus = all_reduce_bus_bytes_per_s(gpu, model);
  return model.latency_us * core::kMicro + (bus > 0 ? bytes_sent / bus : INFINITY);
}

auto send_time_s(double bytes, const GpuSpec& gpu, const CollectiveModel& model) -> double {
  const double bus = all_reduce_bus_bytes_per_s(gpu, model);
  return model.p2p_latency_us * core::kMicro + (bus > 0 ? bytes / bus : INFINITY);
}

}  // namespace solscope::ceiling
