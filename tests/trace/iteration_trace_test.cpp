// The generator's SYNTHETIC `training` and `serving` profiles (tests/data/synthetic/iteration_trace.hpp),
// read back through trace::Reader and derived as the daemon derives them: the iteration found in the samples
// alone (core/iteration.hpp) is the planted one within 2%, and the serving trace is "not periodic" (issue
// 25).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/derive.hpp"
#include "core/iteration.hpp"
#include "data/synthetic/iteration_trace.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"

namespace solscope::synthetic {
namespace {

/// Each device's estimate over the whole trace (the trace is one window long).
auto estimates(const std::filesystem::path& path) -> std::vector<core::IterationEstimate> {
  auto reader = trace::Reader::open(path);
  EXPECT_TRUE(reader) << reader.error().describe();
  EXPECT_TRUE(reader->metadata().synthetic);
  const auto& devs = reader->devices();
  std::vector<std::vector<core::IterationPoint>> points(devs.size());
  for (const core::RawSample& r : trace::testing::read_all(*reader).samples) {
    points.at(r.device_index).push_back(core::iteration_point(core::derive(r, devs.at(r.device_index))));
  }
  std::vector<core::IterationEstimate> out;
  for (const auto& p : points) out.push_back(core::estimate_iteration(p));
  return out;
}

/// The mean length of the planted iterations that lie wholly in the trace.
auto planted_period_s(const ProfileOptions& o, std::uint32_t gpu) -> double {
  const auto starts = training_starts(training_shape(o, gpu));
  double first = -1;
  double last = -1;
  int n = 0;
  for (double s : starts) {
    if (s < 0 || s > o.seconds) continue;
    if (first < 0) first = s;
    last = s;
    ++n;
  }
  return (last - first) / (n - 1);
}

TEST(IterationTraceTest, training_traces_give_the_planted_period_within_2_percent) {
  trace::testing::TempDir dir;
  for (const ProfileOptions& o :
       {ProfileOptions{.profile = Profile::Training,
       .devices = 2,
       .hz = 100,
       .seconds = 30.0,
       .iteration = {.period_s = 1.3, .jitter_pct = 2.0, .noise_pct = 3.0}},
        ProfileOptions{.profile = Profile::Training,
        .devices = 2,
        .hz = 10,
        .seconds = 30.0,
        .iteration = {.period_s = 3.7, .jitter_pct = 1.0, .drift_pct = 5.0, .noise_pct = 3.0}},
        ProfileOptions{.profile = Profile::Training,
        .devices = 1,
        .hz = 100,
        .seconds = 30.0,
        .iteration = {.period_s = 0.25, .drift_pct = 4.0}}}) {
    const auto path = dir.file("training.sqlite");
    ProfileOptions overwrite = o;
    overwrite.overwrite = true;
    auto written = write_profile_trace(path, overwrite);
    ASSERT_TRUE(written) << written.error().describe();
    EXPECT_EQ(*written, static_cast<std::uint64_t>(o.devices * o.hz * 30));
    const auto found = estimates(path);
    ASSERT_EQ(found.size(), o.devices);
    for (std::uint32_t g = 0; g < o.devices; ++g) {
      const core::IterationEstimate& e = found[g];
      const double planted = planted_period_s(o, g);
      ASSERT_TRUE(e.periodic) << "period " << o.iteration.period_s << " gpu " << g << ": " << e.note;
      EXPECT_NEAR(e.period_s, planted, 0.02 * planted) << "period " << o.iteration.period_s << " gpu " << g;
      // 70% GEMM (compute-bound), 20% all-reduce with the SMs waiting (exposed communication), 10% idle, to
      // one strip bin plus one sample per iteration: a sample that straddles two parts is classed by its mix
      // (one 5% into the idle is busy, GR active >= 5%).
      const double tolerance = 1.0 / core::kIterationStripBins + 1.0 / (o.hz * planted);
      EXPECT_NEAR(e.part_ratio[static_cast<std::size_t>(core::IterationPart::Compute)], 0.7, tolerance);
      EXPECT_NEAR(e.exposed_communication_ratio, 0.2, tolerance);
      EXPECT_NEAR(e.part_ratio[static_cast<std::size_t>(core::IterationPart::Idle)], 0.1, tolerance);
    }
  }
}

TEST(IterationTraceTest, a_serving_trace_is_not_periodic) {
  trace::testing::TempDir dir;
  for (std::uint32_t hz : {100U, 10U}) {
    const auto path = dir.file("serving.sqlite");
    auto written = write_profile_trace(
        path, {.profile = Profile::Serving, .devices = 4, .hz = hz, .seconds = 30.0, .overwrite = true});
    ASSERT_TRUE(written) << written.error().describe();
    for (const core::IterationEstimate& e : estimates(path)) {
      EXPECT_FALSE(e.periodic) << hz << " Hz: period " << e.period_s << " confidence " << e.confidence;
      EXPECT_LT(e.confidence, core::kIterationMinConfidence);
      EXPECT_FALSE(e.note.empty());
    }
  }
  EXPECT_EQ(parse_profile("training"), Profile::Training);
  EXPECT_EQ(parse_profile("serving"), Profile::Serving);
  auto refused =
      write_profile_trace(dir.file("bad.sqlite"),
                          {.profile = Profile::Training, .kernels = true, .iteration = {.period_s = 1.0}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace solscope::synthetic
