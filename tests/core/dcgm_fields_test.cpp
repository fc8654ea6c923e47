// The DCGM field table against DCGM's public dcgm_fields.h (field ids and DCGM_FT_* placeholder values).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "core/dcgm_fields.hpp"

namespace solscope::core {
namespace {

TEST(DcgmFields, ids_match_dcgm_fields_h) {
  // #define values in dcgmlib/dcgm_fields.h.
  const std::pair<std::uint16_t, std::string_view> expected[] = {
      {100, "DCGM_FI_DEV_SM_CLOCK"},
      {101, "DCGM_FI_DEV_MEM_CLOCK"},
      {150, "DCGM_FI_DEV_GPU_TEMP"},
      {155, "DCGM_FI_DEV_POWER_USAGE"},
      {160, "DCGM_FI_DEV_POWER_MGMT_LIMIT"},
      {203, "DCGM_FI_DEV_GPU_UTIL"},
      {204, "DCGM_FI_DEV_MEM_COPY_UTIL"},
      {250, "DCGM_FI_DEV_FB_TOTAL"},
      {252, "DCGM_FI_DEV_FB_USED"},
      {1001, "DCGM_FI_PROF_GR_ENGINE_ACTIVE"},
      {1002, "DCGM_FI_PROF_SM_ACTIVE"},
      {1003, "DCGM_FI_PROF_SM_OCCUPANCY"},
      {1004, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"},
      {1005, "DCGM_FI_PROF_DRAM_ACTIVE"},
      {1006, "DCGM_FI_PROF_PIPE_FP64_ACTIVE"},
      {1007, "DCGM_FI_PROF_PIPE_FP32_ACTIVE"},
      {1008, "DCGM_FI_PROF_PIPE_FP16_ACTIVE"},
      {1009, "DCGM_FI_PROF_PCIE_TX_BYTES"},
      {1010, "DCGM_FI_PROF_PCIE_RX_BYTES"},
      {1011, "DCGM_FI_PROF_NVLINK_TX_BYTES"},
      {1012, "DCGM_FI_PROF_NVLINK_RX_BYTES"},
  };
  ASSERT_EQ(dcgm_fields().size(), std::size(expected));
  for (const auto& [id, name] : expected) {
    const auto by_id = dcgm_field_by_id(id);
    ASSERT_TRUE(by_id) << id;
    EXPECT_EQ(by_id->name, name);
    const auto by_name = dcgm_field_by_name(name);
    ASSERT_TRUE(by_name) << name;
    EXPECT_EQ(by_name->id, id);
    const auto by_tag = dcgm_field_by_tag(by_id->tag);
    ASSERT_TRUE(by_tag) << by_id->tag;
    EXPECT_EQ(by_tag->id, id);
  }
  EXPECT_FALSE(dcgm_field_by_id(251));  // FB_FREE: no metric of its own
  EXPECT_FALSE(dcgm_field_by_name("DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE"));
  EXPECT_FALSE(dcgm_field_by_tag("tenso"));  // tags match case-sensitively
}

TEST(DcgmFields, ids_names_tags_and_metrics_are_unique) {
  std::set<std::uint16_t> ids;
  std::set<std::string_view> names, tags;
  std::set<MetricId> metrics;
  for (const DcgmField& f : dcgm_fields()) {
    EXPECT_TRUE(ids.insert(f.id).second) << f.id;
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_TRUE(tags.insert(f.tag).second) << f.tag;
    EXPECT_TRUE(metrics.insert(f.metric).second) << f.name;
  }
}

TEST(DcgmFields, ratios_scale_to_percent_and_mib_to_bytes) {
  EXPECT_DOUBLE_EQ(dcgm_value(*dcgm_field_by_id(1004), 0.253), 25.3);
  EXPECT_DOUBLE_EQ(dcgm_value(*dcgm_field_by_id(1005), 0.5), 50.0);
  EXPECT_DOUBLE_EQ(dcgm_value(*dcgm_field_by_id(203), 97.0), 97.0);  // GPU_UTIL is already percent
  EXPECT_DOUBLE_EQ(dcgm_value(*dcgm_field_by_id(252), 2.0), 2.0 * 1048576.0);
  EXPECT_EQ(dcgm_field_by_id(1007)->metric, MetricId::FmaPipe);
  EXPECT_EQ(dcgm_field_by_id(1005)->metric, MetricId::DramThroughput);
}

TEST(DcgmFields, placeholders_are_unknown) {
  // DCGM_FT_FP64_BLANK = 140737488355328.0 and NOT_FOUND / NOT_SUPPORTED / NOT_PERMISSIONED after it.
  for (double v : {140737488355328.0, 140737488355329.0, 140737488355330.0, 140737488355331.0}) {
    EXPECT_TRUE(is_dcgm_placeholder(v)) << v;
    EXPECT_TRUE(std::isnan(dcgm_value(*dcgm_field_by_id(1004), v)));
  }
  // DCGM_FT_INT64_BLANK = 0x7ffffffffffffff0 .. NOT_PERMISSIONED = 0x7ffffffffffffff3, as printed.
  EXPECT_TRUE(is_dcgm_placeholder(9223372036854775792.0));
  EXPECT_TRUE(is_dcgm_placeholder(9223372036854775794.0));
  // DCGM_FT_INT32_BLANK = 0x7ffffff0 .. 0x7ffffff3.
  EXPECT_TRUE(is_dcgm_placeholder(2147483632.0));
  EXPECT_TRUE(is_dcgm_placeholder(2147483635.0));
  EXPECT_TRUE(is_dcgm_placeholder(std::numeric_limits<double>::quiet_NaN()));
  // Neighbours are values.
  EXPECT_FALSE(is_dcgm_placeholder(140737488355327.0));
  EXPECT_FALSE(is_dcgm_placeholder(140737488355332.0));
  EXPECT_FALSE(is_dcgm_placeholder(2147483631.0));
  EXPECT_FALSE(is_dcgm_placeholder(2147483636.0));
  EXPECT_FALSE(is_dcgm_placeholder(0.0));
  EXPECT_FALSE(is_dcgm_placeholder(1e12));
}

TEST(DcgmFields, field_by_metric_names_the_series_the_fleet_view_queries) {
  EXPECT_EQ(dcgm_field_by_metric(MetricId::TensorPipe)->name, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE");
  EXPECT_EQ(dcgm_field_by_metric(MetricId::FmaPipe)->name, "DCGM_FI_PROF_PIPE_FP32_ACTIVE");
  EXPECT_EQ(dcgm_field_by_metric(MetricId::DramThroughput)->id, 1005);
  EXPECT_EQ(dcgm_field_by_metric(MetricId::GpuUtil)->scale, 1.0);  // already a percent
  EXPECT_FALSE(dcgm_field_by_metric(MetricId::L2Throughput).has_value()) << "DCGM has no L2 field";
  for (const DcgmField& f : dcgm_fields()) EXPECT_TRUE(f.name.starts_with(kDcgmSeriesPrefix)) << f.name;
}

}  // namespace
}  // namespace solscope::core
