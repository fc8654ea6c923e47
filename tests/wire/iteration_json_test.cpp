// The JSON of a GPU's training iteration (issue 25 item 4) and of a job's ranks: written with the one rule
// for unknown numbers (null, never 0) and read back whole, so a view attached to a daemon sees the daemon's
// estimate.
#include "wire/iteration_json.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "wire/json_text.hpp"

namespace solscope::wire {
namespace {

using Json = nlohmann::json;

/// A 0.5 s iteration: compute 0.375, memory 0.125, communication 0.25, idle 0.25 (strip bins 18, 6, 12, 12).
auto estimate() -> core::IterationEstimate {
  core::IterationEstimate e;
  e.periodic = true;
  e.period_s = 0.5;
  e.jitter_s = 0.00390625;
  e.confidence = 0.875;
  e.window_ns = 30'000'000'000;
  e.estimated_at_ns = 1'735'689'630'000'000'000;
  e.part_ratio = {0.375, 0.125, 0.25, 0.0, 0.25};
  e.compute_ratio = 0.5;
  e.communication_ratio = 0.25;
  e.exposed_communication_ratio = 0.125;
  e.communication_offset_s = 0.0625;
  for (std::size_t i = 0; i < e.strip.size(); ++i) {
    e.strip[i] = i < 18   ? core::IterationPart::Compute
                 : i < 24 ? core::IterationPart::Memory
                 : i < 36 ? core::IterationPart::Communication
                          : core::IterationPart::Idle;
  }
  return e;
}

/// Through text and back, as the daemon's answer travels.
auto travel(const core::IterationEstimate& e) -> core::IterationEstimate {
  return iteration_from_json(Json::parse(json_text(iteration_to_json(e))));
}

TEST(IterationJson, a_periodic_estimate_is_written_and_read_back_whole) {
  const core::IterationEstimate e = estimate();
  const std::string text = json_text(iteration_to_json(e));
  EXPECT_EQ(
      text.substr(0, text.find(",\"strip\"")),
      R"({"periodic":true,"period_s":0.5,"jitter_s":0.00390625,"confidence":0.875,"window_s":30.0,)"
      R"("estimated_at_ns":1735689630000000000,"parts":{"compute":0.375,"memory":0.125,)"
      R"("communication":0.25,"latency":0.0,"idle":0.25},"compute_ratio":0.5,"communication_ratio":0.25,)"
      R"("exposed_communication_ratio":0.125,"communication_offset_s":0.0625)");
  const core::IterationEstimate read = travel(e);
  EXPECT_TRUE(read.periodic);
  EXPECT_EQ(read.period_s, 0.5);
  EXPECT_EQ(read.jitter_s, 0.00390625);
  EXPECT_EQ(read.confidence, 0.875);
  EXPECT_EQ(read.window_ns, 30'000'000'000);
  EXPECT_EQ(read.estimated_at_ns, e.estimated_at_ns);
  EXPECT_EQ(read.part_ratio, e.part_ratio);
  EXPECT_EQ(read.compute_ratio, 0.5);
  EXPECT_EQ(read.communication_ratio, 0.25);
  EXPECT_EQ(read.exposed_communication_ratio, 0.125);
  EXPECT_EQ(read.communication_offset_s, 0.0625);
  EXPECT_EQ(read.strip, e.strip);
  EXPECT_EQ(read.note, "");
}

TEST(IterationJson, not_periodic_writes_null_figures_and_reads_back_as_not_periodic) {
  core::IterationEstimate e;
  e.confidence = 0.25;
  e.note = "no repeat found";
  EXPECT_EQ(
      json_text(iteration_to_json(e)),
      R"({"periodic":false,"period_s":null,"jitter_s":null,"confidence":0.25,"window_s":0.0,)"
      R"("estimated_at_ns":0,"parts":{"compute":null,"memory":null,"communication":null,"latency":null,)"
      R"("idle":null},"compute_ratio":null,"communication_ratio":null,"exposed_communication_ratio":null,)"
      R"("communication_offset_s":null,"strip":[],"note":"no repeat found"})");
  const core::IterationEstimate read = travel(e);
  EXPECT_FALSE(read.periodic);
  EXPECT_EQ(read.confidence, 0.25);
  EXPECT_TRUE(std::isnan(read.period_s));
  EXPECT_EQ(read.note, "no repeat found");
  // An iteration without communication: the offset alone is null.
  core::IterationEstimate quiet = estimate();
  quiet.communication_offset_s = core::kUnknown;
  EXPECT_TRUE(iteration_to_json(quiet)["communication_offset_s"].is_null());
  EXPECT_TRUE(std::isnan(travel(quiet).communication_offset_s));
}

TEST(IterationJson, a_damaged_answer_reads_as_not_periodic_and_never_throws) {
  Json json = Json::parse(json_text(iteration_to_json(estimate())));
  Json short_strip = json;
  short_strip["strip"].erase(0);
  EXPECT_FALSE(iteration_from_json(short_strip).periodic);
  Json bad_part = json;
  bad_part["strip"][3] = "warp";
  EXPECT_FALSE(iteration_from_json(bad_part).periodic);
  Json mistyped = json;
  mistyped["periodic"] = "yes";
  mistyped["period_s"] = "0.5";
  EXPECT_FALSE(iteration_from_json(mistyped).periodic);
  EXPECT_FALSE(iteration_from_json(Json::array()).periodic);
  EXPECT_FALSE(iteration_from_json(Json(nullptr)).periodic);
}

TEST(JobStepsJson, ranks_straggler_and_spread) {
  core::JobSteps job;
  job.devices = {0, 2};
  job.ranks = {{.rank = "GPU 0",
                .iteration_s = 0.5,
                .compute_s = 0.25,
                .communication_s = 0.125,
                .exposed_communication_s = 0.0625},
               {.rank = "GPU 2", .iteration_s = 0.625, .compute_s = 0.5, .communication_s = 0.125}};
  job.not_periodic = {1};
  job.verdict = core::StragglerVerdict{.straggler = 1, .spread_pct = 25.0, .iteration_spread_pct = 12.5};
  EXPECT_EQ(
      json_text(job_steps_to_json(job)),
      R"({"ranks":[{"device":0,"rank":"GPU 0","iteration_s":0.5,"compute_s":0.25,"communication_s":0.125,)"
      R"("exposed_communication_s":0.0625},{"device":2,"rank":"GPU 2","iteration_s":0.625,"compute_s":0.5,)"
      R"("communication_s":0.125,"exposed_communication_s":0.0}],"not_periodic":[1],)"
      R"("straggler":{"device":2,"rank":"GPU 2"},"spread_pct":25.0,"iteration_spread_pct":12.5})");
  job.verdict.reset();
  const Json none = job_steps_to_json(job);
  EXPECT_TRUE(none["straggler"].is_null());
  EXPECT_TRUE(none["spread_pct"].is_null());
  EXPECT_TRUE(none["iteration_spread_pct"].is_null());
}

}  // namespace
}  // namespace solscope::wire
