#include "tui/detail/fleet_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "tui/detail/chart.hpp"
#include "tui/format.hpp"

namespace solscope::tui {
namespace {

using fleet::FleetRow;

constexpr int kHeaderRows = 3;  // title, notes, column titles
constexpr int kFooterRows = 1;
constexpr int kNumWidth = 7;  // " 100.0%"
constexpr int kGpuWidth = 8;
constexpr int kMinHostWidth = 10;
constexpr int kMaxHostWidth = 24;
constexpr int kModelWidth = 16;
constexpr int kJobWidth = 18;
constexpr int kBusyWidth = 10;
constexpr int kIterWidth = 10;  // " 125.0 ms*": the iteration, '*' on its job's straggler

/// Which optional columns fit.
struct Columns {
  int host = kMinHostWidth;
  bool model = false;
  bool job = false;
  bool iteration = false;  ///< the last to get room: only once the host column is at its widest
};

auto choose_columns(int cols) -> Columns {
  const int fixed = kGpuWidth + 6 * kNumWidth + kBusyWidth + kNumWidth;
  Columns c;
  int left = cols - fixed - kMinHostWidth;
  if (left >= kJobWidth) {
    c.job = true;
    left -= kJobWidth;
  }
  if (left >= kModelWidth) {
    c.model = true;
    left -= kModelWidth;
  }
  c.host = kMinHostWidth + std::clamp(left, 0, kMaxHostWidth - kMinHostWidth);
  c.iteration = left >= kMaxHostWidth - kMinHostWidth + kIterWidth;
  return c;
}

auto pct_cell(double v) -> std::string {
  return pad_left(std::isnan(v) ? std::string("n/a") : format_pct(v), kNumWidth);
}

auto gap_cell(double v) -> std::string {
  return pad_left(std::isnan(v) ? std::string("-") : fmt::format("{:+.1f}", v), kNumWidth);
}

/// The iteration ("125.0 ms", "1.50 s"), '*' on its group's straggler; "-" when not periodic.
auto iteration_cell(const FleetRow& r) -> std::string {
  const std::string text = std::isnan(r.iteration_s) ? std::string("-") : format_seconds(r.iteration_s);
  return pad_left(text + (r.iteration_straggler ? "*" : " "), kIterWidth);
}

auto hours_cell(double v) -> std::string {
  return pad_left(fmt::format("{:.2f}", v), kBusyWidth);
}

/// Writes `text` at (row, col) and returns the next column.
auto cell(Frame& f, int row, int col, const std::string& text, Role role) -> int {
  f.put(row, col, text, role, static_cast<int>(text.size()));
  return col + text_width(text);
}

void draw_titles(Frame& f, int row, const Columns& c, bool ascii) {
  int col = 0;
  col = cell(f, row, col, pad_right("HOST", c.host, ascii), Role::Title);
  col = cell(f, row, col, pad_right("GPU", kGpuWidth, ascii), Role::Title);
  if (c.model) col = cell(f, row, col, pad_right("MODEL", kModelWidth, ascii), Role::Title);
  if (c.job) col = cell(f, row, col, pad_right("JOB", kJobWidth, ascii), Role::Title);
  for (const char* t : {"SOL", "SOLavg", "MEM", "MEMavg", "UTIL", "UTILavg"}) {
    col = cell(f, row, col, pad_left(t, kNumWidth), Role::Title);
  }
  col = cell(f, row, col, pad_left("BUSYIDLEh", kBusyWidth), Role::Title);
  col = cell(f, row, col, pad_left("GAP", kNumWidth), Role::Title);
  if (c.iteration) cell(f, row, col, pad_left("ITER ", kIterWidth), Role::Title);
}

void draw_row(Frame& f, int row, const FleetRow& r, const Columns& c, bool selected, bool ascii) {
  const Role base = selected ? Role::Selected : Role::Normal;
  f.fill(Rect{row, 0, 1, f.cols()}, U' ', base);
  int col = 0;
  col = cell(f, row, col, pad_right(r.key.host, c.host - 1, ascii) + " ", base);
  col = cell(f, row, col, pad_right(r.key.gpu, kGpuWidth - 1, ascii) + " ", base);
  if (c.model) col = cell(f, row, col, pad_right(r.key.model_name, kModelWidth - 1, ascii) + " ", base);
  if (c.job) col = cell(f, row, col, pad_right(r.key.job, kJobWidth - 1, ascii) + " ", base);
  for (double v : {r.compute_sol_pct, r.compute_sol_mean_pct, r.memory_sol_pct, r.memory_sol_mean_pct,
                   r.gpu_util_pct, r.gpu_util_mean_pct}) {
    col = cell(f, row, col, pct_cell(v), base);
  }
  col = cell(f, row, col, hours_cell(r.busy_idle_gpu_hours),
             selected ? base : (r.busy_idle_gpu_hours > 0 ? Role::Warn : base));
  col = cell(f, row, col, gap_cell(r.straggler_gap_pct), selected ? base : (r.straggler ? Role::Bad : base));
  if (c.iteration)
    cell(f, row, col, iteration_cell(r), selected ? base : (r.iteration_straggler ? Role::Bad : base));
}

auto header_text(const FleetViewData& d, const FleetViewState& s) -> std::string {
  const auto t = fleet::fleet_totals(d.snapshot.rows);
  std::string text = fmt::format(
      "solscope fleet | {} GPUs, {} shown | busy-idle {:.2f} GPU-h | {} straggler{} | "
      "sort: {}",
      t.gpus, d.visible.size(), t.busy_idle_gpu_hours, t.stragglers, t.stragglers == 1 ? "" : "s",
      fleet::sort_key_name(s.sort));
  if (!s.filter.empty()) text += " | filter: " + s.filter;
  if (d.refreshed_unix_ns != 0) {
    text += fmt::format(" | {}, every {}", format_utc_time(d.refreshed_unix_ns), format_span(d.refresh_ns));
  }
  return text;
}

void draw_notes(Frame& f, int row, const FleetViewData& d) {
  if (!d.error.empty()) {
    f.put(row, 0, "error: " + d.error, Role::Bad);
    return;
  }
  std::string notes = d.source;
  for (const auto& n : d.snapshot.notes) notes += " | " + n;
  f.put(row, 0, notes, d.snapshot.notes.empty() ? Role::Dim : Role::Warn);
}

void draw_footer(Frame& f, const FleetViewState& s, std::string_view keys) {
  const int row = f.rows() - 1;
  f.fill(Rect{row, 0, 1, f.cols()}, U' ', Role::Footer);
  if (s.editing_filter) {
    f.put(row, 0, "filter: " + s.filter + "_   (Enter keep, Esc clear)", Role::Footer);
  } else {
    f.put(row, 0, keys, Role::Footer);
  }
}

void render_table(const FleetViewData& d, const FleetViewState& s, Frame& f) {
  const Columns c = choose_columns(f.cols());
  f.fill(Rect{0, 0, 1, f.cols()}, U' ', Role::Header);
  f.put(0, 0, header_text(d, s), Role::Header);
  draw_notes(f, 1, d);
  draw_titles(f, 2, c, s.ascii);
  const int rows = fleet_table_rows(f.rows());
  for (int i = 0; i < rows; ++i) {
    const std::size_t v = s.top + static_cast<std::size_t>(i);
    if (v >= d.visible.size()) break;
    draw_row(f, kHeaderRows + i, d.snapshot.rows[d.visible[v]], c, v == s.selected, s.ascii);
  }
  if (d.visible.empty()) {
    f.put(kHeaderRows, 0,
          d.snapshot.rows.empty() ? "no GPU series in the window (check --selector and --since)"
                                  : "no GPU matches the filter",
          Role::Dim);
  }
  draw_footer(f, s, "Up/Down move  Enter history  s sort  / filter  r refresh  q quit");
}

void render_detail(const FleetViewData& d, const FleetViewState& s, Frame& f) {
  const FleetRow* row = selected_row(d, s);
  f.fill(Rect{0, 0, 1, f.cols()}, U' ', Role::Header);
  const std::string title =
      row == nullptr
          ? std::string("no GPU selected")
          : fmt::format("{} {} | {} | job {} | Compute SOL mean {} | busy-idle {:.2f} GPU-h | gap {}",
                        row->key.host, row->key.label.empty() ? "GPU " + row->key.gpu : row->key.label,
                        row->key.model_name.empty() ? "?" : row->key.model_name,
                        row->key.job.empty() ? "-" : row->key.job, format_pct(row->compute_sol_mean_pct),
                        row->busy_idle_gpu_hours, gap_cell(row->straggler_gap_pct));
  f.put(0, 0, title, Role::Header);
  draw_notes(f, 1, d);
  const int area_rows = f.rows() - 2 - kFooterRows;
  if (!d.history) {
    f.put(2, 0, d.error.empty() ? "loading history..." : "no history", Role::Dim);
  } else if (area_rows >= 3) {
    const auto& h = *d.history;
    const int each = std::max(3, area_rows / 3);
    const struct {
      const char* name;
      Role role;
      double fleet::HistoryPoint::*field;
    } charts[] = {{"Compute SOL %", Role::BarCompute, &fleet::HistoryPoint::compute_sol_pct},
                  {"Memory SOL %", Role::BarMemory, &fleet::HistoryPoint::memory_sol_pct},
                  {"classic utilization %", Role::BarUtil, &fleet::HistoryPoint::gpu_util_pct}};
    int top = 2;
    for (const auto& ch : charts) {
      if (top + 3 > 2 + area_rows) break;
      std::vector<ChartPoint> points;
      points.reserve(h.points.size());
      for (const auto& p : h.points) points.push_back(ChartPoint{p.t_ns, p.*(ch.field)});
      const ChartSpec spec{.title = ch.name,
                           .role = ch.role,
                           .from_ns = d.snapshot.window_start_ns,
                           .to_ns = d.snapshot.window_end_ns};
      draw_chart(f, Rect{top, 0, std::min(each, 2 + area_rows - top), f.cols()}, spec, points);
      top += each;
    }
  }
  draw_footer(f, s, "Esc back  r refresh  q quit");
}

auto clamp_selection(FleetViewState& s, std::size_t count, int table_rows) {
  if (count == 0) {
    s.selected = 0;
    s.top = 0;
    return;
  }
  s.selected = std::min(s.selected, count - 1);
  const auto page = static_cast<std::size_t>(std::max(1, table_rows));
  if (s.selected < s.top) s.top = s.selected;
  if (s.selected >= s.top + page) s.top = s.selected + 1 - page;
  s.top = std::min(s.top, count > page ? count - page : 0);
}

/// Moves the selection by `delta` rows (clamped).
void move(FleetViewState& s, std::size_t count, long delta) {
  if (count == 0) return;
  const long next = std::clamp(static_cast<long>(s.selected) + delta, 0L, static_cast<long>(count) - 1);
  s.selected = static_cast<std::size_t>(next);
}

auto edit_filter(const Key& key, FleetViewState& s) -> bool {
  if (key.code == KeyCode::Enter) {
    s.editing_filter = false;
  } else if (key.code == KeyCode::Escape) {
    s.editing_filter = false;
    s.filter.clear();
  } else if (key.code == KeyCode::Char && (key.ch == 0x7f || key.ch == 0x08 || key.ch == 0)) {
    if (!s.filter.empty()) s.filter.pop_back();
  } else if (key.code == KeyCode::Char && key.ch >= 0x20 && key.ch < 0x7f) {
    s.filter += static_cast<char>(key.ch);
  } else {
    return false;
  }
  return true;
}

}  // namespace

auto fleet_table_rows(int frame_rows) -> int {
  return std::max(1, frame_rows - kHeaderRows - kFooterRows);
}

auto selected_row(const FleetViewData& data, const FleetViewState& state) -> const FleetRow* {
  if (state.selected >= data.visible.size()) return nullptr;
  return &data.snapshot.rows[data.visible[state.selected]];
}

void apply_view(FleetViewData& data, FleetViewState& state, int table_rows) {
  std::optional<fleet::GpuKey> keep;
  if (const FleetRow* r = selected_row(data, state)) keep = r->key;
  fleet::sort_rows(data.snapshot.rows, state.sort);
  data.visible = fleet::filter_rows(data.snapshot.rows, state.filter);
  if (keep) {
    for (std::size_t i = 0; i < data.visible.size(); ++i) {
      const auto& k = data.snapshot.rows[data.visible[i]].key;
      if (k.host == keep->host && k.gpu == keep->gpu) {
        state.selected = i;
        break;
      }
    }
  }
  clamp_selection(state, data.visible.size(), table_rows);
}

auto fleet_key(const Key& key, FleetViewState& state, FleetViewData& data, int table_rows) -> FleetAction {
  const std::size_t count = data.visible.size();
  const long page = std::max(1, table_rows);
  if (state.editing_filter) {
    if (edit_filter(key, state)) {
      state.selected = 0;
      apply_view(data, state, table_rows);
    }
    return FleetAction::None;
  }
  if (key.code == KeyCode::Char && (key.ch == 'q' || key.ch == 'Q')) return FleetAction::Quit;
  if (key.code == KeyCode::Char && key.ch == 'r') return FleetAction::Refresh;
  if (state.detail) {
    if (key.code == KeyCode::Escape || key.code == KeyCode::Left) state.detail = false;
    return FleetAction::None;
  }
  switch (key.code) {
    case KeyCode::Up:
      move(state, count, -1);
      break;
    case KeyCode::Down:
      move(state, count, 1);
      break;
    case KeyCode::PageUp:
      move(state, count, -page);
      break;
    case KeyCode::PageDown:
      move(state, count, page);
      break;
    case KeyCode::Home:
      move(state, count, -static_cast<long>(count));
      break;
    case KeyCode::End:
      move(state, count, static_cast<long>(count));
      break;
    case KeyCode::Enter:
      if (selected_row(data, state) == nullptr) return FleetAction::None;
      state.detail = true;
      data.history.reset();
      return FleetAction::OpenHistory;
    case KeyCode::Char:
      if (key.ch == 's') {
        state.sort = fleet::next_sort_key(state.sort);
        apply_view(data, state, table_rows);
      } else if (key.ch == '/') {
        state.editing_filter = true;
      } else if (key.ch == 'j') {
        move(state, count, 1);
      } else if (key.ch == 'k') {
        move(state, count, -1);
      }
      break;
    default:
      break;
  }
  clamp_selection(state, count, table_rows);
  return FleetAction::None;
}

void render_fleet(const FleetViewData& data, const FleetViewState& state, Frame& frame) {
  frame.clear();
  if (state.detail) {
    render_detail(data, state, frame);
  } else {
    render_table(data, state, frame);
  }
}

}  // namespace solscope::tui
