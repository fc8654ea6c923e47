// The Classic (nvidia-smi-like) and DCGM-like (profiling) tables: one row per GPU; and the Workloads view's
// table: one row per workload (workload_rollup.hpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/metric_catalog.hpp"
#include "tui/detail/view_parts.hpp"
#include "tui/detail/workload_rollup.hpp"
#include "tui/format.hpp"

namespace solscope::tui::detail {
namespace {

/// One cell of a table row and the width of its column (0 = the flexible name column).
struct Column {
  std::string text;
  int width = 0;
  Role role = Role::Normal;
  bool left = false;  ///< a fixed-width text column: left-aligned like the flexible one
};

/// DCGM-like columns: the catalog's 5-character labels (DCGM's SMACT, SMOCC, ... naming), as percentages or
/// byte rates.
constexpr core::MetricId kDcgmPercent[] = {core::MetricId::SmActive,   core::MetricId::SmOccupancy,
                                           core::MetricId::GrActive,   core::MetricId::DramThroughput,
                                           core::MetricId::TensorPipe, core::MetricId::FmaPipe,
                                           core::MetricId::Fp64Pipe,   core::MetricId::Fp16Pipe};
constexpr core::MetricId kDcgmRates[] = {
    core::MetricId::PcieReadBytesPerS, core::MetricId::PcieWriteBytesPerS, core::MetricId::NvlinkRxBytesPerS,
    core::MetricId::NvlinkTxBytesPerS};
constexpr int kPctWidth = 7;
constexpr int kRateWidth = 11;
/// The classic table's workload column (gpu_workload_text()); longer texts are cut.
constexpr int kWorkloadWidth = 24;

auto classic_columns(const core::DeviceSnapshot* d, bool ascii) -> std::vector<Column> {
  if (d == nullptr) {
    return {{"GPU", 4},           {"Name", 0},
            {"Temp", 6},          {"Pwr:Usage/Cap", 14},
            {"Memory-Usage", 18}, {"GPU-Util", 9},
            {"SM clock", 10},     {"Compute SOL", 12},
            {"Memory SOL", 11},   {"Workload", kWorkloadWidth, Role::Normal, true}};
  }
  const core::SolSample* w = shown_window(*d);
  const auto [used, total] = memory_used_total(*d);
  const std::string power = format_number(metric_of(w, core::MetricId::PowerW), 0) + "W / " +
                            format_number(metric_of(w, core::MetricId::PowerLimitW), 0) + "W";
  const double util = metric_of(w, core::MetricId::GpuUtil);
  // The GPU column is the device's number; a MIG instance's name says which instance of which GPU it is.
  const core::DeviceInfo& info = d->state.info;
  return {{std::to_string(info.index), 4},
          {info.is_mig() ? device_heading(*d) : info.name, 0},
          {format_value(metric_of(w, core::MetricId::TemperatureC), 0, ascii ? "C" : "\u00B0C"), 6},
          {power, 14},
          {format_gib(used) + " / " + format_gib(total) + " GiB", 18},
          {format_pct(util, 0), 9, Role::BarUtil},
          {format_value(metric_of(w, core::MetricId::SmClockMhz), 0, "MHz"), 10},
          {format_pct(w == nullptr ? std::nan("") : w->compute_sol_pct), 12, Role::BarCompute},
          {format_pct(w == nullptr ? std::nan("") : w->memory_sol_pct), 11, Role::BarMemory},
          {gpu_workload_text(d->state.workloads), kWorkloadWidth, Role::Normal, true}};
}

/// Workloads view columns: the workload (flexible), its GPUs, how they are shared, its share in
/// GPU-equivalents, Compute and Memory SOL.
auto workload_columns(const WorkloadRollupRow* r) -> std::vector<Column> {
  if (r == nullptr) {
    return {{"Workload", 0},  {"GPUs", 4},         {"Sharing", 20, Role::Normal, true},
            {"GPU share", 9}, {"Compute SOL", 12}, {"Memory SOL", 11}};
  }
  return {{r->display, 0},
          {std::to_string(r->gpus), 4},
          {r->sharing, 20, Role::Normal, true},
          {format_number(r->share_gpus, 2), 9},
          {format_pct(r->compute_sol_pct), 12, Role::BarCompute},
          {format_pct(r->memory_sol_pct), 11, Role::BarMemory}};
}

auto dcgm_columns(const core::DeviceSnapshot* d) -> std::vector<Column> {
  const core::SolSample* w = d == nullptr ? nullptr : shown_window(*d);
  std::vector<Column> cols;
  cols.push_back({d == nullptr ? "GPU" : std::to_string(d->state.info.index), 4});
  for (const auto id : kDcgmPercent) {
    cols.push_back(
        {d == nullptr ? std::string(core::metric_def(id).label) : format_pct(metric_of(w, id)), kPctWidth});
  }
  for (const auto id : kDcgmRates) {
    cols.push_back(
        {d == nullptr ? std::string(core::metric_def(id).label) : format_rate(metric_of(w, id)), kRateWidth});
  }
  cols.push_back({d == nullptr ? "Bound" : bound_label(w == nullptr ? core::Bound::Unknown : w->bound), 0,
                  d == nullptr || w == nullptr ? Role::Normal : bound_role(w->bound)});
  return cols;
}

/// Lays `cols` out left to right; the flexible column takes what the fixed ones leave (at least 8 cells).
void draw_columns(const std::vector<Column>& cols, const Rect& area, Role base, Frame& frame) {
  int fixed = 0;
  for (const auto& c : cols) fixed += c.width + 1;
  const int flex = std::max(8, area.width - fixed);
  int x = area.col;
  for (const auto& c : cols) {
    const int width = c.width == 0 ? flex : c.width;
    if (x >= area.right()) break;
    const bool numeric = c.width != 0 && x != area.col && !c.left;
    const std::string text = numeric ? pad_left(fit(c.text, width, frame.ascii()), width)
                                     : pad_right(c.text, width, frame.ascii());
    frame.put(area.row, x, text, base == Role::Normal ? c.role : base, area.right() - x);
    x += width + 1;
  }
}

}  // namespace

void draw_table_header(View view, const Rect& area, Frame& frame) {
  const auto cols = view == View::Dcgm        ? dcgm_columns(nullptr)
                    : view == View::Workloads ? workload_columns(nullptr)
                                              : classic_columns(nullptr, frame.ascii());
  draw_columns(cols, area, Role::Title, frame);
}

void draw_workloads(const std::vector<WorkloadRollupRow>& rows, const Rect& area, Frame& frame) {
  if (area.empty()) return;
  if (rows.empty()) {
    frame.put(
        area.row, area.col,
        "no workload known on the GPUs: processes, containers, pods and jobs appear here once identified",
        Role::Dim, area.width);
    return;
  }
  const bool cut = static_cast<int>(rows.size()) > area.height;
  const int shown = cut ? area.height - 1 : static_cast<int>(rows.size());
  for (int i = 0; i < shown; ++i) {
    const Rect line{area.row + i, area.col, 1, area.width};
    draw_columns(workload_columns(&rows[static_cast<std::size_t>(i)]), line, Role::Normal, frame);
  }
  if (cut) {
    frame.put(area.row + shown, area.col,
              "+" + std::to_string(rows.size() - static_cast<std::size_t>(shown)) + " more", Role::Dim,
              area.width);
  }
}

void draw_table_row(View view, const core::DeviceSnapshot& d, bool selected, const Rect& area, Frame& frame) {
  const auto cols = view == View::Dcgm ? dcgm_columns(&d) : classic_columns(&d, frame.ascii());
  if (selected) frame.fill(area, U' ', Role::Selected);
  draw_columns(cols, area, selected ? Role::Selected : Role::Normal, frame);
}

}  // namespace solscope::tui::detail
