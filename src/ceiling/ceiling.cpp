#include "ceiling/ceiling.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ceiling/efficiency.hpp"
#include "core/units.hpp"

namespace solscope::ceiling {
namespace {

constexpr double kSecondsPerUs = 1e-6;
constexpr double kPercent = 100.0;

auto slot(Limiter l) -> std::size_t {
  return static_cast<std::size_t>(l);
}

/// What costing needs besides the operator.
struct CostContext {
  const GpuSpec& gpu;
  const ArchEfficiency& arch;
  const CollectiveModel& collective;
  double clock_mhz = 0;
  double t0_s = 0;
  bool training = false;
  int tp = 1;
};

/// Adds `count` kernels of t = t0 + max(compute, memory) each (2.5 items 2-3).
void add_kernels(OpCost& c, double count, double compute_s, double memory_s, double t0_s) {
  c.kernels += count;
  c.time_by_limiter_s[slot(Limiter::Overhead)] += count * t0_s;
  if (compute_s >= memory_s) {
    c.time_by_limiter_s[slot(Limiter::Compute)] += count * compute_s;
  } else {
    c.time_by_limiter_s[slot(Limiter::Memory)] += count * memory_s;
  }
}

/// GEMMs: forward, and for training the input-gradient and weight-gradient products (2.3: backward = 2x
/// forward).
void cost_gemm(const Op& op, const CostContext& x, OpCost& c) {
  const double peak = peak_flops_per_s(x.gpu, op.math, x.clock_mhz);
  const double eta = x.arch.matmul_efficiency[index_of(op.math)];
  const GemmShape& f = op.gemm;
  const std::array<GemmShape, 3> passes{f, GemmShape{f.m, f.k, f.n, f.groups},
                                        GemmShape{f.n, f.k, f.m, f.groups}};
  const std::size_t count = x.training ? passes.size() : 1;
  const double memory_s = memory_time_s(op.bytes, x.gpu);
  for (std::size_t i = 0; i < count; ++i) {
    const GemmTiling tiling = gemm_tiling(passes[i], x.arch, x.gpu.sm_count);
    const double compute_s =
        tiling.padded_flops > 0 ? tiling.padded_flops / (tiling.wave_efficiency * peak * eta) : 0.0;
    add_kernels(c, op.instances, compute_s, memory_s, x.t0_s);
    c.padded_flops += op.instances * tiling.padded_flops;
    c.busy_s += op.instances * tiling.padded_flops / peak;
  }
  const auto n = static_cast<double>(count);
  c.flops += op.instances * op.flops * n;
  c.dram_bytes += op.instances * op.bytes * n;
  c.weight_bytes += op.instances * op.weight_bytes * n;
}

/// Attention and memory kernels: a forward kernel and, when training, a backward one with twice the work [G].
void cost_streaming(const Op& op, const CostContext& x, OpCost& c) {
  const double peak = peak_flops_per_s(x.gpu, op.math, x.clock_mhz);
  const double eff = x.arch.attention_efficiency;
  const std::array<double, 2> scale{1.0, 2.0};
  const std::size_t count = x.training ? 2 : 1;
  for (std::size_t i = 0; i < count; ++i) {
    const double flops = op.flops * scale[i];
    const double bytes = op.bytes * scale[i];
    const double compute_s = flops > 0 ? flops / (peak * eff) : 0.0;
    add_kernels(c, op.instances, compute_s, memory_time_s(bytes, x.gpu), x.t0_s);
    c.flops += op.instances * flops;
    c.padded_flops += op.instances * flops;  // P_causal already counts the diagonal tiles' waste (2.1)
    c.busy_s += flops > 0 ? op.instances * flops / peak : 0.0;
    c.dram_bytes += op.instances * bytes;
  }
}

void cost_collective(const Op& op, const CostContext& x, OpCost& c) {
  const double count = op.instances * (x.training ? 2.0 : 1.0);
  c.kernels += count;
  c.time_by_limiter_s[slot(Limiter::Interconnect)] +=
      count * all_reduce_time_s(op.collective_bytes, x.tp, x.gpu, x.collective);
  c.dram_bytes += count * op.bytes;
}

auto largest(const std::array<double, kLimiterCount>& times) -> Limiter {
  const auto it = std::max_element(times.begin(), times.end());
  return static_cast<Limiter>(it - times.begin());
}

/// Costs every operator and merges rows of the same name (layer groups) in first-seen order.
auto cost_ops(const std::vector<Op>& ops, const CostContext& x, double& model_flops) -> std::vector<OpCost> {
  std::vector<OpCost> rows;
  rows.reserve(ops.size());
  model_flops = 0;
  for (const Op& op : ops) {
    auto it = std::find_if(rows.begin(), rows.end(), [&](const OpCost& r) { return r.name == op.name; });
    if (it == rows.end()) {
      rows.push_back(OpCost{.name = op.name, .kind = op.kind, .math = op.math});
      it = rows.end() - 1;
    }
    const double flops_before = it->flops;
    switch (op.kind) {
      case OpKind::Gemm:
        cost_gemm(op, x, *it);
        break;
      case OpKind::Attention:
      case OpKind::Memory:
        cost_streaming(op, x, *it);
        break;
      case OpKind::Collective:
        cost_collective(op, x, *it);
        break;
    }
    model_flops += (it->flops - flops_before) * (op.sharded ? static_cast<double>(x.tp) : 1.0);
  }
  for (OpCost& r : rows) {
    for (double t : r.time_by_limiter_s) r.time_s += t;
    r.limiter = largest(r.time_by_limiter_s);
  }
  return rows;
}

/// Weights and KV cache held per GPU, and a note when they exceed its memory.
void add_residency(const ModelArch& arch, const Workload& w, const Precision& p, const GpuSpec& gpu,
                   Ceiling& c) {
  const ParamCounts params = count_params(arch);
  const double tp = w.tensor_parallel;
  for (std::size_t m = 0; m < kModuleCount; ++m) {
    c.resident_weight_bytes += params.by_module[m] * p.weight_bytes[m] / tp;
  }
  const double kv_share = arch.mla ? 1.0
                                   : std::max(1.0, static_cast<double>(arch.num_kv_heads) / tp) /
                                         static_cast<double>(arch.num_kv_heads);
  for (const RequestGroup& g : w.step.groups) {
    if (w.step.training) break;  // a training step holds activations, not a KV cache
    const auto tokens = static_cast<double>(g.cached_tokens + g.new_tokens);
    c.resident_kv_bytes +=
        static_cast<double>(g.requests) * kv_bytes_per_sequence(arch, tokens, p.kv_bytes) * kv_share;
  }
  const double need = c.resident_weight_bytes + c.resident_kv_bytes;
  if (need > gpu.memory_bytes) {
    c.notes.push_back(
        "does not fit: weights " + std::to_string(std::lround(c.resident_weight_bytes / core::kGiga)) +
        " GB + KV cache " + std::to_string(std::lround(c.resident_kv_bytes / core::kGiga)) +
        " GB per GPU exceed the " + std::to_string(std::lround(gpu.memory_bytes / core::kGiga)) + " GB of " +
        gpu.id + " (raise --tp or lower the batch)");
  }
}

void add_notes(const ModelArch& arch, const Workload& w, Precision& p, Ceiling& c) {
  c.notes.insert(c.notes.end(), arch.notes.begin(), arch.notes.end());
  c.notes.insert(c.notes.end(), std::make_move_iterator(p.notes.begin()),
                 std::make_move_iterator(p.notes.end()));
  if (arch.is_moe())
    c.notes.push_back("MoE experts touched assume uniform routing; skewed routing reads fewer");
  if (arch.mla && c.tokens.decode_only)
    c.notes.push_back("MLA decode modelled in the absorbed (latent) form");
  if (w.step.training)
    c.notes.push_back("train step: forward + backward, no optimizer update or gradient all-reduce");
}

}  // namespace

auto to_string(Limiter limiter) -> std::string_view {
  switch (limiter) {
    case Limiter::Compute:
      return "compute";
    case Limiter::Memory:
      return "memory";
    case Limiter::Overhead:
      return "kernel_overhead";
    case Limiter::Interconnect:
      return "interconnect";
    case Limiter::kCount:
      break;
  }
  return "unknown";
}

auto evaluate(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch, const Workload& workload)
    -> core::Result<Ceiling> {
  const double clock = std::isnan(workload.sm_clock_mhz) ? gpu.tensor_spec_clock_mhz : workload.sm_clock_mhz;
  if (!(clock >= kMinSmClockMhz && clock <= kMaxSmClockMhz)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "SM clock " + std::to_string(clock) + " MHz is out of range", "use 1 to 10000 MHz");
  }
  if (workload.tensor_parallel > 1 && all_reduce_bus_bytes_per_s(gpu, db.collective) <= 0) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      gpu.id + " has no GPU-GPU or host link in the spec file",
                      "use --tp 1, or add link_bidir_gb_per_s to the spec file");
  }
  auto precision = resolve_precision(arch, workload, gpu);
  if (!precision) return core::propagate(precision);
  const ArchEfficiency& arch_eff = db.arch_of(gpu);
  auto ops = build_ops(arch, workload, *precision, arch_eff);
  if (!ops) return core::propagate(ops);
  const CostContext ctx{gpu,
                        arch_eff,
                        db.collective,
                        clock,
                        gpu.kernel_overhead_us * kSecondsPerUs,
                        workload.step.training,
                        workload.tensor_parallel};
  Ceiling c;
  c.ops = cost_ops(*ops, ctx, c.model_flops);
  c.sm_clock_mhz = clock;
  c.main_math = precision->main_math;
  c.peak_flops_per_s = peak_flops_per_s(gpu, c.main_math, clock);
  c.peak_memory_bytes_per_s = gpu.memory_bandwidth_bytes_per_s;
  c.tensor_parallel = workload.tensor_parallel;
  c.tokens = count_tokens(workload.step);
  for (const OpCost& r : c.ops) {
    c.step_time_s += r.time_s;
    c.busy_s += r.busy_s;
    c.flops += r.flops;
    c.padded_flops += r.padded_flops;
    c.dram_bytes += r.dram_bytes;
    c.weight_bytes += r.weight_bytes;
    for (std::size_t i = 0; i < kLimiterCount; ++i) c.time_by_limiter_s[i] += r.time_by_limiter_s[i];
  }
  c.limiter = largest(c.time_by_limiter_s);
  c.compute_sol_pct = c.busy_s / c.step_time_s * kPercent;
  c.memory_sol_pct = c.dram_bytes / (c.peak_memory_bytes_per_s * c.step_time_s) * kPercent;
  c.tokens_per_s = c.tokens.computed / c.step_time_s;
  c.output_tokens_per_s = c.tokens.emitted / c.step_time_s;
  c.mfu_pct = mfu_pct(c, c.tokens_per_s);
  add_residency(arch, workload, *precision, gpu, c);
  add_notes(arch, workload, *precision, c);
  return c;
}

auto mfu_pct(const Ceiling& c, double measured_tokens_per_s) -> double {
  if (!std::isfinite(measured_tokens_per_s) || measured_tokens_per_s < 0 || c.tokens.computed <= 0 ||
      c.peak_flops_per_s <= 0) {
    return std::nan("");
  }
  const double per_token = c.model_flops / c.tokens.computed;
  return measured_tokens_per_s * per_token / (static_cast<double>(c.tensor_parallel) * c.peak_flops_per_s) *
         kPercent;
}

auto combine_steps(std::span<const WeightedStep> steps) -> core::Result<MixCeiling> {
  auto fail = [](std::string message) {
    return core::fail(core::ErrorCode::InvalidArgument, std::move(message), "give each step a weight >= 0");
  };
  if (steps.empty()) return fail("the step mix is empty");
  double busy = 0, time = 0, bytes_per_bw = 0;
  std::array<double, kLimiterCount> by_limiter{};
  for (const WeightedStep& s : steps) {
    if (s.step == nullptr) return fail("the step mix holds a null step");
    if (!std::isfinite(s.weight) || s.weight < 0) return fail("a step weight is negative or not finite");
    busy += s.weight * s.step->busy_s;
    time += s.weight * s.step->step_time_s;
    bytes_per_bw += s.weight * s.step->dram_bytes / s.step->peak_memory_bytes_per_s;
    for (std::size_t i = 0; i < kLimiterCount; ++i) by_limiter[i] += s.weight * s.step->time_by_limiter_s[i];
  }
  if (time <= 0) return fail("every step weight is 0");
  MixCeiling mix;
  mix.compute_sol_pct = busy / time * kPercent;
  mix.memory_sol_pct = bytes_per_bw / time * kPercent;
  for (std::size_t i = 0; i < kLimiterCount; ++i) mix.time_share[i] = by_limiter[i] / time;
  mix.limiter = largest(by_limiter);
  return mix;
}

}  // namespace solscope::ceiling
