// The counting rule of a damaged trace (issue 18, defect 2): one damaged cell costs one row, the read goes on
// past it, and rows read + rows skipped = the table's rows. Each case used to lose rows without counting
// them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <sstream>
#include <string>

#include "trace/btree_cells.hpp"
#include "trace/damage_fixtures.hpp"
#include "trace/export.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"

namespace solscope::trace {
namespace {

using ::testing::HasSubstr;
using testing::kDemoTrace;
using testing::kDemoTraceSamples;
using testing::TempDir;

/// A copy of the demo trace whose samples row `rowid` claims the id `to` instead (the same varint length:
/// two changed bytes, as in the issue).
auto demo_with_rowid(const TempDir& dir, std::uint64_t rowid, std::uint64_t to) -> std::filesystem::path {
  auto bytes = testing::read_bytes(kDemoTrace);
  const auto cell = testing::find_rowid(bytes, rowid, testing::kSampleColumns);
  EXPECT_TRUE(cell.has_value()) << "no samples cell with rowid " << rowid;
  if (cell) {
    EXPECT_TRUE(testing::set_rowid(bytes, *cell, to));
  }
  const auto path = dir.file("rowid-" + std::to_string(rowid) + ".sqlite");
  testing::write_bytes(path, bytes, bytes.size());
  return path;
}

/// A copy of the demo trace with `sql` run on it (a value out of its domain in a valid file).
auto demo_with_sql(const TempDir& dir, const std::string& name, const std::string& sql)
    -> std::filesystem::path {
  const auto path = dir.file(name);
  const auto bytes = testing::read_bytes(kDemoTrace);
  testing::write_bytes(path, bytes, bytes.size());
  testing::run_sql(path, sql);
  return path;
}

/// Reads every sample through for_each and for_each_sol; both must keep the counting rule.
auto read_counted(const Reader& reader) -> ReadSummary {
  auto sol = reader.for_each_sol({}, [](const core::SolSample&) { return true; });
  EXPECT_TRUE(sol) << sol.error().describe();
  auto raw = reader.for_each({}, [](const core::RawSample&) { return true; });
  EXPECT_TRUE(raw) << raw.error().describe();
  if (!raw || !sol) return {};
  EXPECT_EQ(sol->samples, raw->samples);
  EXPECT_EQ(sol->report.skipped_rows, raw->report.skipped_rows);
  return *raw;
}

TEST(DamageCountTest, a_samples_rowid_raised_to_16383_costs_one_row_and_says_so) {
  // The case: 3,261 of 4,800 samples were read (the rows after the bad id were lost), 0 skipped.
  TempDir dir;
  const auto path = demo_with_rowid(dir, 3261, 16383);
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  const ReadSummary summary = read_counted(*reader);
  EXPECT_EQ(summary.samples + summary.report.skipped_rows, kDemoTraceSamples) << summary.note;
  EXPECT_EQ(summary.samples, kDemoTraceSamples - 1);
  EXPECT_EQ(summary.report.skipped_rows, 1U);
  EXPECT_EQ(summary.report.table_rows, std::optional<std::uint64_t>(kDemoTraceSamples));
  EXPECT_THAT(summary.note, HasSubstr("read 4799 samples; samples: 1 of 4,800 rows damaged and skipped"));
  // The export (CSV) reads the same rows: a header and 4,799 lines.
  std::ostringstream csv;
  auto exported = export_csv(*reader, csv);
  ASSERT_TRUE(exported);
  EXPECT_EQ(exported->samples, kDemoTraceSamples - 1);
  const std::string text = csv.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<std::ptrdiff_t>(kDemoTraceSamples));
}

TEST(DamageCountTest, a_kernels_rowid_raised_to_16383_costs_one_row_and_says_so) {
  // The case: 15,000 of 20,000 kernel calls were lost with no warning at all.
  TempDir dir;
  const auto path = dir.file("kernels.sqlite");
  testing::write_kernels_trace(path);
  auto bytes = testing::read_bytes(path);
  const auto cell = testing::find_rowid(bytes, 5000, testing::kKernelColumns);
  ASSERT_TRUE(cell.has_value());
  ASSERT_TRUE(testing::set_rowid(bytes, *cell, 16383));
  testing::write_bytes(path, bytes, bytes.size());
  auto table = testing::read_kernels(path);
  ASSERT_TRUE(table) << table.error().describe();
  const KernelReadReport& r = table->report;
  EXPECT_EQ(table->kernels.size(), r.kernels);
  EXPECT_EQ(r.kernels + r.skipped_rows, testing::kKernelTraceKernels) << table->note;
  EXPECT_EQ(r.kernels, testing::kKernelTraceKernels - 1);
  EXPECT_EQ(r.skipped_rows, 1U);
  EXPECT_THAT(table->note,
              HasSubstr("read 19999 kernel records; kernels: 1 of 20,000 rows damaged and skipped"));
  for (const auto& k : table->kernels) EXPECT_NE(k.correlation, 5000U) << "the damaged row is not data";
}

TEST(DamageCountTest, a_device_outside_the_devices_table_is_a_damaged_row_not_a_gpu) {
  // -1 read as "GPU 4294967295" and 1215752191 (a uint32 cut of 5510719487) as "GPU 1215752191", silently.
  TempDir dir;
  const auto path = demo_with_sql(dir, "device.sqlite",
                                  "UPDATE samples SET device = -1 WHERE id = 100;"
                                  "UPDATE samples SET device = 1215752191 WHERE id = 200;"
                                  "UPDATE samples SET device = 5510719487 WHERE id = 300;");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  std::set<std::uint32_t> devices;
  auto summary = reader->for_each({}, [&](const core::RawSample& s) {
    devices.insert(s.device_index);
    return true;
  });
  ASSERT_TRUE(summary);
  EXPECT_EQ(devices, (std::set<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(summary->samples, kDemoTraceSamples - 3);
  EXPECT_EQ(summary->report.skipped_rows, 3U);
  EXPECT_THAT(summary->note, HasSubstr("samples: 3 of 4,800 rows damaged and skipped"));
  EXPECT_THAT(summary->note, HasSubstr("device or times lie outside the trace"));
}

TEST(DamageCountTest, a_kernel_on_a_device_outside_the_devices_table_is_a_damaged_row) {
  TempDir dir;
  const auto path = dir.file("kernels.sqlite");
  testing::write_kernels_trace(path);
  testing::run_sql(path,
                   "UPDATE kernels SET device = -1 WHERE id = 10;"
                   "UPDATE kernels SET device = 1215752191 WHERE id = 20;"
                   "UPDATE kernels SET end_ns = start_ns - 1 WHERE id = 30;");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto table = reader->kernels();
  ASSERT_TRUE(table);
  EXPECT_EQ(table->report.kernels, testing::kKernelTraceKernels - 3);
  EXPECT_EQ(table->report.skipped_rows, 3U);
  for (const auto& k : table->kernels) EXPECT_LT(k.device, testing::kKernelTraceDevices);
}

TEST(DamageCountTest, a_t_start_of_int64_max_is_skipped_and_the_read_goes_on) {
  // Used to end every read at that row, with exit 0. A t_end_ns of INT64_MAX is as damaged, and neither is
  // the trace's span.
  TempDir dir;
  const std::string max = std::to_string(std::numeric_limits<std::int64_t>::max());
  const auto path = demo_with_sql(dir, "time.sqlite",
                                  "UPDATE samples SET t_start_ns = " + max + " WHERE id = 1000;" +
                                      "UPDATE samples SET t_end_ns = " + max + " WHERE id = 4800;");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  std::int64_t last_start_ns = 0;
  auto summary = reader->for_each({}, [&](const core::RawSample& s) {
    last_start_ns = s.t_start_ns;
    return true;
  });
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->samples, kDemoTraceSamples - 2);
  EXPECT_EQ(summary->report.skipped_rows, 2U);
  EXPECT_EQ(last_start_ns, 1767225719900000000) << "read to the end (id 4799)";
  const auto span = reader->time_span();
  ASSERT_TRUE(span && *span);
  EXPECT_EQ((*span)->first, 1767225600000000000);
  EXPECT_EQ((*span)->second, 1767225720000000000) << "the damaged times are not the trace's span";
}

TEST(DamageCountTest, a_time_that_breaks_the_order_costs_one_row) {
  // A t_start_ns raised within its own row's span would pass the domain check: its neighbours tell.
  TempDir dir;
  const auto path = demo_with_sql(dir, "order.sqlite",
                                  "UPDATE samples SET t_start_ns = t_start_ns + 60000000000, "
                                  "t_end_ns = t_end_ns + 60000000000 WHERE id = 2000;");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  const ReadSummary summary = read_counted(*reader);
  EXPECT_EQ(summary.samples, kDemoTraceSamples - 1);
  EXPECT_EQ(summary.report.skipped_rows, 1U);
}

}  // namespace
}  // namespace solscope::trace
