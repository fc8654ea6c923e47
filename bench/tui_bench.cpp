// Cost of one frame of the terminal view with 8 GPUs at 200x50: capture from the LiveState, layout, drawing
// into the Frame, and output through ncurses to a newterm() on /dev/null. Baseline in the same run: copying
// a 200x50 Frame (the least any redraw does). Figures are SYNTHETIC: the GPUs' samples are made up here.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "core/live_state.hpp"
#include "tui/detail/chart.hpp"
#include "tui/detail/terminal.hpp"
#include "tui/detail/views.hpp"

namespace {

using namespace solscope;

constexpr int kRows = 50;
constexpr int kCols = 200;
constexpr std::uint32_t kGpus = 8;
constexpr std::int64_t kSecondNs = 1'000'000'000;

/// A made-up (SYNTHETIC) window of one GPU at second `s`.
auto synthetic_window(std::uint32_t device, std::int64_t s) -> core::SolSample {
  core::SolSample w;
  w.device_index = device;
  w.t_start_ns = s * kSecondNs;
  w.t_end_ns = (s + 1) * kSecondNs;
  w.source = core::SourceKind::Replay;
  const double phase = static_cast<double>(s) / 7.0 + device;
  w.compute_sol_pct = 50.0 + 40.0 * std::sin(phase);
  w.compute_pipe = core::Pipe::Tensor;
  w.memory_sol_pct = 50.0 + 40.0 * std::cos(phase);
  w.memory_path = core::MemPath::Dram;
  for (auto& p : w.pipe_pct) p = w.compute_sol_pct / 2;
  for (auto& p : w.path_pct) p = w.memory_sol_pct / 2;
  w.bound = core::Bound::Compute;
  w.metrics[core::index_of(core::MetricId::GpuUtil)] = 100.0;
  w.metrics[core::index_of(core::MetricId::SmActive)] = 80.0;
  w.metrics[core::index_of(core::MetricId::PowerW)] = 500.0;
  return w;
}

/// A LiveState with 8 GPUs and an hour of windows.
auto filled_state() -> std::unique_ptr<core::LiveState> {
  auto owned = std::make_unique<core::LiveState>();
  core::LiveState& state = *owned;
  std::vector<core::DeviceState> devices;
  for (std::uint32_t d = 0; d < kGpus; ++d) {
    devices.push_back(core::DeviceState{.info = {.index = d, .name = "SYNTHETIC bench GPU"},
                                        .source = core::SourceKind::Replay});
  }
  state.set_devices(std::move(devices));
  for (std::int64_t s = 0; s < 3600; ++s) {
    for (std::uint32_t d = 0; d < kGpus; ++d) state.add(synthetic_window(d, s));
  }
  return owned;
}

auto model_and_ui() -> std::pair<tui::ScreenModel, tui::UiState> {
  tui::ScreenModel model;
  model.source = tui::SourceInfo{.title = "bench", .synthetic = true, .process_note = "no processes"};
  return {model, tui::UiState{}};
}

void draw_frame(const core::LiveState& state, tui::ScreenModel& model, const tui::UiState& ui,
                tui::Frame& frame) {
  const auto request = tui::layout_request(model, ui, kRows, kCols);
  const tui::Layout before = tui::compute_layout(request);
  const int width = before.charts.empty() ? kCols : before.charts.front().width;
  tui::capture(state, ui.selected, tui::chart_merge_for(ui.chart_window_ns(), kSecondNs, width), model);
  tui::render(model, ui, tui::compute_layout(tui::layout_request(model, ui, kRows, kCols)), frame);
}

void BM_Baseline_FrameCopy(benchmark::State& bench) {
  tui::Frame a(kRows, kCols);
  tui::Frame b(kRows, kCols);
  a.put(0, 0, "baseline", tui::Role::Normal);
  for (auto _ : bench) {
    b = a;
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_Baseline_FrameCopy);

/// Capture + layout + render of the SOL view (1-min charts).
void BM_Draw8Gpus(benchmark::State& bench) {
  const auto state = filled_state();
  auto [model, ui] = model_and_ui();
  tui::Frame frame(kRows, kCols);
  for (auto _ : bench) {
    draw_frame(*state, model, ui, frame);
    benchmark::DoNotOptimize(frame);
  }
}
BENCHMARK(BM_Draw8Gpus);

/// The same with the 1-hour chart window (3600 windows merged per frame).
void BM_Draw8GpusHourCharts(benchmark::State& bench) {
  const auto state = filled_state();
  auto [model, ui] = model_and_ui();
  ui.window = tui::kChartWindowsNs.size() - 1;
  model.chart_window_ns = ui.chart_window_ns();
  tui::Frame frame(kRows, kCols);
  for (auto _ : bench) {
    draw_frame(*state, model, ui, frame);
    benchmark::DoNotOptimize(frame);
  }
}
BENCHMARK(BM_Draw8GpusHourCharts);

/// Draw and output through ncurses (to /dev/null), with new figures every frame as in a replay.
void BM_DrawAndPresent8Gpus(benchmark::State& bench) {
  const auto state = filled_state();
  auto [model, ui] = model_and_ui();
  std::FILE* out = std::fopen("/dev/null", "w");
  std::FILE* in = std::fopen("/dev/null", "r");
  auto term = tui::Terminal::open(
      tui::TerminalOptions{.out = out, .in = in, .term = "xterm-256color", .fatal_signal_handlers = false});
  if (!term) {
    bench.SkipWithError(term.error().describe().c_str());
    return;
  }
  (*term)->resize(kRows, kCols);
  tui::Frame frame(kRows, kCols);
  std::int64_t s = 3600;
  for (auto _ : bench) {
    for (std::uint32_t d = 0; d < kGpus; ++d) state->add(synthetic_window(d, s));
    ++s;
    draw_frame(*state, model, ui, frame);
    (*term)->present(frame);
  }
  (*term)->close();
  std::fclose(out);
  std::fclose(in);
}
BENCHMARK(BM_DrawAndPresent8Gpus);

}  // namespace
