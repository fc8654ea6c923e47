#include "cli/ceiling/ceiling_serve_report.hpp"

#include <cmath>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/ceiling/ceiling_report.hpp"
#include "core/units.hpp"
#include "wire/json_number.hpp"
#include "wire/json_text.hpp"

namespace solscope::app {
namespace {

using ceiling::Limiter;
using Json = nlohmann::ordered_json;

using wire::number_or_null;

void append_headline(const ServeReportInput& in, std::string& out) {
  const ceiling::ServeCeiling& s = in.result;
  const ceiling::Ceiling& c = s.prefill_step;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "Serving ceiling of {} on {}: isl {}, osl {}, concurrency {}, {}\n", in.arch.name,
                 in.gpu.id, s.traffic.input_tokens, s.traffic.output_tokens, s.traffic.concurrency,
                 layout_text(c));
  fmt::format_to(it, "  model config {}\n", in.config_path);
  fmt::format_to(it, "  token budget {} per step{}\n", s.traffic.max_batched_tokens,
                 s.default_budget ? " (vLLM serve's default on this GPU)" : "");
  out += ceiling::dtype_lines(c.dtypes) + "\n";
  fmt::format_to(it,
                 "  attainable Compute SOL  {:5.1f}%  tensor-pipe activity at {:.0f} MHz ({} peak {:.1f} "
                 "TFLOP/s dense)\n",
                 s.activity_compute_sol_pct, c.sm_clock_mhz, ceiling::to_string(c.main_math),
                 c.peak_flops_per_s / 1e12);
  fmt::format_to(it, "  useful Compute SOL      {:5.1f}%  model FLOPs over that peak (MFU)\n",
                 s.useful_compute_sol_pct);
  fmt::format_to(it, "  attainable Memory SOL   {:5.1f}%  of {:.0f} GB/s DRAM\n", s.memory_sol_pct,
                 c.peak_memory_bytes_per_s / core::kGiga);
  fmt::format_to(it, "  limited by              {}: {:.0f}% of the time\n", limiter_text(s.limiter),
                 s.time_share[static_cast<std::size_t>(s.limiter)] * core::kPercent);
  fmt::format_to(
      it, "  throughput              {:.0f} output tokens/s, {:.0f} total tokens/s, {:.2f} requests/s\n",
      s.output_tokens_per_s, s.total_tokens_per_s, s.requests_per_s);
  const std::string tpot = std::isfinite(s.tpot_s) ? fmt::format("{:.2f} ms", s.tpot_s * core::kKilo) : "n/a";
  fmt::format_to(it, "  latency                 TPOT {}, TTFT about {:.1f} ms\n", tpot,
                 s.ttft_s * core::kKilo);
  fmt::format_to(it, "  phase split             prefill {:.1f}%, decode {:.1f}% of the time\n",
                 s.prefill_time_share * core::kPercent, s.decode_time_share * core::kPercent);
}

void append_mix(const ceiling::ServeCeiling& s, std::string& out) {
  const ceiling::ServeMix& m = s.mix;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "\nsteady-state step mix (means per step)\n");
  fmt::format_to(it, "  decode batch            {:.2f} requests (contexts {} to {})\n", m.decode_batch,
                 s.traffic.input_tokens, s.traffic.input_tokens + s.traffic.output_tokens - 1);
  fmt::format_to(it,
                 "  prefill                 {:.1f} tokens per step; {:.1f}% of steps carry {:.2f} chunk(s) "
                 "of {:.0f} tokens\n",
                 m.prefill_tokens_per_step, m.prefill_step_fraction * core::kPercent,
                 m.prefill_requests_per_step, m.chunk_tokens);
  fmt::format_to(
      it,
      "  per request             {:.2f} prefill step(s) + {} decode steps; first token after {:.1f} steps\n",
      m.prefill_steps_per_request, s.traffic.output_tokens - 1, m.first_token_steps);
  if (m.budget_bound) {
    fmt::format_to(it, "  regime                  budget-bound: every step full, {:.1f} requests waiting\n",
                   m.waiting_requests);
  } else {
    fmt::format_to(it, "  regime                  concurrency-bound: the budget has room\n");
  }
}

void append_step(std::string_view label, const ceiling::Ceiling& c, std::string& out) {
  fmt::format_to(std::back_inserter(out),
                 "  {:<14} {:8.3f} ms  {:>7.0f} tokens  compute {:5.1f}%  memory {:5.1f}%  limited by {}\n",
                 label, c.step_time_s * core::kKilo, c.tokens.computed, c.compute_sol_pct, c.memory_sol_pct,
                 ceiling::to_string(c.limiter));
}

auto step_json(const ceiling::Ceiling& c) -> Json {
  return Json{{"step_time_s", c.step_time_s},         {"computed_tokens", c.tokens.computed},
              {"emitted_tokens", c.tokens.emitted},   {"requests", c.tokens.requests},
              {"compute_sol_pct", c.compute_sol_pct}, {"mfu_pct", c.mfu_pct},
              {"memory_sol_pct", c.memory_sol_pct},   {"limiter", ceiling::to_string(c.limiter)}};
}

}  // namespace

auto render_serve_text(const ServeReportInput& in) -> std::string {
  const ceiling::ServeCeiling& s = in.result;
  std::string out;
  append_headline(in, out);
  append_mix(s, out);
  out += "\nrepresentative steps\n";
  append_step("with prefill", s.prefill_step, out);
  if (s.has_decode_step) append_step("decode only", s.decode_step, out);
  if (!s.notes.empty()) {
    out += "\nnotes\n";
    for (const std::string& note : s.notes) out += "  - " + note + "\n";
  }
  return out;
}

auto render_serve_json(const ServeReportInput& in) -> std::string {
  const ceiling::ServeCeiling& s = in.result;
  const ceiling::Ceiling& c = s.prefill_step;
  const ceiling::ServeMix& m = s.mix;
  Json j;
  j["gpu"] = gpu_json(in.gpu, c);
  j["model"] = {{"name", in.arch.name}, {"config", in.config_path}};
  j["traffic"] = {
      {"isl", s.traffic.input_tokens},        {"osl", s.traffic.output_tokens},
      {"concurrency", s.traffic.concurrency}, {"max_batched_tokens", s.traffic.max_batched_tokens},
      {"default_budget", s.default_budget},   {"tp", c.tensor_parallel}};
  j["dtypes"] = dtypes_json(c.dtypes);
  if (!in.concurrency_choice.empty()) j["traffic"]["concurrency_choice"] = in.concurrency_choice;
  j["compute_sol_pct"] = s.activity_compute_sol_pct;
  j["useful_compute_sol_pct"] = s.useful_compute_sol_pct;
  j["memory_sol_pct"] = s.memory_sol_pct;
  j["limiter"] = ceiling::to_string(s.limiter);
  Json share = Json::object();
  for (Limiter l : {Limiter::Compute, Limiter::Memory, Limiter::Overhead, Limiter::Interconnect}) {
    share[std::string(ceiling::to_string(l))] = s.time_share[static_cast<std::size_t>(l)];
  }
  j["time_share"] = share;
  j["mean_step_time_s"] = s.mean_step_time_s;
  j["output_tokens_per_s"] = s.output_tokens_per_s;
  j["total_tokens_per_s"] = s.total_tokens_per_s;
  j["requests_per_s"] = s.requests_per_s;
  j["tpot_s"] = number_or_null(s.tpot_s);
  j["ttft_s"] = s.ttft_s;
  j["prefill_time_share"] = s.prefill_time_share;
  j["decode_time_share"] = s.decode_time_share;
  j["mix"] = {{"requests_per_step", m.requests_per_step},
              {"decode_batch", m.decode_batch},
              {"prefill_tokens_per_step", m.prefill_tokens_per_step},
              {"prefill_step_fraction", m.prefill_step_fraction},
              {"prefill_requests_per_step", m.prefill_requests_per_step},
              {"chunk_tokens", m.chunk_tokens},
              {"prefill_steps_per_request", m.prefill_steps_per_request},
              {"first_token_steps", m.first_token_steps},
              {"waiting_requests", m.waiting_requests},
              {"budget_bound", m.budget_bound}};
  j["steps"] = {{"with_prefill", step_json(s.prefill_step)},
                {"decode_only", s.has_decode_step ? step_json(s.decode_step) : Json(nullptr)}};
  j["fits"] = s.fits;
  j["notes"] = s.notes;
  return wire::json_text(j, wire::kJsonPretty) + "\n";
}

}  // namespace solscope::app
