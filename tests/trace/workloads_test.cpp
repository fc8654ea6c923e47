// The workloads table (schema 5, issue 24): round trip of the SYNTHETIC workloads scenario, open rows while
// recording, changes from another thread, schema-4 files, and damage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "data/synthetic/workloads.hpp"
#include "data/synthetic/workloads_trace.hpp"
#include "trace/reader.hpp"
#include "trace/schema.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {
namespace {

using testing::TempDir;

constexpr std::int64_t kT0 = synthetic::kStartNs;
constexpr std::int64_t kSecondNs = core::kNsPerS;

auto read_workloads(const std::filesystem::path& path) -> WorkloadTable {
  auto reader = Reader::open(path);
  EXPECT_TRUE(reader) << reader.error().describe();
  if (!reader) return {};
  auto table = reader->workloads();
  EXPECT_TRUE(table) << table.error().describe();
  return table ? *table : WorkloadTable{};
}

/// One exclusive workload: pod `name` in namespace "ns", one process `pid`.
auto exclusive(const std::string& name, std::int32_t pid) -> core::GpuWorkloads {
  const core::ProcessWorkload p{.pid = pid,
                                .id = core::WorkloadIdentity{.pod = name, .pod_namespace = "ns"},
                                .origin = core::WorkloadOrigin::kKubelet,
                                .sm_pct = 50.0};
  return core::attribute_gpu(std::span(&p, 1), {});
}

/// A trace of `devices` devices with `seconds` one-second samples each; `between(n)` runs before round n.
template <class Between>
void write_trace(const std::filesystem::path& path, std::uint32_t devices, std::int64_t seconds,
                 Between between) {
  auto writer = Writer::open(path);
  ASSERT_TRUE(writer) << writer.error().describe();
  const auto devs = synthetic::devices(devices);
  ASSERT_TRUE(writer->write_devices(devs));
  for (std::int64_t n = 0; n < seconds; ++n) {
    between(*writer, n);
    for (std::uint32_t d = 0; d < devices; ++d) {
      core::RawSample raw = synthetic::sample(d, static_cast<std::uint64_t>(n), 1);
      raw.t_start_ns = kT0 + n * kSecondNs;
      raw.t_end_ns = raw.t_start_ns + kSecondNs;
      ASSERT_TRUE(writer->append(raw, core::derive(raw, devs[d])));
    }
  }
  ASSERT_TRUE(writer->close());
}

TEST(WorkloadsTest, the_synthetic_scenario_reads_back_row_for_row) {
  TempDir dir;
  const auto path = dir.file("w.sqlite");
  auto written = synthetic::write_workloads_trace(path);
  ASSERT_TRUE(written) << written.error().describe();
  EXPECT_EQ(*written, 40u);
  const WorkloadTable table = read_workloads(path);
  EXPECT_TRUE(table.present);
  EXPECT_FALSE(table.report.damaged());
  EXPECT_EQ(table.note, "");
  EXPECT_EQ(table.report.rows, 4u);
  EXPECT_EQ(table.report.table_rows, 4u);
  const auto expected = synthetic::workload_scenario_intervals();
  ASSERT_EQ(table.rows.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(table.rows[i], expected[i]) << "row " << i;
  // The figures the report tests rely on, spelled out once.
  const core::WorkloadInterval& a = table.rows[0];
  EXPECT_EQ(a.sharing, core::WorkloadSharing::kTimeSliced);
  EXPECT_EQ(a.share.id.display(), "research/train-a/main");
  EXPECT_EQ(a.share.pids, (std::vector<std::int32_t>{101}));
  EXPECT_EQ(a.share.fraction, 0.75);
  EXPECT_EQ(a.share.sm_pct, 60.0);
  EXPECT_EQ(a.t_end_ns, synthetic::kWorkloadScenarioStartNs + 20 * kSecondNs) << "ended at the last sample";
  EXPECT_EQ(table.rows[1].share.pids, (std::vector<std::int32_t>{202, 203}));
  EXPECT_EQ(table.rows[1].share.fraction, 0.25);
  EXPECT_EQ(table.rows[2].share.pids, std::vector<std::int32_t>{}) << "allocated, no process";
  EXPECT_EQ(table.rows[2].t_end_ns, synthetic::kWorkloadScenarioStartNs + 8 * kSecondNs);
  EXPECT_EQ(table.rows[3].t_end_ns, synthetic::kWorkloadScenarioStartNs + 16 * kSecondNs);
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader);
  EXPECT_TRUE(reader->metadata().workload_refresh) << "meta workload_refresh = 1";
}

TEST(WorkloadsTest, the_columns_hold_what_sql_users_read) {
  TempDir dir;
  const auto path = dir.file("w.sqlite");
  ASSERT_TRUE(synthetic::write_workloads_trace(path));
  // Through SQLite itself: text columns as documented, NULL for unknown, never 0 or "".
  testing::run_sql(
      path,
      "CREATE TABLE check_rows AS SELECT id FROM workloads WHERE id = 2 AND device = 0 AND sharing = "
      "'time_sliced' AND origin = 'kubelet' AND pod = 'infer-b' AND namespace = 'serving' AND "
      "container = 'server' AND hpc_job IS NULL AND user IS NULL AND pids = '202,203' AND sm_pct = "
      "20.0 AND fraction = 0.25 AND t_end_ns IS NOT NULL "
      "UNION ALL SELECT id FROM workloads WHERE id = 3 AND pids IS NULL AND sm_pct = 0.0;");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* count = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM check_rows", -1, &count, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(count), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(count, 0), 2);
  sqlite3_finalize(count);
  sqlite3_close(db);
}

TEST(WorkloadsTest, rows_stay_open_until_the_next_change_or_close) {
  TempDir dir;
  const auto path = dir.file("w.sqlite");
  auto writer = Writer::open(path);
  ASSERT_TRUE(writer);
  const auto devs = synthetic::devices(1);
  ASSERT_TRUE(writer->write_devices(devs));
  ASSERT_TRUE(writer->add_workloads(0, kT0, exclusive("a", 10)));
  ASSERT_TRUE(writer->add_workloads(0, kT0 + 1, exclusive("a", 10))) << "an equal set is ignored";
  core::RawSample raw = synthetic::sample(0, 0, 1);
  ASSERT_TRUE(writer->append(raw, core::derive(raw, devs[0])));
  ASSERT_TRUE(writer->flush());
  EXPECT_EQ(writer->workload_rows(), 1u);
  {
    // A reader while recording (a killed recorder leaves the same): the row is open.
    const WorkloadTable open = read_workloads(path);
    ASSERT_EQ(open.rows.size(), 1u);
    EXPECT_EQ(open.rows[0].t_end_ns, std::nullopt);
    EXPECT_EQ(open.rows[0].t_start_ns, kT0);
  }
  // A change whose time steps back starts where the set it replaces started: no negative interval.
  ASSERT_TRUE(writer->add_workloads(0, kT0 - 5, exclusive("b", 11)));
  ASSERT_TRUE(writer->close());
  const WorkloadTable closed = read_workloads(path);
  ASSERT_EQ(closed.rows.size(), 2u);
  EXPECT_EQ(closed.rows[0].share.id.pod, "a");
  EXPECT_EQ(closed.rows[0].t_end_ns, kT0);
  EXPECT_EQ(closed.rows[1].share.id.pod, "b");
  EXPECT_EQ(closed.rows[1].t_start_ns, kT0);
  EXPECT_EQ(closed.rows[1].t_end_ns, raw.t_end_ns) << "closed at the last sample's end";
  EXPECT_FALSE(closed.report.damaged());
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader);
  EXPECT_FALSE(reader->metadata().workload_refresh) << "never set here";
}

TEST(WorkloadsTest, changes_from_another_thread_are_all_kept_in_order) {
  TempDir dir;
  const auto path = dir.file("w.sqlite");
  // 600 changes (more than kMaxPendingWorkloadChanges, so some commit at once on the changing thread) while
  // 2,000 samples are appended: every change becomes one row, each ending where the next begins.
  constexpr int kChanges = 600;
  static_assert(kChanges > static_cast<int>(kMaxPendingWorkloadChanges));
  auto writer = Writer::open(path, WriterOptions{.batch_samples = 64});
  ASSERT_TRUE(writer);
  const auto devs = synthetic::devices(1);
  ASSERT_TRUE(writer->write_devices(devs));
  std::thread changer([&] {
    for (int i = 0; i < kChanges; ++i) {
      const std::string pod = i % 2 == 0 ? "even" : "odd";
      EXPECT_TRUE(writer->add_workloads(0, kT0 + i * 1'000'000, exclusive(pod, 100 + i)));
    }
  });
  for (std::uint64_t n = 0; n < 2000; ++n) {
    const core::RawSample raw = synthetic::sample(0, n, 1);
    ASSERT_TRUE(writer->append(raw, core::derive(raw, devs[0])));
  }
  changer.join();
  ASSERT_TRUE(writer->close());
  const WorkloadTable table = read_workloads(path);
  ASSERT_EQ(table.rows.size(), static_cast<std::size_t>(kChanges));
  for (int i = 0; i < kChanges; ++i) {
    const auto& row = table.rows[static_cast<std::size_t>(i)];
    EXPECT_EQ(row.t_start_ns, kT0 + i * 1'000'000);
    EXPECT_EQ(row.share.pids, std::vector<std::int32_t>{100 + i});
    if (i + 1 < kChanges) {
      EXPECT_EQ(row.t_end_ns, kT0 + (i + 1) * 1'000'000);
    }
  }
}

TEST(WorkloadsTest, a_schema_4_trace_has_no_workload_information) {
  TempDir dir;
  const auto path = dir.file("old.sqlite");
  write_trace(path, 1, 3, [](Writer&, std::int64_t) {});
  // What a schema-4 writer left: no workloads table, schema_version 4.
  testing::run_sql(path, "DROP TABLE workloads; UPDATE meta SET value = '4' WHERE key = 'schema_version';");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().schema_version, 4);
  EXPECT_EQ(reader->sample_count(), 3u);
  auto table = reader->workloads();
  ASSERT_TRUE(table);
  EXPECT_FALSE(table->present);
  EXPECT_TRUE(table->rows.empty());
  EXPECT_FALSE(table->report.damaged());
  EXPECT_EQ(table->note, "");
}

TEST(WorkloadsTest, the_schema_1_fixture_has_no_workload_information) {
  auto reader = Reader::open(SOLSCOPE_TEST_DATA_DIR "/synthetic/synthetic-v1.sqlite");
  ASSERT_TRUE(reader);
  auto table = reader->workloads();
  ASSERT_TRUE(table);
  EXPECT_FALSE(table->present);
  EXPECT_FALSE(table->report.damaged());
}

TEST(WorkloadsTest, a_schema_5_file_that_lost_its_workloads_table_says_so) {
  TempDir dir;
  const auto path = dir.file("w.sqlite");
  ASSERT_TRUE(synthetic::write_workloads_trace(path));
  testing::run_sql(path, "DROP TABLE workloads;");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto table = reader->workloads();
  ASSERT_TRUE(table);
  EXPECT_FALSE(table->present);
  EXPECT_TRUE(table->report.stopped);
  EXPECT_EQ(table->note, "trace " + path.string() +
                             " is damaged: its workloads table is missing, no workload row can be read");
}

TEST(WorkloadsTest, rows_with_values_outside_their_domain_are_skipped_and_counted) {
  TempDir dir;
  const auto path = dir.file("w.sqlite");
  ASSERT_TRUE(synthetic::write_workloads_trace(path));
  // Four damaged cells, one per row kind the reader refuses; the fourth row stays intact.
  testing::run_sql(path,
                   "UPDATE workloads SET sharing = 'bogus' WHERE id = 1;"
                   "UPDATE workloads SET pids = '202,x' WHERE id = 2;"
                   "UPDATE workloads SET fraction = 1.5 WHERE id = 3;"
                   "INSERT INTO workloads(device, t_start_ns, t_end_ns, sharing, origin) "
                   "VALUES (7, 1, 2, 'exclusive', 'kubelet');");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader);
  auto table = reader->workloads();
  ASSERT_TRUE(table);
  EXPECT_TRUE(table->present);
  ASSERT_EQ(table->rows.size(), 1u);
  EXPECT_EQ(table->rows[0], synthetic::workload_scenario_intervals()[3]);
  EXPECT_EQ(table->report.skipped_rows, 4u);
  EXPECT_EQ(table->report.table_rows, 5u);
  EXPECT_EQ(table->note, "trace " + path.string() +
                             ": its workloads table is damaged: read 1 workload rows; workloads: 4 of 5 rows "
                             "damaged and skipped (SQLite: a workload row's values lie outside their domain "
                             "(a damaged row))");
  EXPECT_EQ(reader->sample_count(), 40u) << "the samples are not affected";
}

TEST(WorkloadsTest, a_zeroed_page_of_the_workloads_table_is_stepped_over_and_counted) {
  TempDir dir;
  const auto path = dir.file("w.sqlite");
  constexpr std::int64_t kTotal = 3000;
  // The samples first, then 3,000 changes (each one row) written last: the file's last pages are leaves of
  // the workloads table. Zero the third page from the end.
  write_trace(path, 1, 2, [](Writer& w, std::int64_t n) {
    if (n != 1) return;
    for (std::int64_t i = 1; i <= kTotal; ++i) {
      ASSERT_TRUE(
          w.add_workloads(0, kT0 + i, exclusive(i % 2 == 0 ? "even" : "odd", static_cast<std::int32_t>(i))));
    }
  });
  auto bytes = testing::read_bytes(path);
  const std::size_t pages = bytes.size() / kPageSizeBytes;
  ASSERT_GE(pages, 10u);
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>((pages - 3) * kPageSizeBytes),
            bytes.begin() + static_cast<std::ptrdiff_t>((pages - 2) * kPageSizeBytes), '\0');
  testing::write_bytes(path, bytes, bytes.size());

  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto table = reader->workloads();
  ASSERT_TRUE(table) << table.error().describe();
  const WorkloadReadReport& r = table->report;
  EXPECT_EQ(r.damaged_ranges, 1u);
  EXPECT_FALSE(r.stopped);
  EXPECT_GT(r.skipped_rows, 10u);
  EXPECT_LT(r.skipped_rows, 1000u) << "one 16 KiB leaf holds some 500 of these short rows";
  EXPECT_EQ(r.rows + r.skipped_rows, static_cast<std::uint64_t>(kTotal));
  EXPECT_EQ(r.skipped_rows, static_cast<std::uint64_t>(r.last_skipped_id - r.first_skipped_id + 1));
  // Every row before and after the damaged range is there (pid = id here).
  ASSERT_EQ(table->rows.size(), r.rows);
  EXPECT_EQ(table->rows.front().share.pids, std::vector<std::int32_t>{1});
  EXPECT_EQ(table->rows.back().share.pids, std::vector<std::int32_t>{static_cast<std::int32_t>(kTotal)});
  const auto before = static_cast<std::size_t>(r.first_skipped_id) - 2;
  EXPECT_EQ(table->rows[before].share.pids[0], r.first_skipped_id - 1);
  EXPECT_EQ(table->rows[before + 1].share.pids[0], r.last_skipped_id + 1);
  EXPECT_THAT(table->note,
              ::testing::StartsWith("trace " + path.string() + ": its workloads table is damaged: read " +
                                    std::to_string(r.rows) + " workload rows; workloads: " +
                                    std::to_string(r.skipped_rows) + " of 3,000 rows damaged"));
  EXPECT_EQ(reader->sample_count(), 2u) << "the samples are not affected";
}

}  // namespace
}  // namespace solscope::trace
