// write_training_steps (detail/training_steps_present.hpp): the text form of the Training steps.
#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <string_view>

#include <fmt/format.h>

#include "core/text.hpp"
#include "report/detail/text_fit.hpp"
#include "report/detail/training_steps_build.hpp"
#include "report/detail/training_steps_present.hpp"
#include "report/report_text.hpp"

namespace solscope::report {
namespace {

/// Widest line written.
constexpr std::size_t kWidth = kTextWidth;
constexpr std::string_view kContinuation = "   ";  ///< then a space: 4 columns
/// NVTX range names are cut to this many bytes in the text.
constexpr std::size_t kRangeNameWidth = 40;

/// `head`, a space and the words of `text` (made terminal-safe), lines broken at spaces to fit kWidth and
/// continued 4 columns in; a word longer than a line is cut.
void append_wrapped(std::string& out, std::string_view head, std::string_view text) {
  const std::string safe = core::terminal_safe(text);
  std::string line(head);
  std::size_t at = 0;
  while (at < safe.size()) {
    std::size_t end = safe.find(' ', at);
    if (end == std::string::npos) end = safe.size();
    const std::string_view word = std::string_view(safe).substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (line.size() + 1 + word.size() > kWidth && line.size() > kContinuation.size()) {
      out += line + '\n';
      line = std::string(kContinuation);
    }
    line += ' ';
    line += word.substr(0, kWidth - std::min(kWidth, line.size()));
  }
  out += line + '\n';
}

auto ms_or_na(double v) -> std::string {
  return std::isnan(v) ? std::string("n/a") : fmt::format("{:.3f}", v);
}

void write_stat(std::string& out, std::string_view what, const StepStat& s) {
  fmt::format_to(std::back_inserter(out), "  {:<15} {:>10} {:>10} {:>10} {:>10} {:>10}\n", what,
                 ms_or_na(s.p50_ms), ms_or_na(s.p90_ms), ms_or_na(s.p99_ms), ms_or_na(s.mean_ms),
                 std::isnan(s.share_pct) ? std::string("n/a") : fmt::format("{:.1f} %", s.share_pct));
}

void write_collectives(std::string& out, const GpuSteps& g) {
  std::string mix;
  for (std::size_t c = 0; c < core::kCollectiveCount; ++c) {
    if (g.collective_pct[c] <= 0.0) continue;
    fmt::format_to(std::back_inserter(mix), "{}{} {:.1f} %", mix.empty() ? "" : ", ",
                   core::to_string(static_cast<core::Collective>(c)), g.collective_pct[c]);
  }
  if (mix.empty()) mix = "none";
  fmt::format_to(std::back_inserter(out), "  collectives (of the communication time): {}\n", mix);
}

/// The median iteration's time per strip kind.
void write_median(std::string& out, const GpuSteps& g) {
  std::array<std::int64_t, kStripKindCount> time{};
  for (const auto& s : g.strip) time[static_cast<std::size_t>(s.kind)] += s.end_ns - s.start_ns;
  fmt::format_to(std::back_inserter(out),
                 "  median iteration #{} ({:.3f} ms): compute alone {:.3f}, overlapped comm. {:.3f},\n"
                 "    exposed comm. {:.3f}, idle {:.3f} ms\n",
                 g.median_iteration + 1, ms_of(g.median_length_ns),
                 ms_of(time[static_cast<std::size_t>(StripKind::Compute)]),
                 ms_of(time[static_cast<std::size_t>(StripKind::Overlapped)]),
                 ms_of(time[static_cast<std::size_t>(StripKind::Exposed)]),
                 ms_of(time[static_cast<std::size_t>(StripKind::Idle)]));
}

void write_iterations(std::string& out, const GpuSteps& g, std::int64_t origin_ns) {
  fmt::format_to(std::back_inserter(out), "  {:>5} {:>10} {:>10} {:>11} {:>10} {:>11} {:>8}\n", "#",
                 "start s", "length ms", "compute ms", "comm ms", "exposed ms", "kernels");
  const std::size_t shown = std::min(g.iterations.size(), kTextStepIterations);
  for (std::size_t i = 0; i < shown; ++i) {
    const core::KernelIteration& it = g.iterations[i];
    fmt::format_to(std::back_inserter(out),
                   "  {:>5} {:>10.3f} {:>10.3f} {:>11.3f} {:>10.3f} {:>11.3f} {:>8}\n", i + 1,
                   static_cast<double>(it.start_ns - origin_ns) / static_cast<double>(core::kNsPerS),
                   ms_of(it.duration_ns()), ms_of(it.compute_ns), ms_of(it.communication_ns),
                   ms_of(it.exposed_communication_ns), it.kernels);
  }
  if (g.iteration_count > shown) {
    fmt::format_to(std::back_inserter(out), "  ({} more iterations not listed: see --json)\n",
                   g.iteration_count - shown);
  }
}

auto boundary_text(const GpuSteps& g) -> std::string {
  if (g.boundary == core::StepBoundary::Nvtx) {
    return fmt::format("the NVTX range \"{}\"", detail::fit(g.nvtx_range, kRangeNameWidth));
  }
  return "the repeating kernel sequence";
}

void write_kernel_gpu(std::string& out, const GpuSteps& g, std::int64_t origin_ns) {
  fmt::format_to(std::back_inserter(out), "{}: {} iterations, boundaries from {}\n", g.label,
                 g.iteration_count, boundary_text(g));
  if (g.kernels_left > 0) {
    fmt::format_to(std::back_inserter(out),
                   "  (from the first {} kernel calls; {} later ones not looked at)\n", g.kernels_used,
                   g.kernels_left);
  }
  fmt::format_to(std::back_inserter(out), "  {:<15} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "", "p50 ms",
                 "p90 ms", "p99 ms", "mean ms", "of iter.");
  write_stat(out, "iteration", g.iteration);
  write_stat(out, "compute", g.compute);
  write_stat(out, "communication", g.communication);
  write_stat(out, "exposed comm.", g.exposed);
  write_collectives(out, g);
  if (!g.note.empty()) append_wrapped(out, "  note:", g.note);
  write_median(out, g);
  write_iterations(out, g, origin_ns);
}

void write_sample_gpu(std::string& out, const GpuSteps& g) {
  const core::IterationEstimate& e = g.estimate;
  if (!e.periodic) {
    fmt::format_to(
        std::back_inserter(out), "{}: from samples: not periodic ({}; {} of {} windows periodic)\n", g.label,
        e.note.empty() ? std::string_view("no repeat found") : e.note, g.periodic_windows, g.windows);
    return;
  }
  fmt::format_to(std::back_inserter(out),
                 "{}: from samples: period {:.3f} ms, jitter {:.3f} ms, confidence {:.2f} ({} of {} windows "
                 "periodic)\n",
                 g.label, e.period_s * 1e3, e.jitter_s * 1e3, e.confidence, g.periodic_windows, g.windows);
  std::string parts;
  for (std::size_t p = 0; p < core::kIterationPartCount; ++p) {
    fmt::format_to(std::back_inserter(parts), "{}{} {:.1f} %", parts.empty() ? "" : ", ",
                   core::to_string(static_cast<core::IterationPart>(p)), e.part_ratio[p] * core::kPercent);
  }
  fmt::format_to(std::back_inserter(out), "  one iteration: {}\n", parts);
  fmt::format_to(std::back_inserter(out), "  interconnect busy {:.1f} %, exposed {:.1f} % of the iteration\n",
                 e.communication_ratio * core::kPercent, e.exposed_communication_ratio * core::kPercent);
}

void write_ranks(std::string& out, const TrainingSteps& steps) {
  if (steps.ranks.size() < 2) return;
  fmt::format_to(std::back_inserter(out), "Across {} GPUs ({}, medians):\n", steps.ranks.size(),
                 steps.rank_source == StepSource::KernelLog ? "kernel log" : "samples");
  fmt::format_to(std::back_inserter(out), "  {:<16} {:>12} {:>11} {:>10} {:>11}\n", "GPU", "iteration ms",
                 "compute ms", "comm ms", "exposed ms");
  for (const auto& r : steps.ranks) {
    fmt::format_to(std::back_inserter(out), "  {:<16} {:>12.3f} {:>11.3f} {:>10.3f} {:>11.3f}\n",
                   core::terminal_safe(r.rank), r.iteration_s * 1e3, r.compute_s * 1e3,
                   r.communication_s * 1e3, r.exposed_communication_s * 1e3);
  }
  if (steps.verdict) {
    const auto& v = *steps.verdict;
    fmt::format_to(std::back_inserter(out),
                   "  straggler: {} (compute {:.2f} % above the GPUs' median); iteration spread {:.2f} %\n",
                   core::terminal_safe(steps.ranks[v.straggler].rank), v.spread_pct, v.iteration_spread_pct);
  }
}

}  // namespace

void write_training_steps(std::string& out, const TrainingSteps& steps, std::int64_t origin_ns) {
  if (steps.gpus.empty()) return;
  out += "\nTraining steps (docs/report.md \"Training steps\"):\n";
  for (const GpuSteps& g : steps.gpus) {
    if (g.source == StepSource::KernelLog) {
      write_kernel_gpu(out, g, origin_ns);
      continue;
    }
    if (!g.note.empty()) append_wrapped(out, g.label + ": no iterations in the kernel log:", g.note);
    if (g.source == StepSource::Samples) write_sample_gpu(out, g);
    if (g.source == StepSource::None && g.note.empty()) {
      fmt::format_to(std::back_inserter(out), "{}: no kernels and no samples\n", g.label);
    }
  }
  write_ranks(out, steps);
}

}  // namespace solscope::report
