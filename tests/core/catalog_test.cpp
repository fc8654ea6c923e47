#include "core/metric_catalog.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/sol_terms.hpp"

namespace solscope::core {
namespace {

TEST(CatalogTest, rows_are_indexed_by_id) {
  auto catalog = metric_catalog();
  ASSERT_EQ(catalog.size(), kMetricCount);
  for (std::size_t i = 0; i < catalog.size(); ++i) EXPECT_EQ(index_of(catalog[i].id), i);
}

TEST(CatalogTest, names_carry_their_unit) {
  for (const auto& def : metric_catalog()) {
    const std::string name(def.name);
    const std::string unit(to_string(def.unit));
    EXPECT_TRUE(name.ends_with("_" + unit)) << name << " should end with _" << unit;
    EXPECT_FALSE(def.help.empty()) << name;
    EXPECT_TRUE(def.prom_name.starts_with("solscope_")) << name;
  }
}

TEST(CatalogTest, lookup_by_name_round_trips) {
  for (const auto& def : metric_catalog()) EXPECT_EQ(metric_by_name(def.name), def.id);
  EXPECT_EQ(metric_by_name("no_such_metric_pct"), MetricId::kCount);
}

TEST(CatalogTest, every_known_family_has_the_sol_core) {
  for (ChipFamily family : known_chip_families()) {
    for (MetricId id : {MetricId::TensorPipe, MetricId::AluPipe, MetricId::IssueActive,
                        MetricId::DramThroughput, MetricId::L2Throughput, MetricId::L1Wavefronts,
                        MetricId::SmActive, MetricId::SmOccupancy, MetricId::GrActive}) {
      EXPECT_FALSE(cupti_counter(metric_def(id), family).empty())
          << metric_def(id).name << " missing on " << to_string(family);
    }
    const bool fma = !cupti_counter(metric_def(MetricId::FmaPipe), family).empty();
    const bool fma_split = !cupti_counter(metric_def(MetricId::FmaHeavyPipe), family).empty() &&
                           !cupti_counter(metric_def(MetricId::FmaLitePipe), family).empty();
    EXPECT_NE(fma, fma_split) << "exactly one FMA form on " << to_string(family);
  }
}

TEST(CatalogTest, unknown_family_has_no_counters) {
  for (const auto& def : metric_catalog()) EXPECT_TRUE(cupti_counter(def, ChipFamily::Unknown).empty());
}

TEST(CatalogTest, pipe_and_path_groups_are_in_range) {
  std::set<std::size_t> pipes;
  std::set<std::size_t> paths;
  for (const auto& def : metric_catalog()) {
    if (def.role == MetricRole::ComputePipe) {
      ASSERT_LT(def.group, kPipeCount) << def.name;
      pipes.insert(def.group);
    }
    if (def.role == MetricRole::MemoryPath) {
      ASSERT_LT(def.group, kMemPathCount) << def.name;
      paths.insert(def.group);
    }
  }
  EXPECT_EQ(pipes.size(), kPipeCount) << "every pipe has a metric";
  EXPECT_EQ(paths.size(), kMemPathCount) << "every path has a metric";
}

TEST(CatalogTest, chip_names_map_to_families) {
  EXPECT_EQ(chip_family("GH100"), ChipFamily::Gh100);
  EXPECT_EQ(chip_family("GA100"), ChipFamily::Ga100);
  EXPECT_EQ(chip_family("AD102"), ChipFamily::Ga10x);
  EXPECT_EQ(chip_family("GB102"), ChipFamily::Gb100);
  EXPECT_EQ(chip_family("GB203"), ChipFamily::Gb20x);
  EXPECT_EQ(chip_family("TU102"), ChipFamily::Unknown);
  EXPECT_EQ(chip_family(""), ChipFamily::Unknown);
  EXPECT_EQ(known_chip_families_text(), "GA100, GA10x/AD10x, GH100, GB100/GB102, GB110, GB20x");
  for (ChipFamily family : known_chip_families()) {
    for (auto chip : chips_of(family)) EXPECT_EQ(chip_family(chip), family) << chip;
  }
}

TEST(CatalogTest, term_names_round_trip) {
  for (std::size_t i = 0; i < kPipeCount; ++i) {
    EXPECT_EQ(pipe_from_string(to_string(static_cast<Pipe>(i))), static_cast<Pipe>(i));
  }
  for (std::size_t i = 0; i < kMemPathCount; ++i) {
    EXPECT_EQ(mem_path_from_string(to_string(static_cast<MemPath>(i))), static_cast<MemPath>(i));
  }
  EXPECT_EQ(bound_from_string("latency"), Bound::Latency);
  EXPECT_EQ(source_kind_from_string("pm_sampling"), SourceKind::PmSampling);
  EXPECT_FALSE(pipe_from_string("warp").has_value());
}

}  // namespace
}  // namespace solscope::core
