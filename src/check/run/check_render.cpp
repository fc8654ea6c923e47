#include "check/run/check_render.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "check/run/detail/overhead.hpp"
#include "check/run/detail/phase_checks.hpp"
#include "core/enum_table.hpp"
#include "core/metric_catalog.hpp"
#include "core/text.hpp"
#include "wire/json_number.hpp"

namespace solscope::app {
namespace {

/// The widest line of the table.
constexpr std::size_t kMaxColumns = 100;

struct Counts {
  std::size_t passed = 0;
  std::size_t failed = 0;
};

auto count(const CheckReport& report) -> Counts {
  Counts c;
  for (const auto& check : report.checks) {
    for (const auto& row : check.rows) (row.verdict == CheckVerdict::Pass ? c.passed : c.failed) += 1;
  }
  return c;
}

auto pct(double v) -> std::string {
  return std::isnan(v) ? "n/a" : fmt::format("{:.1f}%", v);
}

/// `first` ("note:"), a space and `text`, wrapped at spaces to kMaxColumns (a longer word stays whole);
/// continuation lines start under the text. Every line ends with a newline.
auto wrap(std::string_view first, std::string_view text) -> std::string {
  std::string out;
  std::string line(first);
  bool has_word = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (has_word && line.size() + 1 + word.size() > kMaxColumns) {
      out += line + '\n';
      line.assign(first.size(), ' ');
    }
    line += ' ';
    line += word;
    has_word = true;
  }
  return out + line + '\n';
}

/// The expected column: "90.0%", or "<= 5.0%" / ">= 95.0%" for a bound.
auto expected_text(const CheckRow& row) -> std::string {
  switch (row.bound) {
    case check::Bound::AtMost:
      return "<= " + pct(row.expected_pct);
    case check::Bound::AtLeast:
      return ">= " + pct(row.expected_pct);
    case check::Bound::Point:
      break;
  }
  return pct(row.expected_pct);
}

constexpr core::EnumNames<check::Bound, 3> kBoundNames({"point", "at_most", "at_least"}, "point");

auto bound_name(check::Bound bound) -> std::string_view {
  return kBoundNames(bound);
}

void render_source(const SourceCheck& check, std::ostream& out) {
  out << fmt::format("GPU {}  {}  source {}\n", check.device, core::terminal_safe(check.device_name),
                     core::to_string(check.source));
  if (!check.rows.empty()) {
    out << fmt::format("  {:<14} {:<16} {:>9} {:>9} {:>7} {:>5} {:>7}  {}\n", "phase", "metric", "expected",
                       "measured", "diff", "tol", "samples", "result");
  }
  for (const CheckRow& row : check.rows) {
    if (row.verdict == CheckVerdict::Fault) {
      out << wrap(fmt::format("  {:<14} FAULT:", row.phase), core::terminal_safe(row.note));
      continue;
    }
    const double diff = row.measured_pct - row.expected_pct;
    out << fmt::format("  {:<14} {:<16} {:>9} {:>9} {:>7} {:>5.1f} {:>7}  {}\n", row.phase,
                       short_metric_name(row.metric), expected_text(row), pct(row.measured_pct),
                       std::isnan(diff) ? "n/a" : fmt::format("{:+.1f}", diff), row.tolerance_pct,
                       row.samples, to_string(row.verdict));
  }
  for (const auto& note : check.notes) out << wrap("  note:", core::terminal_safe(note));
  out << '\n';
}

void render_overhead(const OverheadCheck& overhead, std::ostream& out) {
  out << fmt::format("GPU {}  sampling overhead ({}; runs interleaved)\n", overhead.device,
                     core::to_string(overhead.source));
  out << fmt::format("  {:<14} {:<9} {:>5} {:>14} {:>8} {:>10}\n", "kernel", "sampling", "runs", "launches/s",
                     "ratio", "SM clock");
  for (const OverheadRow& row : overhead.rows) {
    out << fmt::format("  {:<14} {:<9} {:>5} {:>14.1f} {:>8} {:>10}\n", row.kernel,
                       overhead_setting_name(row.interval_ns), row.repetitions, row.launches_per_s,
                       std::isnan(row.ratio) ? "n/a" : fmt::format("{:.3f}", row.ratio),
                       std::isnan(row.sm_clock_mhz) ? "n/a" : fmt::format("{:.0f} MHz", row.sm_clock_mhz));
  }
  out << '\n';
}

auto row_json(const CheckRow& row) -> nlohmann::json {
  if (row.verdict == CheckVerdict::Fault) {
    return {{"phase", row.phase}, {"result", to_string(row.verdict)}, {"error", row.note}};
  }
  return {{"phase", row.phase},
          {"metric", core::metric_def(row.metric).name},
          {"expected_pct", row.expected_pct},
          {"measured_pct", wire::number_or_null(row.measured_pct)},
          {"difference_pct", wire::number_or_null(row.measured_pct - row.expected_pct)},
          {"tolerance_pct", row.tolerance_pct},
          {"bound", bound_name(row.bound)},
          {"samples", row.samples},
          {"result", to_string(row.verdict)},
          {"basis", row.note}};
}

}  // namespace

void render_check_table(const CheckReport& report, std::ostream& out) {
  for (const SourceCheck& check : report.checks) render_source(check, out);
  for (const OverheadCheck& overhead : report.overhead) render_overhead(overhead, out);
  for (const auto& note : report.notes) out << wrap("note:", core::terminal_safe(note));
  const Counts c = count(report);
  out << fmt::format("check: {} of {} passed, {} failed\n", c.passed, c.passed + c.failed, c.failed);
}

auto check_json(const CheckReport& report) -> nlohmann::json {
  const Counts c = count(report);
  nlohmann::json checks = nlohmann::json::array();
  for (const SourceCheck& check : report.checks) {
    nlohmann::json rows = nlohmann::json::array();
    for (const CheckRow& row : check.rows) rows.push_back(row_json(row));
    checks.push_back({{"gpu", check.device},
                      {"name", check.device_name},
                      {"source", core::to_string(check.source)},
                      {"rows", rows},
                      {"notes", check.notes}});
  }
  nlohmann::json overhead = nlohmann::json::array();
  for (const OverheadCheck& o : report.overhead) {
    nlohmann::json rows = nlohmann::json::array();
    for (const OverheadRow& row : o.rows) {
      rows.push_back({{"kernel", row.kernel},
                      {"interval_ns", row.interval_ns},
                      {"repetitions", row.repetitions},
                      {"launches_per_s", row.launches_per_s},
                      {"ratio", wire::number_or_null(row.ratio)},
                      {"sm_clock_mhz", wire::number_or_null(row.sm_clock_mhz)}});
    }
    overhead.push_back({{"gpu", o.device}, {"source", core::to_string(o.source)}, {"rows", rows}});
  }
  return {{"result", all_passed(report) ? "pass" : "fail"},
          {"passed", c.passed},
          {"failed", c.failed},
          {"checks", checks},
          {"overhead", overhead},
          {"notes", report.notes}};
}

}  // namespace solscope::app
