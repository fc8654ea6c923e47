// The wire room (src/wire): unknown numbers are null in every JSON document, fields read tolerantly, and a
// closed window is written in the sample's shape with the core's figures and bound class. SYNTHETIC samples.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/derive.hpp"
#include "core/window.hpp"
#include "wire/json_fields.hpp"
#include "wire/json_number.hpp"
#include "wire/sample_json.hpp"

namespace solscope::wire {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(JsonNumberTest, unknown_and_infinite_are_null_in_both_document_types) {
  EXPECT_EQ(number_or_null(42.5), nlohmann::ordered_json(42.5));
  EXPECT_EQ(number_or_null(0.0), nlohmann::ordered_json(0.0));
  for (const double v : {kNaN, kInf, -kInf}) {
    EXPECT_TRUE(number_or_null(v).is_null()) << v;
    EXPECT_TRUE(number_or_null<nlohmann::json>(v).is_null()) << v;
  }
  EXPECT_EQ(number_or_null<nlohmann::json>(-3.25).dump(), "-3.25");
  // What every writer printed before the rule was one: nlohmann writes an infinity as null too.
  EXPECT_EQ(nlohmann::ordered_json(kInf).dump(), number_or_null(kInf).dump());
}

TEST(JsonFieldsTest, reads_never_throw_and_fall_back) {
  const auto doc = nlohmann::json::parse(R"({"s": "x", "n": 2.5, "i": 7, "f": 1.5, "null": null, "o": {}})");
  EXPECT_EQ(string_field(doc, "s"), "x");
  EXPECT_EQ(string_field(doc, "n", "none"), "none");
  EXPECT_DOUBLE_EQ(number_field(doc, "n"), 2.5);
  EXPECT_DOUBLE_EQ(number_field(doc, "i"), 7.0);
  EXPECT_TRUE(std::isnan(number_field(doc, "s")));
  EXPECT_TRUE(std::isnan(number_field(doc, "null")));
  EXPECT_DOUBLE_EQ(number_field(doc, "missing", -1.0), -1.0);
  EXPECT_EQ(integer_field<int>(doc, "i", 0), 7);
  EXPECT_EQ(integer_field<int>(doc, "f", -1), -1);  // 1.5 is not an integer
  EXPECT_EQ(integer_field<int>(doc, "o", -1), -1);
  const auto array = nlohmann::json::parse("[1, 2]");
  EXPECT_EQ(string_field(array, "s", "none"), "none");
  EXPECT_TRUE(std::isnan(number_field(array, "n")));
  EXPECT_EQ(integer_field<int>(array, "i", -1), -1);
}

/// A SYNTHETIC sample of GPU 2 over [t_ns, t_ns + 100 ms) with the GR engine busy.
auto sample(std::int64_t t_ns, double tensor_pct, double dram_pct) -> core::SolSample {
  core::RawSample raw;
  raw.device_index = 2;
  raw.t_start_ns = t_ns;
  raw.t_end_ns = t_ns + 100'000'000;
  raw.source = core::SourceKind::PmSampling;
  raw.set(core::MetricId::TensorPipe, tensor_pct);
  raw.set(core::MetricId::DramThroughput, dram_pct);
  raw.set(core::MetricId::GrActive, 100.0);
  return core::derive(raw, core::DeviceInfo{});
}

TEST(WindowJsonTest, a_window_is_written_in_the_sample_shape_with_the_cores_bound) {
  // Five compute-bound samples and five memory-bound ones: the window's means are latency-bound.
  std::vector<core::SolSample> samples;
  for (int i = 0; i < 10; ++i) {
    const std::int64_t t_ns = std::int64_t{i} * 100'000'000;
    samples.push_back(i < 5 ? sample(t_ns, 80.0, 10.0) : sample(t_ns, 10.0, 70.0));
  }
  const core::SolSample window = core::aggregate(samples);
  core::DeviceInfo device;
  device.uuid = "GPU-SYNTHETIC-2";
  const auto json = window_to_json(window, &device);
  EXPECT_EQ(json.dump(), sol_sample_to_json(window, &device).dump());
  EXPECT_EQ(json["device"], 2);
  EXPECT_EQ(json["uuid"], "GPU-SYNTHETIC-2");
  EXPECT_EQ(json["t_start_ns"], 0);
  EXPECT_EQ(json["t_end_ns"], 1'000'000'000);
  EXPECT_DOUBLE_EQ(json["compute_sol_pct"].get<double>(), 45.0);
  EXPECT_DOUBLE_EQ(json["memory_sol_pct"].get<double>(), 40.0);
  EXPECT_EQ(json["bound"], std::string(core::to_string(core::classify_bound(window))));
  EXPECT_EQ(json["bound"], "latency");
  EXPECT_TRUE(json["attainable_compute_sol_pct"].is_null());
  // And it reads back as the same window.
  const auto back = sample_from_json(nlohmann::json::parse(json.dump()));
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(back->bound, core::Bound::Latency);
  EXPECT_DOUBLE_EQ(back->compute_sol_pct, window.compute_sol_pct);
}

// Issue 23: every sample and window says why PM sampling was paused ("none" when it was not), both writers
// write the same bytes, a reader takes the reason back, and a document without it (an older daemon) or with a
// reason this build does not know reads as not paused.
TEST(PmPauseJsonTest, the_reason_is_written_read_back_and_tolerated_when_missing_or_unknown) {
  core::SolSample paused = sample(0, 10.0, 20.0);
  paused.source = core::SourceKind::Gpm;
  paused.flags |= core::kSamplePmPaused;
  paused.pm_pause = core::PmPauseReason::kProfiler;
  const auto json = sol_sample_to_json(paused, nullptr);
  EXPECT_EQ(json.at("pm_pause"), "profiler");
  std::string text;
  append_sol_sample_json(text, paused, nullptr);
  EXPECT_EQ(text, json.dump()) << "the direct writer writes the same field";
  const auto back = sample_from_json(nlohmann::json::parse(text));
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(back->pm_pause, core::PmPauseReason::kProfiler);
  EXPECT_EQ(back->flags & core::kSamplePmPaused, core::kSamplePmPaused);
  EXPECT_EQ(back->source, core::SourceKind::Gpm);

  EXPECT_EQ(sol_sample_to_json(sample(0, 10.0, 20.0), nullptr).at("pm_pause"), "none");
  for (const char* doc : {R"({"device": 0, "t_start_ns": 1, "t_end_ns": 2})",
                          R"({"device": 0, "t_start_ns": 1, "t_end_ns": 2, "pm_pause": null})",
                          R"({"device": 0, "t_start_ns": 1, "t_end_ns": 2, "pm_pause": "lunch"})",
                          R"({"device": 0, "t_start_ns": 1, "t_end_ns": 2, "pm_pause": 3})"}) {
    const auto tolerant = sample_from_json(nlohmann::json::parse(doc));
    ASSERT_TRUE(tolerant) << doc;
    EXPECT_EQ(tolerant->pm_pause, core::PmPauseReason::kNone) << doc;
  }
}

TEST(PmPauseJsonTest, a_window_carries_the_reason_of_its_latest_sample) {
  std::vector<core::SolSample> samples;
  for (int i = 0; i < 4; ++i) {
    core::SolSample s = sample(std::int64_t{i} * 100'000'000, 50.0, 20.0);
    if (i >= 2) {
      s.flags |= core::kSamplePmPaused;
      s.pm_pause = core::PmPauseReason::kManual;
    }
    samples.push_back(s);
  }
  const auto json = window_to_json(core::aggregate(samples), nullptr);
  EXPECT_EQ(json.at("pm_pause"), "manual");
  EXPECT_NE(json.at("flags").get<std::uint32_t>() & core::kSamplePmPaused, 0u);
}

}  // namespace
}  // namespace solscope::wire
