#include "cli/ceiling/ceiling_report.hpp"
#include "core/units.hpp"
#include "wire/json_text.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace solscope::app {
namespace {

using ceiling::Limiter;

/// "1.23 s", "12.3 ms" or "123 us".
auto seconds_text(double s) -> std::string {
  if (s >= 1.0) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} us", s * core::kMega);
}

/// 1234567 -> "1,234,567" (rounded to an integer).
auto grouped(double value) -> std::string {
  const auto n = static_cast<long long>(std::llround(value));
  const std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

auto shape_text(const CeilingReportInput& in) -> std::string {
  switch (in.phase) {
    case ceiling::Phase::Decode:
      return fmt::format("decode, batch {}, context {}", grouped(static_cast<double>(in.batch)),
                         grouped(static_cast<double>(in.context)));
    case ceiling::Phase::Prefill:
      return fmt::format("prefill, batch {}, prompt {}{}", grouped(static_cast<double>(in.batch)),
                         grouped(static_cast<double>(in.prompt)),
                         in.context > 0 ? " on " + grouped(static_cast<double>(in.context)) + " cached" : "");
    case ceiling::Phase::Train:
      return fmt::format("train, batch {} x {} tokens", grouped(static_cast<double>(in.batch)),
                         grouped(static_cast<double>(in.prompt)));
  }
  return "";
}

}  // namespace

namespace {

void append_headline(const CeilingReportInput& in, std::string& out) {
  const ceiling::Ceiling& c = in.result;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "Ceiling of {} on {}: {}, {}\n", in.arch.name, in.gpu.id, shape_text(in),
                 layout_text(c));
  fmt::format_to(it, "  model config {}\n", in.config_path);
  out += ceiling::dtype_lines(c.dtypes) + "\n";
  fmt::format_to(
      it, "  attainable Compute SOL  {:5.1f}%  {} pipe busy at {:.0f} MHz ({} peak {:.1f} TFLOP/s dense)\n",
      c.tensor_activity_pct, c.main_math == ceiling::Dtype::Fp32 ? "FMA" : "tensor", c.sm_clock_mhz,
      ceiling::to_string(c.main_math), c.peak_flops_per_s / 1e12);
  fmt::format_to(it,
                 "  useful Compute SOL      {:5.1f}%  MFU: model FLOPs over the peak, without MMA padding\n",
                 c.useful_compute_sol_pct);
  if (c.expert_parallel > 1 || c.pipeline_parallel > 1 || c.attention_dp > 1) {
    fmt::format_to(it, "  parallel                TP {}, EP {}{}, attention DP {}, PP {}: {} GPUs\n",
                   c.tensor_parallel, c.expert_parallel,
                   c.experts_per_gpu > 0 ? fmt::format(" ({:g} experts per GPU)", c.experts_per_gpu) : "",
                   c.attention_dp, c.pipeline_parallel, c.gpus);
  }
  fmt::format_to(it, "  attainable Memory SOL   {:5.1f}%  of {:.0f} GB/s DRAM\n", c.memory_sol_pct,
                 c.peak_memory_bytes_per_s / core::kGiga);
  const double share =
      c.time_by_limiter_s[static_cast<std::size_t>(c.limiter)] / c.step_time_s * core::kPercent;
  fmt::format_to(it, "  limited by              {}: {:.0f}% of the step\n", limiter_text(c.limiter), share);
  const std::string_view unit = in.phase == ceiling::Phase::Decode    ? "generated tokens/s"
                                : in.phase == ceiling::Phase::Prefill ? "prompt tokens/s"
                                                                      : "training tokens/s";
  fmt::format_to(it, "  step                    {}: {} {}, MFU {:.1f}%\n", seconds_text(c.step_time_s),
                 grouped(c.tokens_per_s), unit, c.mfu_pct);
  if (!std::isnan(in.measured_tokens_per_s)) {
    fmt::format_to(it,
                   "  measured                {} tokens/s: MFU {:.1f}% ({:.0f}% of this ceiling's speed)\n",
                   grouped(in.measured_tokens_per_s), ceiling::mfu_pct(c, in.measured_tokens_per_s),
                   in.measured_tokens_per_s / c.tokens_per_s * core::kPercent);
  }
  if (in.phase == ceiling::Phase::Train) {
    fmt::format_to(
        it,
        "  per GPU                 weights {:.1f} GB of {:.0f} GB (activations, optimizer not modelled)\n",
        c.resident_weight_bytes / core::kGiga, in.gpu.memory_bytes / core::kGiga);
  } else {
    fmt::format_to(it, "  per GPU                 weights {:.1f} GB + KV cache {:.1f} GB, of {:.0f} GB\n",
                   c.resident_weight_bytes / core::kGiga, c.resident_kv_bytes / core::kGiga,
                   in.gpu.memory_bytes / core::kGiga);
  }
}

void append_time_split(const ceiling::Ceiling& c, std::string& out) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "\nwhere the time goes\n");
  for (Limiter l : {Limiter::Compute, Limiter::Memory, Limiter::Overhead, Limiter::Interconnect}) {
    const double t = c.time_by_limiter_s[static_cast<std::size_t>(l)];
    fmt::format_to(it, "  {:<40} {:5.1f}%  {}\n", limiter_text(l), t / c.step_time_s * core::kPercent,
                   seconds_text(t));
  }
}

void append_ops(const ceiling::Ceiling& c, std::string& out) {
  std::vector<const ceiling::OpCost*> rows;
  for (const ceiling::OpCost& op : c.ops) rows.push_back(&op);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto* a, const auto* b) { return a->time_s > b->time_s; });
  auto it = std::back_inserter(out);
  fmt::format_to(it, "\n  {:<24} {:>9} {:>6}  {:<15} {:>7} {:>10} {:>9} {:>6}\n", "operator (slowest first)",
                 "time", "share", "bound", "kernels", "GFLOP", "GB moved", "busy");
  for (const ceiling::OpCost* op : rows) {
    const double busy = op->time_s > 0 ? op->busy_s / op->time_s * core::kPercent : 0.0;
    fmt::format_to(it, "  {:<24} {:>9} {:5.1f}%  {:<15} {:>7} {:>10.1f} {:>9.3f} {:5.1f}%\n", op->name,
                   seconds_text(op->time_s), op->time_s / c.step_time_s * core::kPercent,
                   ceiling::to_string(op->limiter), grouped(op->kernels), op->flops / core::kGiga,
                   op->dram_bytes / core::kGiga, busy);
  }
}

}  // namespace

auto render_ceiling_text(const CeilingReportInput& in) -> std::string {
  std::string out;
  append_headline(in, out);
  append_time_split(in.result, out);
  append_ops(in.result, out);
  if (!in.result.notes.empty()) {
    out += "\nnotes\n";
    for (const std::string& note : in.result.notes) out += "  - " + note + "\n";
  }
  return out;
}

auto gpu_json(const ceiling::GpuSpec& gpu, const ceiling::Ceiling& c) -> nlohmann::ordered_json {
  return {{"id", gpu.id},
          {"sm_clock_mhz", c.sm_clock_mhz},
          {"peak_dtype", ceiling::to_string(c.main_math)},
          {"peak_flops_per_s", c.peak_flops_per_s},
          {"memory_bandwidth_bytes_per_s", c.peak_memory_bytes_per_s}};
}

auto dtypes_json(const ceiling::DtypeChoices& dtypes) -> nlohmann::ordered_json {
  auto one = [](const ceiling::DtypeChoice& c) {
    return nlohmann::ordered_json{
        {"dtype", c.dtype}, {"source", ceiling::to_string(c.source)}, {"detail", c.detail}};
  };
  return nlohmann::ordered_json{{"weights", one(dtypes.weights)},
                                {"activations", one(dtypes.activations)},
                                {"kv_cache", one(dtypes.kv_cache)},
                                {"gemm_math", one(dtypes.gemm_math)}};
}

auto render_ceiling_json(const CeilingReportInput& in) -> std::string {
  using Json = nlohmann::ordered_json;
  const ceiling::Ceiling& c = in.result;
  const ceiling::ParamCounts params = ceiling::count_params(in.arch);
  Json j;
  j["gpu"] = gpu_json(in.gpu, c);
  j["gpu"]["memory_bytes"] = in.gpu.memory_bytes;
  j["model"] = {{"name", in.arch.name},
                {"config", in.config_path},
                {"params_total", params.total},
                {"params_active", params.active}};
  j["workload"] = {{"phase", core::to_string(in.phase)},
                   {"batch", in.batch},
                   {"context", in.context},
                   {"prompt", in.prompt},
                   {"tp", c.tensor_parallel}};
  j["dtypes"] = dtypes_json(c.dtypes);
  j["compute_sol_pct"] = c.compute_sol_pct;
  j["tensor_activity_pct"] = c.tensor_activity_pct;
  j["useful_compute_sol_pct"] = c.useful_compute_sol_pct;
  j["parallel"] = {{"tp", c.tensor_parallel},
                   {"ep", c.expert_parallel},
                   {"attention_dp", c.attention_dp},
                   {"pp", c.pipeline_parallel},
                   {"microbatches", c.microbatches},
                   {"gpus", c.gpus},
                   {"experts_per_gpu", c.experts_per_gpu},
                   {"all_to_all_bytes", c.all_to_all_bytes},
                   {"bubble_fraction", c.bubble_fraction}};
  j["memory_sol_pct"] = c.memory_sol_pct;
  j["limiter"] = ceiling::to_string(c.limiter);
  j["step_time_s"] = c.step_time_s;
  j["tokens_per_s"] = c.tokens_per_s;
  j["output_tokens_per_s"] = c.output_tokens_per_s;
  j["mfu_pct"] = c.mfu_pct;
  j["measured"] = std::isnan(in.measured_tokens_per_s)
                      ? Json(nullptr)
                      : Json{{"tokens_per_s", in.measured_tokens_per_s},
                             {"mfu_pct", ceiling::mfu_pct(c, in.measured_tokens_per_s)}};
  Json split = Json::object();
  for (Limiter l : {Limiter::Compute, Limiter::Memory, Limiter::Overhead, Limiter::Interconnect}) {
    split[std::string(ceiling::to_string(l))] = c.time_by_limiter_s[static_cast<std::size_t>(l)];
  }
  j["time_by_limiter_s"] = split;
  j["per_gpu"] = {{"weight_bytes", c.resident_weight_bytes},
                  {"kv_cache_bytes", c.resident_kv_bytes},
                  {"expert_weight_bytes", c.resident_expert_bytes},
                  {"activation_bytes", c.resident_activation_bytes},
                  {"need_bytes", c.memory_need_bytes},
                  {"usable_bytes", c.memory_usable_bytes},
                  {"fits", c.fits}};
  Json ops = Json::array();
  for (const ceiling::OpCost& op : c.ops) {
    ops.push_back({{"name", op.name},
                   {"kind", ceiling::to_string(op.kind)},
                   {"math", ceiling::to_string(op.math)},
                   {"kernels", op.kernels},
                   {"time_s", op.time_s},
                   {"limiter", ceiling::to_string(op.limiter)},
                   {"flops", op.flops},
                   {"padded_flops", op.padded_flops},
                   {"dram_bytes", op.dram_bytes},
                   {"weight_bytes", op.weight_bytes},
                   {"busy_s", op.busy_s}});
    if (!op.kernel_family.empty()) ops.back()["kernel_family"] = op.kernel_family;
  }
  j["ops"] = ops;
  j["notes"] = c.notes;
  return wire::json_text(j, wire::kJsonPretty) + "\n";
}

}  // namespace solscope::app
