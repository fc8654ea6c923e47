#include "cli/ceiling/ceiling_sweep_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ceiling/ceiling_text.hpp"
#include "cli/ceiling/ceiling_report.hpp"
#include "cli/report/html_page.hpp"
#include "core/units.hpp"
#include "trace/export.hpp"
#include "wire/json_number.hpp"
#include "wire/json_text.hpp"

namespace solscope::app {
namespace {

using Json = nlohmann::ordered_json;
using ceiling::ServeCeiling;
using ceiling::SweepPoint;
using wire::number_or_null;

/// The largest concurrency that fits: the sweep's last point when it fits, else 0 (one request does not).
auto fitting_top(const SweepReportInput& in) -> std::int64_t {
  return in.points.back().ceiling.fits ? in.points.back().concurrency : 0;
}

auto memory_need_bytes(const ServeCeiling& s) -> double {
  const double prefill = s.has_prefill_step ? s.prefill_step.memory_need_bytes : 0.0;
  return std::max(prefill, s.has_decode_step ? s.decode_step.memory_need_bytes : 0.0);
}

auto usable_gb(const SweepReportInput& in) -> double {
  return in.points.front().ceiling.prefill_step.memory_usable_bytes / core::kGiga;
}

auto is_best(const SweepReportInput& in, std::size_t i) -> bool {
  return in.best.has_value() && *in.best == i;
}

void append_memory_line(const SweepReportInput& in, std::string& out) {
  const std::int64_t top = fitting_top(in);
  auto it = std::back_inserter(out);
  if (top == 0) {
    fmt::format_to(it, "  memory limit            one request does not fit in {:.1f} GB usable\n",
                   usable_gb(in));
  } else if (top >= ceiling::kMaxBatch) {
    fmt::format_to(it, "  memory limit            none up to {} requests in flight ({:.1f} GB usable)\n", top,
                   usable_gb(in));
  } else {
    fmt::format_to(it,
                   "  memory limit            {} requests in flight fit in {:.1f} GB usable ({} do not)\n",
                   top, usable_gb(in), top + 1);
  }
}

void append_headline(const SweepReportInput& in, std::string& out) {
  const ServeCeiling& first = in.points.front().ceiling;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "Concurrency sweep of {} on {}: isl {}, osl {}, {}\n", in.arch.name, in.gpu.id,
                 first.traffic.input_tokens, first.traffic.output_tokens, layout_text(first.prefill_step));
  fmt::format_to(it, "  model config {}\n", in.config_path);
  fmt::format_to(it, "  token budget {} per step{}\n", first.traffic.max_batched_tokens,
                 first.default_budget ? " (vLLM serve's default on this GPU)" : "");
  append_memory_line(in, out);
  const std::string limits = ceiling::limits_text(in.limits);
  if (!limits.empty()) fmt::format_to(it, "  latency limits          {}\n", limits);
  if (in.best) {
    const ServeCeiling& b = in.points[*in.best].ceiling;
    fmt::format_to(
        it,
        "  best                    concurrency {}: {:.0f} output tokens/s per GPU, {:.1f} tokens/s "
        "per user\n",
        in.points[*in.best].concurrency, ceiling::output_tokens_per_s_per_gpu(b),
        ceiling::tokens_per_s_per_user(b));
  } else {
    fmt::format_to(it, "  best                    none: no point {}\n",
                   limits.empty() ? "fits in memory" : "fits in memory and keeps the limits");
  }
}

/// "12.3" or "n/a" for a number that is not finite.
auto cell(double v, int decimals) -> std::string {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, decimals) : "n/a";
}

void append_row(const SweepReportInput& in, std::size_t i, std::string& out) {
  const SweepPoint& p = in.points[i];
  const ServeCeiling& s = p.ceiling;
  std::string_view mark;
  if (is_best(in, i)) {
    mark = "  <- best";
  } else if (s.fits && !p.within_limits) {
    mark = "  over the limits";
  }
  fmt::format_to(
      std::back_inserter(out), "  {:>11}  {:>9}  {:>10}  {:>8}  {:>8}  {:>10}  {:>6}  {:>12}  {:<15}  {}{}\n",
      p.concurrency, cell(ceiling::output_tokens_per_s_per_gpu(s), 0),
      cell(ceiling::tokens_per_s_per_user(s), 1), cell(s.ttft_s * core::kKilo, 1),
      cell(s.tpot_s * core::kKilo, 2), cell(s.activity_compute_sol_pct, 1), cell(s.useful_compute_sol_pct, 1),
      cell(s.memory_sol_pct, 1), ceiling::to_string(s.limiter), s.fits ? "yes" : "no", mark);
}

auto point_json(const SweepReportInput& in, std::size_t i) -> Json {
  const SweepPoint& p = in.points[i];
  const ServeCeiling& s = p.ceiling;
  return Json{{"concurrency", p.concurrency},
              {"output_tokens_per_s", s.output_tokens_per_s},
              {"output_tokens_per_s_per_gpu", ceiling::output_tokens_per_s_per_gpu(s)},
              {"tokens_per_s_per_user", number_or_null(ceiling::tokens_per_s_per_user(s))},
              {"total_tokens_per_s", s.total_tokens_per_s},
              {"requests_per_s", s.requests_per_s},
              {"ttft_s", s.ttft_s},
              {"tpot_s", number_or_null(s.tpot_s)},
              {"compute_sol_pct", s.activity_compute_sol_pct},
              {"useful_compute_sol_pct", s.useful_compute_sol_pct},
              {"memory_sol_pct", s.memory_sol_pct},
              {"limiter", ceiling::to_string(s.limiter)},
              {"memory_need_bytes", memory_need_bytes(s)},
              {"fits", s.fits},
              {"within_limits", p.within_limits},
              {"best", is_best(in, i)}};
}

/// A number cell: the shortest form that reads back to the same double; empty when not finite.
void append_number(std::string& line, double v) {
  if (std::isfinite(v)) line += fmt::format("{}", v);
}

}  // namespace

auto render_sweep_text(const SweepReportInput& in) -> std::string {
  std::string out;
  append_headline(in, out);
  out +=
      "\n  concurrency  tok/s/GPU  tok/s/user   TTFT ms   TPOT ms  activity %   MFU %  Memory SOL %  limiter"
      "          fits\n";
  for (std::size_t i = 0; i < in.points.size(); ++i) append_row(in, i, out);
  out +=
      "\n  tok/s/GPU: output tokens/s per GPU; tok/s/user: 1 / TPOT\n"
      "  activity: attainable Compute SOL (tensor-pipe busy); MFU: useful Compute SOL\n";
  return out;
}

auto sweep_json(const SweepReportInput& in) -> Json {
  const ServeCeiling& first = in.points.front().ceiling;
  const ceiling::Ceiling& c = first.prefill_step;
  Json j;
  j["gpu"] = gpu_json(in.gpu, c);
  j["model"] = {{"name", in.arch.name}, {"config", in.config_path}};
  j["traffic"] = {{"isl", first.traffic.input_tokens},
                  {"osl", first.traffic.output_tokens},
                  {"max_batched_tokens", first.traffic.max_batched_tokens},
                  {"default_budget", first.default_budget},
                  {"tp", c.tensor_parallel},
                  {"gpus", c.gpus}};
  j["limits"] = {{"max_tpot_s", number_or_null(in.limits.max_tpot_s)},
                 {"max_ttft_s", number_or_null(in.limits.max_ttft_s)}};
  j["memory_usable_bytes"] = c.memory_usable_bytes;
  j["max_fitting_concurrency"] = fitting_top(in);
  j["best_concurrency"] = in.best ? Json(in.points[*in.best].concurrency) : Json(nullptr);
  Json points = Json::array();
  for (std::size_t i = 0; i < in.points.size(); ++i) points.push_back(point_json(in, i));
  j["points"] = std::move(points);
  return j;
}

auto render_sweep_json(const SweepReportInput& in) -> std::string {
  return wire::json_text(sweep_json(in), wire::kJsonPretty) + "\n";
}

auto render_sweep_csv(const SweepReportInput& in) -> std::string {
  std::string out =
      "concurrency,output_tokens_per_s_per_gpu,tokens_per_s_per_user,ttft_ms,tpot_ms,activity_pct,mfu_pct,"
      "memory_sol_pct,limiter,fits,within_limits,best\n";
  for (std::size_t i = 0; i < in.points.size(); ++i) {
    const SweepPoint& p = in.points[i];
    const ServeCeiling& s = p.ceiling;
    std::string line = std::to_string(p.concurrency);
    const std::array<double, 7> numbers{ceiling::output_tokens_per_s_per_gpu(s),
                                        ceiling::tokens_per_s_per_user(s),
                                        s.ttft_s * core::kKilo,
                                        s.tpot_s * core::kKilo,
                                        s.activity_compute_sol_pct,
                                        s.useful_compute_sol_pct,
                                        s.memory_sol_pct};
    for (double v : numbers) {
      line += ',';
      append_number(line, v);
    }
    line += ',';
    trace::append_csv_cell(line, ceiling::to_string(s.limiter));
    line += fmt::format(",{},{},{}\n", s.fits, p.within_limits, is_best(in, i));
    out += line;
  }
  return out;
}

auto render_sweep_html(const SweepReportInput& in) -> core::Result<std::string> {
  static constexpr std::array<PageAsset, 6> kAssets{
      PageAsset{"uplot.css", "uPlot.min.css"}, PageAsset{"common.css", "common.css"},
      PageAsset{"sweep.css", "sweep.css"},     PageAsset{"uplot.js", "uPlot.iife.min.js"},
      PageAsset{"page.js", "page.js"},         PageAsset{"sweep.js", "sweep.js"}};
  return render_html_page("sweep.html", kAssets, "sweep.json", sweep_json(in));
}

}  // namespace solscope::app
