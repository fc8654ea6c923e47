#include "ceiling/detail/operators.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ceiling/detail/op_builder.hpp"
#include "ceiling/parallel.hpp"
#include "core/enum_table.hpp"

namespace solscope::ceiling {
namespace {

auto supported(const GpuSpec& gpu, Dtype d) -> bool {
  return gpu.flop_per_clock_per_sm[index_of(d)] > 0;
}

auto check_tp(const ModelArch& arch, int tp) -> core::Result<void> {
  auto fail = [](std::string message) {
    return core::fail(core::ErrorCode::InvalidArgument, std::move(message),
                      "use a tensor-parallel degree that divides the attention heads");
  };
  if (tp < 1 || tp > kMaxTensorParallel) {
    return fail("tensor parallelism " + std::to_string(tp) + " is out of range (1 to " +
                std::to_string(kMaxTensorParallel) + ")");
  }
  const std::int64_t t = tp;
  if (arch.num_heads % t != 0) {
    return fail("tensor parallelism " + std::to_string(tp) + " does not divide the " +
                std::to_string(arch.num_heads) + " attention heads of " + arch.name);
  }
  if (!arch.mla && arch.num_kv_heads % t != 0 && t % arch.num_kv_heads != 0) {
    return fail("tensor parallelism " + std::to_string(tp) + " and the " + std::to_string(arch.num_kv_heads) +
                " key-value heads of " + arch.name + " do not divide one another");
  }
  return core::ok();
}

auto choice(Dtype dtype, DtypeSource source, std::string detail) -> DtypeChoice {
  return DtypeChoice{std::string(to_string(dtype)), source, std::move(detail)};
}

/// Where the activation dtype came from before any fallback: `--dtype` (other than fp8, which keeps the
/// checkpoint's 16-bit activations), else config.json, else the bf16 default.
auto activation_choice(const ModelArch& arch, const Workload& workload, Dtype activation) -> DtypeChoice {
  if (workload.dtype && *workload.dtype != Dtype::Fp8)
    return choice(activation, DtypeSource::Flag, "--dtype");
  if (arch.checkpoint_dtype_origin.empty()) {
    return choice(activation, DtypeSource::Default, "config.json names no torch_dtype");
  }
  return choice(activation, DtypeSource::Config, arch.checkpoint_dtype_origin);
}

/// Quantised weights: the storage format's first word ("nvfp4", "fp8", "int4"), the method, ModelOpt's
/// algorithm and the rest of the format as the detail ("fp8, block 128x128"), or `--dtype`.
auto quantised_weights_choice(const Quantization& q, bool from_flag) -> DtypeChoice {
  const std::string format = q.format.empty() ? q.method : q.format;
  const auto space = format.find(' ');
  DtypeChoice c{format.substr(0, space), from_flag ? DtypeSource::Flag : q.source, "--dtype"};
  if (from_flag) return c;
  c.detail = q.method + (q.algo.empty() ? "" : " " + q.algo);
  if (space != std::string::npos) c.detail += ", " + format.substr(space + 1);
  return c;
}

/// The KV-cache dtype `kv` and where it came from: `--kv-dtype`, `--dtype` (the activations'), the
/// checkpoint's quantisation files, else the activations'.
auto kv_choice(const ModelArch& arch, const Workload& workload, Dtype kv, const DtypeChoice& activations)
    -> DtypeChoice {
  if (workload.kv_dtype) return choice(kv, DtypeSource::Flag, "--kv-dtype");
  if (workload.dtype) return choice(kv, DtypeSource::Flag, "--dtype, as the activations");
  if (arch.kv_cache_dtype) return choice(kv, arch.kv_cache_source, arch.kv_cache_origin);
  DtypeChoice c = activations;
  c.detail += c.detail.empty() ? "as the activations" : ", as the activations";
  return c;
}

/// Applies a quantised format (the checkpoint's, or `--dtype fp8` when `from_flag`) to the modules it
/// converts: their bytes per weight, their GEMM math (native where the GPU reads the format, else the
/// activation dtype: 3.6), a note, and the weights' and GEMM math's provenance when the main weight group is
/// converted.
void apply_quantization(const Quantization& q, const ModelArch& arch, bool from_flag, const GpuSpec& gpu,
                        Precision& p) {
  // The math runs natively only where the GPU reads the stored format (3.6): MXFP4/NVFP4 need FP4.
  const Dtype needs = q.tensor_format == Dtype::Bf16 ? q.math : q.tensor_format;
  const bool native = q.math != Dtype::Bf16 && supported(gpu, needs);
  const Dtype math = native ? q.math : p.activation;
  const std::string format = q.format.empty() ? q.method : q.format;
  std::string note = format + " weights run " + std::string(to_string(math)) + " math on " + gpu.id;
  if (!native && q.math != Dtype::Bf16) {
    note += ": the GPU has no " + std::string(to_string(needs)) + " tensor rate, so the GEMMs dequantise";
  } else if (!native) {
    note += " (weight-only: the GEMMs dequantise)";
  }
  p.notes.push_back(std::move(note));
  for (std::size_t m = 0; m < kModuleCount; ++m) {
    if (!q.converted[m]) continue;
    p.weight_bytes[m] = q.bits_per_weight / 8.0;
    p.math[m] = math;
  }
  if (q.converted[index_of(arch.is_moe() ? Module::Experts : Module::DenseMlp)]) {
    p.dtypes.weights = quantised_weights_choice(q, from_flag);
    p.dtypes.gemm_math = DtypeChoice{std::string(to_string(math)), p.dtypes.weights.source,
                                     native ? p.dtypes.weights.detail : "weight-only: the GEMMs dequantise"};
    if (!native && q.math != Dtype::Bf16) {
      p.dtypes.gemm_math = choice(math, DtypeSource::Fallback,
                                  gpu.id + " has no " + std::string(to_string(needs)) + " tensor rate");
    }
  }
}

}  // namespace

constexpr core::EnumNames<OpKind, 4> kOpKindNames({"gemm", "attention", "memory", "collective"}, "unknown");

auto to_string(OpKind kind) -> std::string_view {
  return kOpKindNames(kind);
}

auto resolve_precision(const ModelArch& arch, const Workload& workload, const GpuSpec& gpu)
    -> core::Result<Precision> {
  Precision p;
  const Dtype base = workload.dtype.value_or(arch.checkpoint_dtype);
  if (!is_storage_dtype(base)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "weight dtype " + std::string(to_string(base)) + " is not modelled",
                      "use bf16, fp16, fp32 or fp8");
  }
  const bool fp8 = base == Dtype::Fp8;
  p.activation = fp8 ? (arch.checkpoint_dtype == Dtype::Fp16 ? Dtype::Fp16 : Dtype::Bf16) : base;
  p.dtypes.activations = activation_choice(arch, workload, p.activation);
  if (!supported(gpu, p.activation)) {
    const Dtype fallback = supported(gpu, Dtype::Fp16) ? Dtype::Fp16 : Dtype::Fp32;
    const std::string missing = gpu.id + " has no " + std::string(to_string(p.activation)) + " tensor rate";
    p.notes.push_back(missing + ": modelled in " + std::string(to_string(fallback)));
    p.activation = fallback;
    p.dtypes.activations = choice(fallback, DtypeSource::Fallback, missing);
  }
  p.dtypes.weights = p.dtypes.activations;
  p.dtypes.gemm_math = p.dtypes.activations;
  p.weight_bytes.fill(bytes_per_element(p.activation));
  p.math.fill(p.activation);
  Quantization q = arch.quant;
  if (workload.dtype) {
    q = Quantization{};
    if (fp8) {
      q.method = "fp8";
      q.bits_per_weight = 8;
      q.math = Dtype::Fp8;
      q.converted = linear_layer_modules();
    }
    if (!arch.quant.method.empty())
      p.notes.push_back("--dtype replaces quantization_config (" + arch.quant.method + ")");
  }
  if (q.bits_per_weight > 0) apply_quantization(q, arch, workload.dtype.has_value(), gpu, p);
  const Dtype kv =
      workload.kv_dtype.value_or(workload.dtype ? p.activation : arch.kv_cache_dtype.value_or(p.activation));
  if (!is_storage_dtype(kv)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "KV-cache dtype " + std::string(to_string(kv)) + " is not modelled",
                      "use bf16, fp16, fp32 or fp8");
  }
  p.kv = kv;
  p.kv_bytes = bytes_per_element(kv);
  p.fp8_tensor_rate = supported(gpu, Dtype::Fp8);
  p.dtypes.kv_cache = kv_choice(arch, workload, kv, p.dtypes.activations);
  p.main_math = p.math[index_of(arch.is_moe() ? Module::Experts : Module::DenseMlp)];
  return p;
}

auto attention_math(const Precision& precision, const AttentionKernel& family) -> Dtype {
  const bool fp8 = precision.kv == Dtype::Fp8 && family.fp8_math && precision.fp8_tensor_rate;
  return fp8 ? Dtype::Fp8 : precision.activation;
}

auto attention_work(const Step& step, std::int64_t window, int query_tile) -> AttentionWork {
  AttentionWork w;
  const double tile = static_cast<double>(std::max(query_tile, 1));
  const double cap = window > 0 ? static_cast<double>(window) : INFINITY;
  for (const RequestGroup& g : step.groups) {
    const auto n = static_cast<double>(g.requests);
    const auto q = static_cast<double>(g.new_tokens);
    const auto s = static_cast<double>(g.cached_tokens);
    // Query i (0-based) sees s + i + 1 keys, at most `cap`: m queries below the cap, the rest at it.
    const double m = std::clamp(cap - s, 0.0, q);
    w.pairs += n * (m * s + m * (m + 1.0) / 2.0 + (q - m) * (std::isinf(cap) ? 0.0 : cap));
    if (g.new_tokens == 1) {
      w.decode_pairs += n * std::min(s + 1.0, cap);  // the one query sees its whole (windowed) context
      w.kv_tokens_read += n * std::min(s + 1.0, cap);
      continue;
    }
    const double tiles = std::ceil(q / tile);
    double read = 0;
    for (double j = 0; j < tiles; ++j) {
      const double first = s + j * tile;
      const double last = std::min(s + q, first + tile);
      const double from = std::isinf(cap) ? 0.0 : std::max(0.0, first - cap + 1.0);
      read += last - from;
    }
    w.kv_tokens_read += n * read;
  }
  return w;
}

auto expected_active_experts(double experts, double per_token, double tokens) -> double {
  if (experts <= 0 || per_token <= 0 || tokens <= 0) return 0.0;
  return experts * (1.0 - std::pow(1.0 - per_token / experts, tokens));
}

auto build_ops(const ModelArch& arch, const Workload& workload, const Precision& precision,
               const ArchEfficiency& arch_eff) -> core::Result<std::vector<Op>> {
  if (auto tp = check_tp(arch, workload.tensor_parallel); !tp) return core::propagate(tp);
  if (auto step = validate_step(workload.step); !step) return core::propagate(step);
  const StepTokens tokens = count_tokens(workload.step);
  detail::StepDims dims;
  dims.tokens = tokens.computed;
  dims.emitted = tokens.emitted;
  dims.cached_after = tokens.cached_after;
  dims.decode_only = tokens.decode_only;
  dims.tp = workload.tensor_parallel;
  dims.hidden = static_cast<double>(arch.hidden_size);
  dims.heads = static_cast<double>(arch.num_heads) / dims.tp;
  dims.kv_heads = std::max(1.0, static_cast<double>(arch.num_kv_heads) / dims.tp);
  dims.head_dim = static_cast<double>(arch.head_dim);
  dims.act_bytes = bytes_per_element(precision.activation);
  auto layout = parallel_layout(arch, workload);
  if (!layout) return core::propagate(layout);
  dims.ep = layout->ep;
  dims.dp = layout->dp;
  dims.pp = layout->pp;
  dims.layer_fraction = layout->layer_fraction;
  std::vector<Op> ops;
  ops.reserve(64);
  detail::OpBuilder(arch, workload, precision, arch_eff, dims, ops).build();
  return ops;
}

}  // namespace solscope::ceiling
