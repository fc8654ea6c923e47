#include "runtime/text_view.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "core/derive.hpp"

namespace solscope::app {
namespace {

auto sol(std::uint32_t device, std::int64_t start_ns, double tensor, double dram) -> core::SolSample {
  core::RawSample raw;
  raw.device_index = device;
  raw.t_start_ns = start_ns;
  raw.t_end_ns = start_ns + 100'000'000;
  raw.set(core::MetricId::TensorPipe, tensor);
  raw.set(core::MetricId::DramThroughput, dram);
  raw.set(core::MetricId::GrActive, 100);
  raw.set(core::MetricId::GpuUtil, 100);
  return core::derive(raw, core::DeviceInfo{});
}

TEST(TextViewTest, prints_one_line_per_device_and_window_with_both_figures) {
  std::ostringstream out;
  TextViewSink view(out, 1'000'000'000, "# banner SYNTHETIC");
  ASSERT_TRUE(view.begin({core::DeviceInfo{.index = 0, .name = "GPU zero"}}));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(view.on_sample({}, sol(0, i * 100'000'000LL, 80, 20)));
  ASSERT_TRUE(view.on_sample({}, sol(0, 1'000'000'000, 1, 2)));  // next window: emits the first
  const std::string text = out.str();
  EXPECT_NE(text.find("# banner SYNTHETIC"), std::string::npos);
  EXPECT_NE(text.find("GPU zero"), std::string::npos);
  const auto last_line = text.substr(text.rfind('\n', text.size() - 2) + 1);
  EXPECT_NE(last_line.find("80.0 tensor"), std::string::npos) << last_line;
  EXPECT_NE(last_line.find("20.0 dram"), std::string::npos) << last_line;
  EXPECT_NE(last_line.find("100.0"), std::string::npos) << "classic utilization beside SOL";
  EXPECT_NE(last_line.find("compute"), std::string::npos) << last_line;
}

// Issue 23: the device lines name a MIG instance by core::device_label, after the device's own number (the
// `gpu` column); a whole GPU's line is as before.
TEST(TextViewTest, a_mig_instance_is_named_in_its_device_line) {
  std::ostringstream out;
  TextViewSink view(out, 1'000'000'000, "");
  core::DeviceInfo slice{.index = 1, .uuid = "MIG-x", .name = "NVIDIA A100 80GB PCIe"};
  slice.gpu_index = 0;
  slice.mig_profile = "3g.40gb";
  slice.mig_instance_id = 2;
  ASSERT_TRUE(
      view.begin({core::DeviceInfo{.index = 0, .uuid = "GPU-y", .name = "NVIDIA A100 80GB PCIe"}, slice}));
  const std::string text = out.str();
  EXPECT_NE(text.find("# gpu 0: NVIDIA A100 80GB PCIe GPU-y \n"), std::string::npos) << text;
  EXPECT_NE(text.find("# gpu 1: GPU 0 \u00b7 MIG 3g.40gb #2 NVIDIA A100 80GB PCIe MIG-x \n"),
            std::string::npos)
      << text;
}

TEST(TextViewTest, unknown_is_na_and_over_100_is_clamped_for_display) {
  core::SolSample s;
  s.compute_sol_pct = 104.0;
  s.compute_pipe = core::Pipe::Tensor;
  const std::string line = TextViewSink::format_line(s);
  EXPECT_NE(line.find("100.0 tensor"), std::string::npos) << line;
  EXPECT_NE(line.find("n/a"), std::string::npos) << line;
  EXPECT_EQ(line.find("104"), std::string::npos) << line;
}

TEST(TextViewTest, attain_column_follows_compute_and_is_na_when_unknown) {
  const std::string header = TextViewSink::header();
  ASSERT_NE(header.find("compute% pipe      attain%  memory%"), std::string::npos) << header;
  const std::size_t at = header.find("compute%");
  core::SolSample s = sol(0, 0, 30, 70);
  EXPECT_EQ(TextViewSink::format_line(s).substr(at, 26), "    30.0 tensor        n/a") << "unknown";
  s.attainable_compute_sol_pct = 45.67;
  const std::string line = TextViewSink::format_line(s);
  EXPECT_EQ(line.substr(at, 35), "    30.0 tensor       45.7     70.0") << header << "\n" << line;
}

// Issue 23: a window whose PM sampling was paused names the source that stood in and the reason in its source
// column (the last, so the columns before it keep their places); an unpaused window prints the source alone.
TEST(TextViewTest, a_paused_window_says_so_after_its_source) {
  core::SolSample s = sol(0, 0, 30, 70);
  s.source = core::SourceKind::Gpm;
  EXPECT_TRUE(TextViewSink::format_line(s).ends_with(" gpm")) << TextViewSink::format_line(s);
  s.flags |= core::kSamplePmPaused;
  s.pm_pause = core::PmPauseReason::kCountersBusy;
  const std::string line = TextViewSink::format_line(s);
  EXPECT_TRUE(line.ends_with(" gpm (PM paused: counters_busy)")) << line;
  EXPECT_EQ(line.find(" gpm"), TextViewSink::header().find(" source")) << "the source column keeps its place";
}

TEST(TextViewTest, prints_a_device_note_when_it_changes) {
  std::ostringstream out;
  TextViewSink view(out, 1'000'000'000, "");
  std::string note = "found vLLM serving m on :8000; decode batch 12";
  view.set_device_notes([&note](std::uint32_t device) { return device == 0 ? note : std::string(); });
  ASSERT_TRUE(view.begin({core::DeviceInfo{.index = 0}, core::DeviceInfo{.index = 1}}));
  for (int window = 0; window < 4; ++window) {
    if (window == 2) note = "no processes on GPU 0";
    for (const std::uint32_t device : {0u, 1u}) {
      core::SolSample s = sol(device, window * 1'000'000'000LL, 10, 10);
      s.attainable_compute_sol_pct = device == 0 && window < 2 ? 12.5 : core::kUnknown;
      ASSERT_TRUE(view.on_sample({}, s));
    }
  }
  const std::string text = out.str();
  const std::string first = "# gpu 0: found vLLM serving m on :8000; decode batch 12\n";
  ASSERT_NE(text.find(first), std::string::npos) << text;
  EXPECT_EQ(text.find(first, text.find(first) + 1), std::string::npos) << "printed once while unchanged";
  EXPECT_NE(text.find("# gpu 0: no processes on GPU 0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("# gpu 1: ", text.find("# gpu 1: ") + 1), std::string::npos)
      << "an empty note prints nothing (only the device banner names GPU 1)";
  EXPECT_NE(text.find("    10.0 tensor       12.5"), std::string::npos) << text;
}

}  // namespace
}  // namespace solscope::app
