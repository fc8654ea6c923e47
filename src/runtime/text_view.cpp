#include "runtime/text_view.hpp"

#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include "core/derive.hpp"
#include "core/device_info.hpp"
#include "core/pm_yield.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "runtime/sinks.hpp"

namespace solscope::app {
namespace {

auto pct(double v) -> std::string {
  return std::isnan(v) ? "n/a" : fmt::format("{:.1f}", core::clamp_pct(v));
}
auto num(double v) -> std::string {
  return std::isnan(v) ? "n/a" : fmt::format("{:.0f}", v);
}

auto clock_time(std::int64_t t_ns) -> std::string {
  const std::time_t seconds = static_cast<std::time_t>(t_ns / core::kNsPerS);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  return fmt::format("{:02}:{:02}:{:02}.{:01}", tm.tm_hour, tm.tm_min, tm.tm_sec, (t_ns / 100'000'000) % 10);
}

auto name_or_na(std::string_view name, bool known) -> std::string_view {
  return known ? name : "-";
}

/// "gpm", or "gpm (PM paused: profiler)" when the window's latest sample had PM sampling paused.
auto source_text(const core::SolSample& w) -> std::string {
  const std::string_view source = core::to_string(w.source);
  if (w.pm_pause == core::PmPauseReason::kNone) return std::string(source);
  return fmt::format("{} (PM paused: {})", source, core::to_string(w.pm_pause));
}

}  // namespace

TextViewSink::TextViewSink(std::ostream& out, std::int64_t window_ns, std::string banner)
    : out_(out), window_ns_(window_ns > 0 ? window_ns : core::kNsPerS), banner_(std::move(banner)) {}

auto TextViewSink::header() -> std::string {
  return fmt::format("{:<10} {:>3} {:>8} {:<9} {:>7} {:>8} {:<4} {:>6} {:>6} {:>6} {:<8} {:>6} {:>6} {}",
                     "# time", "gpu", "compute%", "pipe", "attain%", "memory%", "path", "util%", "smact%",
                     "occ%", "bound", "smMHz", "powerW", "source");
}

auto TextViewSink::format_line(const core::SolSample& w) -> std::string {
  return fmt::format("{:<10} {:>3} {:>8} {:<9} {:>7} {:>8} {:<4} {:>6} {:>6} {:>6} {:<8} {:>6} {:>6} {}",
                     clock_time(w.t_end_ns), w.device_index, pct(w.compute_sol_pct),
                     name_or_na(core::to_string(w.compute_pipe), w.compute_pipe != core::Pipe::kCount),
                     pct(w.attainable_compute_sol_pct), pct(w.memory_sol_pct),
                     name_or_na(core::to_string(w.memory_path), w.memory_path != core::MemPath::kCount),
                     pct(w.gpu_util_pct()), pct(w.sm_active_pct()), pct(w.sm_occupancy_pct()),
                     core::to_string(w.bound), num(w.metric(core::MetricId::SmClockMhz)),
                     num(w.metric(core::MetricId::PowerW)), source_text(w));
}

auto TextViewSink::begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> {
  // Names, descriptions and notes come from traces, daemons and endpoints: printed through terminal_safe().
  if (!banner_.empty()) out_ << core::terminal_safe(banner_) << '\n';
  for (const auto& d : devices) {
    // The `gpu` column is the device's own number; a MIG instance is named too (core::device_label).
    const std::string label = d.is_mig() ? core::terminal_safe(core::device_label(d)) + " " : std::string();
    out_ << fmt::format("# gpu {}: {}{} {} {}\n", d.index, label, core::terminal_safe(d.name),
                        core::terminal_safe(d.uuid), core::terminal_safe(d.chip));
  }
  out_ << header() << '\n';
  return core::ok();
}

void TextViewSink::emit(DeviceWindow& w) {
  if (w.acc.empty()) return;
  const core::SolSample window = w.acc.result();
  if (notes_) {
    std::string note = notes_(window.device_index);
    if (!note.empty() && note != w.note) {
      out_ << fmt::format("# gpu {}: {}\n", window.device_index, core::terminal_safe(note));
      w.note = std::move(note);
    }
  }
  out_ << format_line(window) << '\n';
  w.acc.reset();
}

auto TextViewSink::on_sample(const core::RawSample& /*raw*/, const core::SolSample& sol)
    -> core::Result<void> {
  DeviceWindow& w = windows_[sol.device_index];
  const std::int64_t index = sol.t_end_ns / window_ns_;
  if (!w.acc.empty() && index != w.window_index) emit(w);
  w.window_index = index;
  w.acc.add(sol);
  return core::ok();
}

auto TextViewSink::flush() -> core::Result<void> {
  return flush_output(out_);
}

}  // namespace solscope::app
