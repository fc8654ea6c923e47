#include "fleet/fleet_math.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "core/enum_table.hpp"
#include "core/stats.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace solscope::fleet {
namespace {

constexpr std::array<std::string_view, kGroupByCount> kGroupByNames = {"namespace", "pod", "job"};

constexpr std::array<std::string_view, kSortKeyCount> kSortNames = {
    "host", "compute-mean", "compute-now", "memory-mean", "util-mean", "busy-idle", "straggler"};

/// The figure a sort key orders rows by (none for Host: host, then GPU) and its direction for known values.
struct SortFigure {
  double FleetRow::*figure = nullptr;
  bool ascending = true;
};
constexpr core::EnumTable<SortKey, SortFigure, kSortKeyCount> kSortFigures(
    {SortFigure{}, SortFigure{&FleetRow::compute_sol_mean_pct, true},
     SortFigure{&FleetRow::compute_sol_pct, true}, SortFigure{&FleetRow::memory_sol_mean_pct, true},
     SortFigure{&FleetRow::gpu_util_mean_pct, false}, SortFigure{&FleetRow::busy_idle_gpu_hours, false},
     SortFigure{&FleetRow::straggler_gap_pct, true}},
    SortFigure{});

/// Running newest-known value and mean of one figure.
struct Accumulator {
  double newest = core::kUnknown;
  double sum = 0;
  std::size_t count = 0;
  void add(double value) {
    if (std::isnan(value)) return;
    newest = value;
    sum += value;
    ++count;
  }
  [[nodiscard]] auto mean() const -> double {
    return count == 0 ? core::kUnknown : sum / static_cast<double>(count);
  }
};

/// Compares two figures with NaN last; `ascending` picks the direction for known values.
auto figure_less(double a, double b, bool ascending) -> int {
  const bool a_nan = std::isnan(a);
  const bool b_nan = std::isnan(b);
  if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
  if (a == b) return 0;
  return (ascending ? a < b : a > b) ? -1 : 1;
}

auto key_less(const FleetRow& a, const FleetRow& b) -> bool {
  if (a.key.host != b.key.host) return natural_less(a.key.host, b.key.host);
  return natural_less(a.key.gpu, b.key.gpu);
}

auto contains_ci(std::string_view hay, std::string_view needle_lower) -> bool {
  return core::to_lower_ascii(hay).find(needle_lower) != std::string::npos;
}

}  // namespace

auto step_for_window_ns(std::int64_t window_ns) -> std::int64_t {
  const std::int64_t raw = window_ns <= 0 ? kMinStepNs : window_ns / kStepsPerWindow;
  const std::int64_t rounded = (raw + core::kNsPerS - 1) / core::kNsPerS * core::kNsPerS;
  return std::max(rounded, kMinStepNs);
}

auto window_figures(const std::vector<HistoryPoint>& points, std::int64_t step_ns) -> WindowFigures {
  Accumulator compute;
  Accumulator memory;
  Accumulator util;
  std::size_t busy_idle_steps = 0;
  for (const auto& p : points) {
    compute.add(p.compute_sol_pct);
    memory.add(p.memory_sol_pct);
    util.add(p.gpu_util_pct);
    if (p.gpu_util_pct > kBusyUtilPct && p.compute_sol_pct < kIdleComputeSolPct) ++busy_idle_steps;
  }
  WindowFigures f;
  f.compute_sol_pct = compute.newest;
  f.memory_sol_pct = memory.newest;
  f.gpu_util_pct = util.newest;
  f.compute_sol_mean_pct = compute.mean();
  f.memory_sol_mean_pct = memory.mean();
  f.gpu_util_mean_pct = util.mean();
  f.busy_idle_gpu_hours = static_cast<double>(busy_idle_steps) *
                          (static_cast<double>(step_ns) / static_cast<double>(core::kNsPerS)) /
                          core::kSecondsPerHour;
  return f;
}

void apply_figures(const WindowFigures& figures, FleetRow& row) {
  static_cast<WindowFigures&>(row) = figures;
}

auto straggler_group(const GpuKey& key) -> std::string {
  return key.job.empty() ? "host:" + key.host : "job:" + key.job;
}

void mark_stragglers(std::vector<FleetRow>& rows) {
  std::map<std::string, std::vector<double>> groups;
  for (const auto& row : rows) groups[straggler_group(row.key)].push_back(row.compute_sol_mean_pct);
  for (auto& row : rows) {
    row.straggler_gap_pct = core::kUnknown;
    row.straggler = false;
    const auto& members = groups[straggler_group(row.key)];
    const auto known = std::count_if(members.begin(), members.end(), [](double v) { return !std::isnan(v); });
    if (std::isnan(row.compute_sol_mean_pct) || known < 2) continue;
    row.straggler_gap_pct = row.compute_sol_mean_pct - core::median_known(members);
    row.straggler = row.straggler_gap_pct < -kStragglerGapPct;
  }
}

auto sort_key_name(SortKey key) -> std::string_view {
  return kSortNames.at(static_cast<std::size_t>(key));
}

auto next_sort_key(SortKey key) -> SortKey {
  return static_cast<SortKey>((static_cast<std::size_t>(key) + 1) % kSortKeyCount);
}

auto parse_sort_key(std::string_view text) -> std::optional<SortKey> {
  for (std::size_t i = 0; i < kSortNames.size(); ++i) {
    if (kSortNames[i] == text) return static_cast<SortKey>(i);
  }
  return std::nullopt;
}

void sort_rows(std::vector<FleetRow>& rows, SortKey key) {
  const SortFigure sorted = kSortFigures(key);
  std::stable_sort(rows.begin(), rows.end(), [&sorted](const FleetRow& a, const FleetRow& b) {
    if (sorted.figure != nullptr) {
      const int c = figure_less(a.*sorted.figure, b.*sorted.figure, sorted.ascending);
      if (c != 0) return c < 0;
    }
    return key_less(a, b);
  });
}

auto filter_rows(const std::vector<FleetRow>& rows, std::string_view text) -> std::vector<std::size_t> {
  std::vector<std::size_t> out;
  const std::string needle = core::to_lower_ascii(text);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& k = rows[i].key;
    if (needle.empty() || contains_ci(k.host, needle) || contains_ci(k.gpu, needle) ||
        contains_ci(k.model_name, needle) || contains_ci(k.job, needle) || contains_ci(k.uuid, needle)) {
      out.push_back(i);
    }
  }
  return out;
}

auto natural_less(std::string_view a, std::string_view b) -> bool {
  std::size_t i = 0;
  std::size_t j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i;
      std::size_t je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      std::string_view na = a.substr(i, ie - i);
      std::string_view nb = b.substr(j, je - j);
      while (na.size() > 1 && na.front() == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb.front() == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

auto fleet_totals(const std::vector<FleetRow>& rows) -> FleetTotals {
  FleetTotals t;
  t.gpus = rows.size();
  Accumulator mean;
  for (const auto& r : rows) {
    if (r.straggler) ++t.stragglers;
    t.busy_idle_gpu_hours += r.busy_idle_gpu_hours;
    mean.add(r.compute_sol_mean_pct);
  }
  t.compute_sol_mean_pct = mean.mean();
  return t;
}

auto group_by_name(GroupBy by) -> std::string_view {
  return kGroupByNames.at(static_cast<std::size_t>(by));
}

auto parse_group_by(std::string_view text) -> std::optional<GroupBy> {
  for (std::size_t i = 0; i < kGroupByNames.size(); ++i) {
    if (kGroupByNames[i] == text) return static_cast<GroupBy>(i);
  }
  return std::nullopt;
}

auto group_by_names() -> std::vector<std::string> {
  return {kGroupByNames.begin(), kGroupByNames.end()};
}

namespace {
auto known_or_zero(double v) -> double {
  return std::isnan(v) || v < 0 ? 0.0 : v;
}
}  // namespace

auto workload_row(std::string group, const WorkloadSums& sums, std::int64_t step_ns) -> WorkloadRow {
  WorkloadRow row;
  row.group = std::move(group);
  row.gpus = static_cast<std::size_t>(std::llround(known_or_zero(sums.gpus)));
  row.allocated_gpu_hours = known_or_zero(sums.allocated_seconds) / core::kSecondsPerHour;
  row.idle_gpu_hours = known_or_zero(sums.idle_seconds) / core::kSecondsPerHour;
  row.busy_idle_gpu_hours = known_or_zero(sums.busy_idle_steps) *
                            (static_cast<double>(step_ns) / static_cast<double>(core::kNsPerS)) /
                            core::kSecondsPerHour;
  row.wasted_gpu_hours = row.idle_gpu_hours + row.busy_idle_gpu_hours;
  const double steps = known_or_zero(sums.compute_sol_steps);
  row.compute_sol_mean_pct =
      steps > 0 && !std::isnan(sums.compute_sol_sum_pct) ? sums.compute_sol_sum_pct / steps : core::kUnknown;
  return row;
}

void sort_workloads(std::vector<WorkloadRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const WorkloadRow& a, const WorkloadRow& b) {
    if (a.wasted_gpu_hours != b.wasted_gpu_hours) return a.wasted_gpu_hours > b.wasted_gpu_hours;
    return natural_less(a.group, b.group);
  });
}

auto workload_totals(const std::vector<WorkloadRow>& rows) -> WorkloadRow {
  WorkloadRow t;
  Accumulator mean;
  for (const auto& r : rows) {
    t.gpus += r.gpus;
    t.allocated_gpu_hours += r.allocated_gpu_hours;
    t.idle_gpu_hours += r.idle_gpu_hours;
    t.busy_idle_gpu_hours += r.busy_idle_gpu_hours;
    t.wasted_gpu_hours += r.wasted_gpu_hours;
    mean.add(r.compute_sol_mean_pct);
  }
  t.compute_sol_mean_pct = mean.mean();
  return t;
}

}  // namespace solscope::fleet
