#include "ceiling/detail/attention_cost.hpp"

#include <algorithm>
#include <cmath>

namespace solscope::ceiling {
namespace {

auto ratio(double work, double rate) -> double {
  return rate > 0 ? work / rate : 0.0;
}

}  // namespace

auto padded_query_rows(double rows, int query_tile) -> double {
  if (rows <= 0) return 0.0;
  const double tile = std::max(query_tile, 1);
  return std::ceil(rows / tile) * tile;
}

auto attention_compute(const AttentionFlops& a, double scale, const AttentionKernels& kernels,
                       const GpuSpec& gpu, double sm_clock_mhz) -> AttentionCompute {
  const AttentionKernel& decode = a.mla ? kernels.mla_decode : kernels.decode;
  const double peak_p = peak_flops_per_s(gpu, a.prefill_math, sm_clock_mhz);
  const double peak_d = peak_flops_per_s(gpu, a.decode_math, sm_clock_mhz);
  const double eff_p = kernels.prefill.efficiency[index_of(a.prefill_math)];
  const double eff_d = decode.efficiency[index_of(a.decode_math)];
  const double prefill = a.prefill * scale;
  const double padded = a.decode_padded * scale;
  AttentionCompute c;
  c.padded_flops = prefill + padded;
  c.busy_s = ratio(prefill, peak_p) + ratio(padded, peak_d);
  c.compute_s = ratio(prefill, peak_p * eff_p) + ratio(padded, peak_d * eff_d);
  return c;
}

}  // namespace solscope::ceiling
