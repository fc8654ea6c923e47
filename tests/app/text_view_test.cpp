#include "app/text_view.hpp"

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

TEST(TextViewTest, unknown_is_na_and_over_100_is_clamped_for_display) {
  core::SolSample s;
  s.compute_sol_pct = 104.0;
  s.compute_pipe = core::Pipe::Tensor;
  const std::string line = TextViewSink::format_line(s);
  EXPECT_NE(line.find("100.0 tensor"), std::string::npos) << line;
  EXPECT_NE(line.find("n/a"), std::string::npos) << line;
  EXPECT_EQ(line.find("104"), std::string::npos) << line;
}

}  // namespace
}  // namespace solscope::app
