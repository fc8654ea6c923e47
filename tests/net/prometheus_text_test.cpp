// The Prometheus text exposition reader (net/prometheus_text.hpp): names, labels, values, timestamps, bad
// lines, and how series combine.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "net/prometheus_text.hpp"

namespace solscope::net {
namespace {

TEST(PrometheusTextTest, parses_names_labels_values_and_timestamps) {
  const PromText t = parse_prometheus_text(
      "# HELP x_total A counter\n# TYPE x_total counter\n"
      "x_total 3\n"
      "vllm:num_requests_running{model_name=\"m\",engine=\"0\"} 12.5 1735689600000\n"
      "  spaced { a = \"1\" , b=\"2\", } 1e3\r\n"
      "\n");
  EXPECT_EQ(t.bad_lines, 0u);
  ASSERT_EQ(t.samples.size(), 3u);
  EXPECT_EQ(t.samples[0].name, "x_total");
  EXPECT_EQ(t.samples[0].value, 3.0);
  EXPECT_EQ(t.samples[1].name, "vllm:num_requests_running");
  ASSERT_NE(t.samples[1].label("engine"), nullptr);
  EXPECT_EQ(*t.samples[1].label("engine"), "0");
  EXPECT_EQ(t.samples[1].value, 12.5);
  EXPECT_EQ(t.samples[2].labels.size(), 2u);
  EXPECT_EQ(t.samples[2].value, 1000.0);
  EXPECT_EQ(t.samples[2].label("c"), nullptr);
  EXPECT_EQ(t.samples[0].timestamp_ms, kNoTimestamp);
  EXPECT_EQ(t.samples[1].timestamp_ms, 1735689600000);
  EXPECT_EQ(t.samples[0].line, 3u);
  EXPECT_EQ(t.samples[1].line, 4u);
  EXPECT_EQ(t.samples[2].line, 5u);
}

TEST(PrometheusTextTest, refuses_a_timestamp_that_is_not_an_integer_and_names_the_first_bad_line) {
  const PromText t = parse_prometheus_text("a 1 -5\nb 2\nc 3 1.5\nd 4 x\n");
  ASSERT_EQ(t.samples.size(), 2u);
  EXPECT_EQ(t.samples[0].timestamp_ms, -5);
  EXPECT_EQ(t.bad_lines, 2u);
  EXPECT_EQ(t.first_bad_line, 3u);
}

TEST(PrometheusTextTest, unescapes_label_values) {
  const PromText t = parse_prometheus_text("m{v=\"a \\\"quoted\\\" name\\\\with\\nescapes\",w=\"}{,\"} 1\n");
  ASSERT_EQ(t.samples.size(), 1u);
  EXPECT_EQ(*t.samples[0].label("v"), "a \"quoted\" name\\with\nescapes");
  EXPECT_EQ(*t.samples[0].label("w"), "}{,");
}

TEST(PrometheusTextTest, reads_nan_and_infinities) {
  const PromText t = parse_prometheus_text("a NaN\nb +Inf\nc -Inf\nd 1.5e-3\n");
  ASSERT_EQ(t.samples.size(), 4u);
  EXPECT_TRUE(std::isnan(t.samples[0].value));
  EXPECT_EQ(t.samples[1].value, INFINITY);
  EXPECT_EQ(t.samples[2].value, -INFINITY);
  EXPECT_DOUBLE_EQ(t.samples[3].value, 0.0015);
}

TEST(PrometheusTextTest, counts_and_skips_bad_lines) {
  const PromText t = parse_prometheus_text(
      "good 1\n9bad 1\nunterminated{a=\"x} 1\nno_value\nnot_a_number abc\nextra 1 2 3\n{\"utf8\"} 1\nok 2\n");
  EXPECT_EQ(t.bad_lines, 6u);
  ASSERT_EQ(t.samples.size(), 2u);
  EXPECT_EQ(t.samples[1].name, "ok");
}

TEST(PrometheusTextTest, keeps_only_wanted_names) {
  const std::vector<std::string_view> wanted{"b"};
  const PromText t = parse_prometheus_text("a 1\nb 2\nbad line here\n", wanted);
  ASSERT_EQ(t.samples.size(), 1u);
  EXPECT_EQ(t.samples[0].value, 2.0);
  EXPECT_EQ(t.bad_lines, 1u);
}

TEST(PrometheusTextTest, combines_series_and_skips_other_tp_ranks) {
  const PromText t = parse_prometheus_text(
      "r{engine=\"0\"} 3\nr{engine=\"1\"} 5\nr{engine=\"2\"} NaN\n"
      "s{tp_rank=\"0\"} 4\ns{tp_rank=\"1\"} 4\n");
  EXPECT_EQ(combine_series(t.samples, "r", Combine::Sum), 8.0);
  EXPECT_EQ(combine_series(t.samples, "r", Combine::Mean), 4.0);
  EXPECT_EQ(combine_series(t.samples, "r", Combine::Max), 5.0);
  EXPECT_EQ(combine_series(t.samples, "s", Combine::Sum), 4.0);
  EXPECT_TRUE(std::isnan(combine_series(t.samples, "missing", Combine::Sum)));
}

}  // namespace
}  // namespace solscope::net
