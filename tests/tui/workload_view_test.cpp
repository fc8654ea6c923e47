// Issue 24: the terminal view's workloads: the per-workload roll-up (workload_rollup.hpp) and its view, the
// classic table's workload column and the process table's, against fixed frames. SYNTHETIC figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "tui/detail/model.hpp"
#include "tui/detail/views.hpp"
#include "tui/detail/workload_rollup.hpp"

namespace solscope::tui {
namespace {

auto pod(std::string name) -> core::WorkloadIdentity {
  return core::WorkloadIdentity{.pod = std::move(name), .pod_namespace = "ml", .container = "main"};
}
auto job() -> core::WorkloadIdentity {
  return core::WorkloadIdentity{.hpc_job = "1234", .user = "alice"};
}

auto process(std::int32_t pid, core::WorkloadIdentity id, std::optional<double> sm, bool mps = false)
    -> core::ProcessWorkload {
  return core::ProcessWorkload{
      .pid = pid, .id = std::move(id), .origin = core::WorkloadOrigin::kKubelet, .sm_pct = sm, .mps = mps};
}

/// A GPU with its newest window's Compute/Memory SOL and the workloads core::attribute_gpu finds for
/// `processes`; each process is also in its process list.
auto gpu(std::uint32_t index, double compute, double memory,
         const std::vector<core::ProcessWorkload>& processes) -> core::DeviceSnapshot {
  core::DeviceSnapshot d;
  d.state.info.index = index;
  d.state.info.name = "Test GPU " + std::to_string(index);
  d.state.source = core::SourceKind::PmSampling;
  core::SolSample w;
  w.device_index = index;
  w.t_start_ns = 100'000'000'000;
  w.t_end_ns = 101'000'000'000;
  w.compute_sol_pct = compute;
  w.memory_sol_pct = memory;
  d.latest_window = w;
  d.state.workloads = core::attribute_gpu(processes, {});
  for (const auto& p : processes) {
    d.state.processes.push_back(core::GpuProcess{.pid = p.pid,
                                                 .user = "u",
                                                 .gpu_memory_bytes = 1ull << 30,
                                                 .command = "python train.py",
                                                 .workload = p.id,
                                                 .origin = p.origin,
                                                 .sm_pct = p.sm_pct,
                                                 .mps = p.mps});
  }
  return d;
}

/// GPU 0: pod ml/train-1/main alone (60 % / 20 % SOL). GPU 1 time-sliced: job 1234 at 60 % SM, the same pod
/// at 20 % (fractions 0.75 and 0.25; 80 % / 40 %). GPU 2: two MPS clients, a container and a user (30 % / 10
/// %): concurrent, no split. GPU 3: nothing.
auto devices() -> std::vector<core::DeviceSnapshot> {
  return {gpu(0, 60, 20, {process(100, pod("train-1"), 50.0)}),
          gpu(1, 80, 40, {process(200, job(), 60.0), process(201, pod("train-1"), 20.0)}),
          gpu(2, 30, 10,
              {process(300, core::WorkloadIdentity{.container = "0123456789ab"}, 10.0, true),
               process(301, core::WorkloadIdentity{.user = "bob"}, 5.0, true)}),
          gpu(3, 5, 1, {})};
}

TEST(WorkloadRollup, one_row_per_workload_with_its_gpus_sharing_share_and_weighted_sol) {
  const auto rows = workload_rollup(devices());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].display, "ml/train-1/main");
  EXPECT_EQ(rows[0].gpus, 2u);
  EXPECT_EQ(rows[0].sharing, "mixed");  // exclusive on GPU 0, time-sliced on GPU 1
  EXPECT_DOUBLE_EQ(rows[0].share_gpus, 1.25);
  EXPECT_DOUBLE_EQ(rows[0].compute_sol_pct, (60 * 1.0 + 80 * 0.25) / 1.25);  // 64
  EXPECT_DOUBLE_EQ(rows[0].memory_sol_pct, (20 * 1.0 + 40 * 0.25) / 1.25);   // 24
  EXPECT_EQ(rows[1].display, "job 1234 (alice)");
  EXPECT_EQ(rows[1].gpus, 1u);
  EXPECT_EQ(rows[1].sharing, "shared (time-sliced)");
  EXPECT_DOUBLE_EQ(rows[1].share_gpus, 0.75);
  EXPECT_DOUBLE_EQ(rows[1].compute_sol_pct, 80);
  // MPS: no split is invented; the figures stay the GPU's.
  EXPECT_EQ(rows[2].display, "container 0123456789ab");
  EXPECT_EQ(rows[2].sharing, "shared (concurrent)");
  EXPECT_TRUE(std::isnan(rows[2].share_gpus));
  EXPECT_DOUBLE_EQ(rows[2].compute_sol_pct, 30);
  EXPECT_DOUBLE_EQ(rows[2].memory_sol_pct, 10);
  EXPECT_EQ(rows[3].display, "user bob");
  EXPECT_TRUE(workload_rollup({}).empty());
}

TEST(WorkloadRollup, a_gpu_names_its_single_workload_or_how_it_is_shared) {
  const auto d = devices();
  EXPECT_EQ(gpu_workload_text(d[0].state.workloads), "ml/train-1/main");
  EXPECT_EQ(gpu_workload_text(d[1].state.workloads), "shared (time-sliced) x2");
  EXPECT_EQ(gpu_workload_text(d[2].state.workloads), "shared (concurrent) x2");
  EXPECT_EQ(gpu_workload_text(d[3].state.workloads), "-");
}

auto model() -> ScreenModel {
  ScreenModel m;
  m.source = SourceInfo{.title = "NVIDIA GPUs"};
  m.devices = devices();
  m.now_ns = 101'000'000'000;
  return m;
}

auto draw(const ScreenModel& m, const UiState& ui, int rows, int cols) -> std::string {
  Frame f(rows, cols);
  render(m, ui, compute_layout(layout_request(m, ui, rows, cols)), f);
  return f.text();
}

/// The frame's lines with every run of spaces made one, trailing ones dropped.
auto squeezed_lines(const std::string& text) -> std::vector<std::string> {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::string s;
    for (char c : line) {
      if (c == ' ' && (s.empty() || s.back() == ' ')) continue;
      s += c;
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out.push_back(s);
  }
  return out;
}

TEST(WorkloadView, the_rollup_view_draws_one_row_per_workload_above_the_processes) {
  UiState ui;
  ui.view = View::Workloads;
  auto lines = squeezed_lines(draw(model(), ui, 50, 200));
  ASSERT_GE(lines.size(), 12u);
  EXPECT_NE(lines[0].find("view workloads"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1], "Workload GPUs Sharing GPU share Compute SOL Memory SOL");
  EXPECT_EQ(lines[2], "ml/train-1/main 2 mixed 1.25 64.0% 24.0%");
  EXPECT_EQ(lines[3], "job 1234 (alice) 1 shared (time-sliced) 0.75 80.0% 40.0%");
  EXPECT_EQ(lines[4], "container 0123456789ab 1 shared (concurrent) n/a 30.0% 10.0%");
  EXPECT_EQ(lines[5], "user bob 1 shared (concurrent) n/a 30.0% 10.0%");
  EXPECT_EQ(lines[6], "GPU PID USER GPU MEM WORKLOAD CONTAINER COMMAND");
  EXPECT_EQ(lines[7], "0 100 u 1.0 GiB ml/train-1/main python train.py");
  EXPECT_EQ(lines[11], "2 301 u 1.0 GiB user bob python train.py");
  // 80 columns: the workload column takes what the others leave (18 cells) and cuts longer names.
  lines = squeezed_lines(draw(model(), ui, 24, 80));
  EXPECT_EQ(lines[2], "ml/train-1/main 2 mixed 1.25 64.0% 24.0%");
  EXPECT_EQ(lines[4], "container 0123456\u2026 1 shared (concurrent) n/a 30.0% 10.0%");
  EXPECT_EQ(lines[6].rfind("GPU PID USER GPU MEM WORKLOAD CONTAINER", 0), 0u) << lines[6];
  // No workload known: one line says so.
  ScreenModel none = model();
  for (auto& d : none.devices) d.state.workloads = {};
  lines = squeezed_lines(draw(none, ui, 24, 120));
  EXPECT_EQ(lines[2].rfind("no workload known on the GPUs", 0), 0u) << lines[2];
}

TEST(WorkloadView, more_workloads_than_rows_end_with_how_many_more) {
  ScreenModel m = model();
  std::vector<core::ProcessWorkload> many;
  for (int i = 0; i < 12; ++i) many.push_back(process(400 + i, pod("p" + std::to_string(i)), 1.0 + i));
  m.devices.push_back(gpu(4, 50, 50, many));
  UiState ui;
  ui.view = View::Workloads;
  const auto lines = squeezed_lines(draw(m, ui, 12, 100));  // 10 body rows: heading, 6 workload rows, 3 more
  EXPECT_EQ(lines[2].rfind("ml/train-1/main 2", 0), 0u) << lines[2];
  EXPECT_EQ(lines[7], "+11 more");  // 16 workloads, 5 shown
}

TEST(WorkloadView, classic_table_and_process_table_have_a_workload_column) {
  UiState ui;
  ui.view = View::Classic;
  const std::string text = draw(model(), ui, 40, 200);
  const auto lines = squeezed_lines(text);
  ASSERT_GE(lines.size(), 6u);
  EXPECT_NE(lines[1].find("Memory SOL Workload"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("20.0% ml/train-1/main"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("40.0% shared (time-sliced) x2"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("10.0% shared (concurrent) x2"), std::string::npos) << lines[4];
  EXPECT_NE(lines[5].find("1.0% -"), std::string::npos) << lines[5];
  const auto heading =
      std::find(lines.begin(), lines.end(), "GPU PID USER GPU MEM WORKLOAD CONTAINER COMMAND");
  ASSERT_NE(heading, lines.end()) << text;
  EXPECT_EQ(*(heading + 1), "0 100 u 1.0 GiB ml/train-1/main python train.py");
  EXPECT_EQ(*(heading + 2), "1 200 u 1.0 GiB job 1234 (alice) python train.py");
  EXPECT_EQ(*(heading + 4), "2 300 u 1.0 GiB container 0123456789ab python train.py");
}

TEST(WorkloadView, help_and_footer_name_the_key) {
  UiState ui;
  ui.help = true;
  const std::string help = draw(model(), ui, 40, 120);
  EXPECT_NE(help.find("5 u          workloads:"), std::string::npos) << help;
  EXPECT_NE(draw(model(), UiState{}, 24, 120).find("1-5/v view"), std::string::npos);
}

}  // namespace
}  // namespace solscope::tui
