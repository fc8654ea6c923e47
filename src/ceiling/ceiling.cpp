#include "ceiling/ceiling.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ceiling/detail/attention_cost.hpp"
#include "ceiling/detail/efficiency.hpp"
#include "ceiling/detail/gemm_family.hpp"
#include "ceiling/parallel.hpp"
#include "core/enum_table.hpp"
#include "core/units.hpp"

namespace solscope::ceiling {
namespace {

/// Tolerance when comparing bytes per weight with bytes per math element.
constexpr double kDequantByteSlack = 1e-9;

auto slot(Limiter l) -> std::size_t {
  return static_cast<std::size_t>(l);
}

/// What costing needs besides the operator.
struct CostContext {
  const GpuSpec& gpu;
  const ArchEfficiency& arch;
  const CollectiveModel& collective;
  const Precision& precision;
  const ParallelLayout& layout;
  double clock_mhz = 0;
  double t0_s = 0;
  bool training = false;
  int tp = 1;
};

/// A weight-only kernel (AWQ/GPTQ-Marlin, MXFP4 on Hopper, FP8 on Ampere) stores weights in fewer bytes
/// than its math dtype and dequantises them in registers (2.7).
auto dequantises(const Op& op, const Precision& p) -> bool {
  return op.weight_bytes > 0 &&
         p.weight_bytes[index_of(op.module)] < bytes_per_element(op.math) - kDequantByteSlack;
}

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
/// forward). Each pass runs the kernel family of its shape (2.7): a GEMV's FLOPs run on the FP32 pipe and add
/// no tensor-busy time; the weight-gradient pass has the tokens on K, so it is never routed.
void cost_gemm(const Op& op, const CostContext& x, OpCost& c) {
  const double peak = peak_flops_per_s(x.gpu, op.math, x.clock_mhz);
  const double fma_peak = peak_flops_per_s(x.gpu, Dtype::Fp32, x.clock_mhz);
  const double eta = x.arch.matmul_efficiency[index_of(op.math)];
  const GemmShape& f = op.gemm;
  const std::array<GemmShape, 3> passes{f, GemmShape{f.m, f.k, f.n, f.groups},
                                        GemmShape{f.n, f.k, f.m, f.groups}};
  const std::array<ExpertRouting, 3> routes{op.routing, op.routing, ExpertRouting{}};
  const std::size_t count = x.training ? passes.size() : 1;
  const double memory_s = memory_time_s(op.bytes, x.gpu);
  const bool dequant = dequantises(op, x.precision);
  for (std::size_t i = 0; i < count; ++i) {
    const bool dequant_pass = dequant && i == 0;
    const GemmTiling tiling = family_tiling(passes[i], routes[i], x.arch, x.gpu.sm_count, dequant_pass);
    const double dequant_s =
        dequant_pass ? dequant_alu_ops(passes[i], tiling) / alu_ops_per_s(x.gpu, x.clock_mhz) : 0.0;
    const double tensor_s =
        tiling.padded_flops > 0 ? tiling.padded_flops / (tiling.wave_efficiency * peak * eta) : 0.0;
    const double fma_s = tiling.fma_flops > 0 && fma_peak > 0 ? tiling.fma_flops / fma_peak : 0.0;
    // Marlin-style kernels pipeline the dequantisation of the next weight tile with the MMAs of the current
    // one, so the two overlap (2.7, weight-only row).
    const double compute_s = std::max(tensor_s + fma_s, dequant_s);
    c.dequant_s += op.instances * dequant_s;
    if (i == 0) c.kernel_family = to_string(tiling.family);
    add_kernels(c, op.instances, compute_s, memory_s, x.t0_s);
    c.padded_flops += op.instances * tiling.padded_flops;
    c.busy_s += op.instances * tiling.padded_flops / peak;
  }
  const auto n = static_cast<double>(count);
  c.flops += op.instances * op.flops * n;
  c.dram_bytes += op.instances * op.bytes * n;
  c.weight_bytes += op.instances * op.weight_bytes * n;
}

/// Passes of a streaming kernel: the forward one and, when training, a backward one with twice the work [G].
constexpr std::array<double, 2> kStreamingPassScale{1.0, 2.0};

/// Attention: prefill chunks at the prefill family's efficiency, decode requests' padded tensor work at the
/// decode (or MLA-decode) family's, each at its math dtype's peak, against the KV and Q/O bytes (2.5 item 4,
/// 2.7). P_causal already counts the diagonal tiles' waste (2.1).
void cost_attention(const Op& op, const CostContext& x, OpCost& c) {
  const std::size_t count = x.training ? 2 : 1;
  for (std::size_t i = 0; i < count; ++i) {
    const double scale = kStreamingPassScale[i];
    const AttentionCompute a =
        attention_compute(op.attention, scale, x.arch.attention_kernels, x.gpu, x.clock_mhz);
    const double bytes = op.bytes * scale;
    add_kernels(c, op.instances, a.compute_s, memory_time_s(bytes, x.gpu), x.t0_s);
    c.flops += op.instances * op.flops * scale;
    c.padded_flops += op.instances * a.padded_flops;
    c.busy_s += op.instances * a.busy_s;
    c.dram_bytes += op.instances * bytes;
  }
}

/// Memory-bound kernels (norms, RoPE, activations, KV writes): bytes only.
void cost_memory(const Op& op, const CostContext& x, OpCost& c) {
  const std::size_t count = x.training ? 2 : 1;
  for (std::size_t i = 0; i < count; ++i) {
    const double bytes = op.bytes * kStreamingPassScale[i];
    add_kernels(c, op.instances, 0.0, memory_time_s(bytes, x.gpu), x.t0_s);
    c.dram_bytes += op.instances * bytes;
  }
}

/// Exposed time of one collective: its transfer time less the overlapped share (2.8).
auto collective_time_s(const Op& op, const CostContext& x) -> double {
  const CollectiveModel& m = x.collective;
  switch (op.collective) {
    case CollectiveKind::AllReduce:
      return all_reduce_time_s(op.collective_bytes, x.tp, x.gpu, m) * (1.0 - m.all_reduce_overlap);
    case CollectiveKind::AllToAll:
      return all_to_all_time_s(op.collective_bytes, x.layout.ep, x.gpu, m) * (1.0 - m.all_to_all_overlap);
    case CollectiveKind::SendRecv:
      return send_time_s(op.collective_bytes, x.gpu, m);
  }
  return 0.0;
}

void cost_collective(const Op& op, const CostContext& x, OpCost& c) {
  const double count = op.instances * (x.training ? 2.0 : 1.0);
  c.kernels += count;
  c.time_by_limiter_s[slot(Limiter::Interconnect)] += count * collective_time_s(op, x);
  c.dram_bytes += count * op.bytes;
  c.collective_bytes += count * op.collective_bytes;
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
        cost_attention(op, x, *it);
        break;
      case OpKind::Memory:
        cost_memory(op, x, *it);
        break;
      case OpKind::Collective:
        cost_collective(op, x, *it);
        break;
    }
    const double tp_rule = (op.sharded ? static_cast<double>(x.tp) : 1.0) * x.layout.dp;
    model_flops += (it->flops - flops_before) * (op.group_multiplier > 0 ? op.group_multiplier : tp_rule);
  }
  for (OpCost& r : rows) {
    for (double t : r.time_by_limiter_s) r.time_s += t;
    r.limiter = largest(r.time_by_limiter_s);
  }
  return rows;
}

/// "84.1": bytes as GB with one decimal.
auto gb_text(double bytes) -> std::string {
  const long tenths = std::lround(bytes / core::kGiga * 10.0);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}

/// Weights per GPU (2.8): experts split ep ways under EP (else tp ways), everything else tp ways; a pipeline
/// stage holds its share of the layers and, conservatively, both the embedding and the LM head [G].
void add_weights(const ModelArch& arch, const Precision& p, const ParallelLayout& l, Ceiling& c) {
  const ParamCounts params = count_params(arch);
  for (std::size_t m = 0; m < kModuleCount; ++m) {
    const auto module = static_cast<Module>(m);
    const bool ends = module == Module::Embedding || module == Module::LmHead;
    const bool experts = module == Module::Experts;
    const double split = experts && l.ep > 1 ? l.ep : l.tp;
    const double bytes = params.by_module[m] * p.weight_bytes[m] / split * (ends ? 1.0 : l.layer_fraction);
    c.resident_weight_bytes += bytes;
    if (experts) c.resident_expert_bytes = bytes;
  }
  c.experts_per_gpu = arch.is_moe() ? static_cast<double>(arch.num_experts) / l.ep : 0.0;
}

/// KV cache of one attention rank's requests (all microbatches in flight) on its stage's layers: each
/// layer kind's KV heads split over TP (kv_bytes_per_sequence_per_gpu), plus the linear-attention layers'
/// recurrent state per request, split tp ways like their value heads.
void add_kv(const ModelArch& arch, const Workload& w, const Precision& p, const ParallelLayout& l,
            Ceiling& c) {
  if (w.step.training) return;  // a training step holds activations, not a KV cache
  const double state = recurrent_state_bytes_per_request(arch, bytes_per_element(p.activation)) / l.tp;
  for (const RequestGroup& g : rank_step(w.step, l.dp).groups) {
    const auto tokens = static_cast<double>(g.cached_tokens + g.new_tokens);
    const double per_request = kv_bytes_per_sequence_per_gpu(arch, tokens, p.kv_bytes, l.tp) + state;
    c.resident_kv_bytes += static_cast<double>(g.requests) * per_request * l.layer_fraction;
  }
}

/// Weights, KV cache and activations held per GPU against its memory less the reserve (2.8); flags and
/// notes "does not fit" with the numbers.
void add_residency(const ModelArch& arch, const Workload& w, const Precision& p, const ParallelLayout& l,
                   const std::vector<Op>& ops, const GpuDatabase& db, const GpuSpec& gpu, Ceiling& c) {
  add_weights(arch, p, l, c);
  add_kv(arch, w, p, l, c);
  double widest = 0;  // input + output of the largest GEMM, the activations live at its peak [G]
  for (const Op& op : ops) {
    if (op.kind == OpKind::Gemm) widest = std::max(widest, op.bytes - op.weight_bytes);
  }
  // The residual stream of one microbatch on this GPU: T x h x b_a.
  const double tokens = count_tokens(rank_step(w.step, l.dp * l.microbatches)).computed;
  const double stream = tokens * static_cast<double>(arch.hidden_size) * bytes_per_element(p.activation);
  c.resident_activation_bytes = widest + stream;
  c.memory_need_bytes = c.resident_weight_bytes + c.resident_kv_bytes + c.resident_activation_bytes;
  c.memory_usable_bytes = gpu.memory_bytes * (1.0 - db.memory_reserve_fraction);
  c.fits = c.memory_need_bytes <= c.memory_usable_bytes;
  if (c.fits) return;
  c.notes.push_back(std::string(kDoesNotFitNote) + ": weights " + gb_text(c.resident_weight_bytes) +
                    " GB + KV cache " + gb_text(c.resident_kv_bytes) + " GB + activations " +
                    gb_text(c.resident_activation_bytes) + " GB = " + gb_text(c.memory_need_bytes) +
                    " GB per GPU exceed the " + gb_text(c.memory_usable_bytes) + " GB usable of " + gpu.id +
                    " (" + gb_text(gpu.memory_bytes) + " GB less a " +
                    std::to_string(std::lround(db.memory_reserve_fraction * core::kPercent)) +
                    "% reserve); raise --tp, --ep or --pp, or lower the batch");
}

/// Multiplies a GPU's per-microbatch rows by the microbatches of the step (2.8).
void scale_rows(std::vector<OpCost>& rows, double m) {
  if (m == 1.0) return;
  for (OpCost& r : rows) {
    for (double* v : {&r.kernels, &r.flops, &r.padded_flops, &r.dram_bytes, &r.weight_bytes, &r.busy_s,
                      &r.time_s, &r.dequant_s, &r.collective_bytes}) {
      *v *= m;
    }
    for (double& t : r.time_by_limiter_s) t *= m;
  }
}

/// The idle time of a pipeline: (pp - 1) microbatch times, in a row of its own (2.8).
void add_bubble(const ParallelLayout& l, Ceiling& c) {
  if (l.pp <= 1 || l.microbatches <= 0) return;
  const double bubble_s = c.step_time_s / l.microbatches * (l.pp - 1);
  OpCost row{.name = "pipeline_bubble", .kind = OpKind::Memory};
  row.time_s = bubble_s;
  row.time_by_limiter_s[slot(Limiter::Overhead)] = bubble_s;
  row.limiter = Limiter::Overhead;
  c.ops.push_back(row);
  c.step_time_s += bubble_s;
  c.time_by_limiter_s[slot(Limiter::Overhead)] += bubble_s;
}

/// Says at which rate attention runs when the KV cache is FP8 (2.5 item 4): FP8 where a kernel family of
/// the architecture runs FP8 math, else dequantised to the activation dtype.
void add_attention_math_note(const Precision& p, Ceiling& c) {
  if (p.kv != Dtype::Fp8) return;
  const bool fp8 = std::any_of(c.ops.begin(), c.ops.end(), [](const OpCost& r) {
    return r.kind == OpKind::Attention && r.math == Dtype::Fp8;
  });
  c.notes.push_back(
      fp8 ? "FP8 KV cache: attention modelled at the FP8 tensor rate (the fastest kernel the GPU "
            "supports: FlashAttention-3 FP8, TensorRT-LLM FP8 context FMHA)"
          : "FP8 KV cache: attention dequantises K and V and runs " + std::string(to_string(p.activation)) +
                " math");
}

void add_notes(const ModelArch& arch, const Workload& w, Precision& p, Ceiling& c) {
  c.notes.insert(c.notes.end(), arch.notes.begin(), arch.notes.end());
  c.notes.insert(c.notes.end(), std::make_move_iterator(p.notes.begin()),
                 std::make_move_iterator(p.notes.end()));
  if (arch.is_moe())
    c.notes.push_back("MoE experts touched assume uniform routing; skewed routing reads fewer");
  if (arch.mla && c.tokens.decode_only)
    c.notes.push_back("MLA decode modelled in the absorbed (latent) form");
  add_attention_math_note(p, c);
  if (w.step.training)
    c.notes.push_back("train step: forward + backward, no optimizer update or gradient all-reduce");
}

void add_parallel_notes(const GpuDatabase& db, const ParallelLayout& l, const Step& step, Ceiling& c) {
  const int divisor = l.dp * l.microbatches;
  for (const RequestGroup& g : step.groups) {
    if (g.requests % divisor != 0) {
      c.notes.push_back("requests do not divide evenly over " + std::to_string(l.dp) + " attention ranks x " +
                        std::to_string(l.microbatches) +
                        " microbatches: each share is rounded up (conservative)");
      break;
    }
  }
  if (l.pp > 1) {
    c.notes.push_back("pipeline: " + std::to_string(l.pp) + " stages, " + std::to_string(l.microbatches) +
                      " microbatches, bubble " +
                      std::to_string(std::lround(l.bubble_fraction * core::kPercent)) + "% of the step");
  }
  if (l.ep > 1) {
    c.notes.push_back("expert parallel: " + std::to_string(l.ep) + " GPUs, " +
                      std::to_string(std::lround(c.experts_per_gpu)) + " experts each; " +
                      std::to_string(std::lround(db.collective.all_to_all_overlap * core::kPercent)) +
                      "% of the all-to-all time assumed hidden behind compute");
  }
}

auto check_clock_and_links(const GpuDatabase& db, const GpuSpec& gpu, const ParallelLayout& l, double clock)
    -> core::Result<void> {
  if (!(clock >= kMinSmClockMhz && clock <= kMaxSmClockMhz)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "SM clock " + std::to_string(clock) + " MHz is out of range", "use 1 to 10000 MHz");
  }
  if ((l.tp > 1 || l.ep > 1 || l.pp > 1) && all_reduce_bus_bytes_per_s(gpu, db.collective) <= 0) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      gpu.id + " has no GPU-GPU or host link in the spec file",
                      "use --tp 1 --ep 1 --pp 1, or add link_bidir_gb_per_s to the spec file");
  }
  return core::ok();
}

/// Step totals, SOL figures and speeds from the costed rows (2.6, 2.7).
void sum_rows(const ParallelLayout& l, Ceiling& c) {
  for (const OpCost& r : c.ops) {
    c.step_time_s += r.time_s;
    c.busy_s += r.busy_s;
    c.flops += r.flops;
    c.padded_flops += r.padded_flops;
    c.dram_bytes += r.dram_bytes;
    c.weight_bytes += r.weight_bytes;
    c.dequant_s += r.dequant_s;
    if (r.name == "ep_dispatch" || r.name == "ep_combine") c.all_to_all_bytes += r.collective_bytes;
    for (std::size_t i = 0; i < kLimiterCount; ++i) c.time_by_limiter_s[i] += r.time_by_limiter_s[i];
  }
  add_bubble(l, c);
  c.limiter = largest(c.time_by_limiter_s);
  c.tensor_activity_pct = c.busy_s / c.step_time_s * core::kPercent;
  c.compute_sol_pct = c.tensor_activity_pct;
  c.memory_sol_pct = c.dram_bytes / (c.peak_memory_bytes_per_s * c.step_time_s) * core::kPercent;
  c.tokens_per_s = c.tokens.computed / c.step_time_s;
  c.output_tokens_per_s = c.tokens.emitted / c.step_time_s;
  c.useful_busy_s = c.model_flops / (static_cast<double>(c.gpus_per_stage) * c.peak_flops_per_s);
  c.useful_compute_sol_pct = c.useful_busy_s / c.step_time_s * core::kPercent;
  c.mfu_pct = mfu_pct(c, c.tokens_per_s);
}

}  // namespace

auto evaluate(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch, const Workload& workload)
    -> core::Result<Ceiling> {
  const double clock = std::isnan(workload.sm_clock_mhz) ? gpu.tensor_spec_clock_mhz : workload.sm_clock_mhz;
  auto layout = parallel_layout(arch, workload);
  if (!layout) return core::propagate(layout);
  if (auto ok = check_clock_and_links(db, gpu, *layout, clock); !ok) return core::propagate(ok);
  auto precision = resolve_precision(arch, workload, gpu);
  if (!precision) return core::propagate(precision);
  const ArchEfficiency& arch_eff = db.arch_of(gpu);
  if (auto step = validate_step(workload.step); !step) return core::propagate(step);
  Workload local = workload;  // what one GPU runs per microbatch
  local.step = rank_step(workload.step, layout->dp * layout->microbatches);
  auto ops = build_ops(arch, local, *precision, arch_eff);
  if (!ops) return core::propagate(ops);
  const CostContext ctx{gpu,
                        arch_eff,
                        db.collective,
                        *precision,
                        *layout,
                        clock,
                        gpu.kernel_overhead_us * core::kMicro,
                        workload.step.training,
                        workload.tensor_parallel};
  Ceiling c;
  c.ops = cost_ops(*ops, ctx, c.model_flops);
  scale_rows(c.ops, layout->microbatches);
  c.model_flops *= layout->microbatches;
  c.sm_clock_mhz = clock;
  c.main_math = precision->main_math;
  c.dtypes = precision->dtypes;
  c.peak_flops_per_s = peak_flops_per_s(gpu, c.main_math, clock);
  c.peak_memory_bytes_per_s = gpu.memory_bandwidth_bytes_per_s;
  c.tensor_parallel = workload.tensor_parallel;
  c.expert_parallel = layout->ep;
  c.attention_dp = layout->dp;
  c.pipeline_parallel = layout->pp;
  c.microbatches = layout->microbatches;
  c.gpus_per_stage = layout->gpus_per_stage;
  c.gpus = layout->gpus;
  c.bubble_fraction = layout->bubble_fraction;
  c.tokens = count_tokens(workload.step);
  sum_rows(*layout, c);
  add_residency(arch, workload, *precision, *layout, *ops, db, gpu, c);
  add_notes(arch, workload, *precision, c);
  add_parallel_notes(db, *layout, workload.step, c);
  return c;
}

auto mfu_pct(const Ceiling& c, double measured_tokens_per_s) -> double {
  if (!std::isfinite(measured_tokens_per_s) || measured_tokens_per_s < 0 || c.tokens.computed <= 0 ||
      c.peak_flops_per_s <= 0) {
    return std::nan("");
  }
  const double per_token = c.model_flops / c.tokens.computed;
  return measured_tokens_per_s * per_token / (static_cast<double>(c.gpus_per_stage) * c.peak_flops_per_s) *
         core::kPercent;
}

auto combine_steps(std::span<const WeightedStep> steps) -> core::Result<MixCeiling> {
  auto fail = [](std::string message) {
    return core::fail(core::ErrorCode::InvalidArgument, std::move(message), "give each step a weight >= 0");
  };
  if (steps.empty()) return fail("the step mix is empty");
  double busy = 0, useful = 0, time = 0, bytes_per_bw = 0;
  std::array<double, kLimiterCount> by_limiter{};
  for (const WeightedStep& s : steps) {
    if (s.step == nullptr) return fail("the step mix holds a null step");
    if (!std::isfinite(s.weight) || s.weight < 0) return fail("a step weight is negative or not finite");
    busy += s.weight * s.step->busy_s;
    useful += s.weight * s.step->useful_busy_s;
    time += s.weight * s.step->step_time_s;
    bytes_per_bw += s.weight * s.step->dram_bytes / s.step->peak_memory_bytes_per_s;
    for (std::size_t i = 0; i < kLimiterCount; ++i) by_limiter[i] += s.weight * s.step->time_by_limiter_s[i];
  }
  if (time <= 0) return fail("every step weight is 0");
  MixCeiling mix;
  mix.tensor_activity_pct = busy / time * core::kPercent;
  mix.compute_sol_pct = mix.tensor_activity_pct;
  mix.useful_compute_sol_pct = useful / time * core::kPercent;
  mix.memory_sol_pct = bytes_per_bw / time * core::kPercent;
  for (std::size_t i = 0; i < kLimiterCount; ++i) mix.time_share[i] = by_limiter[i] / time;
  mix.limiter = largest(by_limiter);
  return mix;
}

}  // namespace solscope::ceiling
