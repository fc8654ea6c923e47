// Schema 3 device fields (host, MIG profile and instance, attribution) and schema 4's MIG identity
// (parent UUID, physical GPU index, compute-instance id, SM and memory shares) and per-sample PM pause
// reason: written, read back, NULL when unknown, and absent from older files without harm.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/reader.hpp"
#include "trace/schema.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {
namespace {

using testing::TempDir;

/// The first column of the first row of `sql` as an integer (-999 when there is no row).
auto query_int(const std::filesystem::path& path, const char* sql) -> std::int64_t {
  sqlite3* db = nullptr;
  std::int64_t value = -999;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
      value = sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return value;
}

auto placed_devices() -> std::vector<core::DeviceInfo> {
  auto devices = synthetic::devices(2);
  devices[0].host = "node-a";
  devices[0].mig_profile = "1g.10gb";
  devices[0].mig_instance_id = 7;
  devices[0].attribution = "ml/trainer-0/pytorch";
  devices[0].uuid = "MIG-11111111-2222-3333-4444-555555555555";
  devices[0].parent_uuid = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
  devices[0].gpu_index = 1;
  devices[0].mig_compute_instance_id = 0;
  devices[0].mig_sm_share = 16.0 / 132.0;
  devices[0].mig_memory_share = 0.125;
  return devices;  // devices[1] keeps the defaults: this machine, not MIG, unknown attribution
}

auto write_placed(const std::filesystem::path& path) -> void {
  const auto devices = placed_devices();
  auto writer = Writer::open(path, {});
  ASSERT_TRUE(writer) << writer.error().describe();
  ASSERT_TRUE(writer->write_devices(devices));
  std::size_t n = 0;
  for (core::RawSample raw : synthetic::samples(2, 3, 1)) {
    if (n++ == 2) {  // the second sample of device 0: taken while an ncu run held the counters
      raw.flags |= core::kSamplePmPaused;
      raw.pm_pause = core::PmPauseReason::kProfiler;
    }
    ASSERT_TRUE(writer->append(raw, core::derive(raw, devices[raw.device_index])));
  }
  ASSERT_TRUE(writer->close());
}

TEST(DevicePlacementTest, host_mig_and_attribution_read_back) {
  TempDir dir;
  write_placed(dir.file("t.sqlite"));
  auto reader = Reader::open(dir.file("t.sqlite"));
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().schema_version, kSchemaVersion);
  ASSERT_EQ(reader->devices().size(), 2u);
  const core::DeviceInfo& a = reader->devices()[0];
  EXPECT_EQ(a.host, "node-a");
  EXPECT_EQ(a.mig_profile, "1g.10gb");
  EXPECT_EQ(a.mig_instance_id, 7);
  EXPECT_EQ(a.attribution, "ml/trainer-0/pytorch");
  EXPECT_EQ(a.uuid, "MIG-11111111-2222-3333-4444-555555555555");
  EXPECT_EQ(a.parent_uuid, "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
  EXPECT_EQ(a.gpu_index, 1);
  EXPECT_EQ(a.mig_compute_instance_id, 0);
  EXPECT_DOUBLE_EQ(a.mig_sm_share, 16.0 / 132.0);
  EXPECT_DOUBLE_EQ(a.mig_memory_share, 0.125);
  EXPECT_EQ(core::device_label(a), "GPU 1 \u00b7 MIG 1g.10gb #7");
  const core::DeviceInfo& b = reader->devices()[1];
  EXPECT_EQ(b.host, "");
  EXPECT_EQ(b.mig_profile, "");
  EXPECT_EQ(b.mig_instance_id, -1);
  EXPECT_EQ(b.attribution, "");
  EXPECT_EQ(b.parent_uuid, "");
  EXPECT_EQ(b.gpu_index, -1);
  EXPECT_EQ(b.mig_compute_instance_id, -1);
  EXPECT_TRUE(std::isnan(b.mig_sm_share));
  EXPECT_TRUE(std::isnan(b.mig_memory_share));
}

/// The pause reasons of the trace's samples in read order, "-" for none.
auto pause_reasons(const std::filesystem::path& path) -> std::vector<std::string> {
  std::vector<std::string> out;
  auto reader = Reader::open(path);
  EXPECT_TRUE(reader) << reader.error().describe();
  if (!reader) return out;
  auto cursor = reader->cursor({});
  EXPECT_TRUE(cursor) << cursor.error().describe();
  if (!cursor) return out;
  core::SolSample s;
  while (cursor->next(s)) {
    const bool flagged = (s.flags & core::kSamplePmPaused) != 0;
    out.push_back(s.pm_pause == core::PmPauseReason::kNone ? (flagged ? "?" : "-")
                                                           : std::string(core::to_string(s.pm_pause)));
  }
  return out;
}

TEST(DevicePlacementTest, the_pause_reason_of_a_sample_reads_back) {
  TempDir dir;
  const auto path = dir.file("t.sqlite");
  write_placed(path);
  EXPECT_EQ(pause_reasons(path), (std::vector<std::string>{"-", "-", "profiler", "-", "-", "-"}));
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM samples WHERE pm_pause IS NOT NULL"), 1);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM meta WHERE key = 'has_pm_pause' AND value = '1'"), 1);
}

TEST(DevicePlacementTest, a_schema_3_file_reads_as_whole_gpus_never_paused) {
  TempDir dir;
  const auto path = dir.file("t.sqlite");
  write_placed(path);
  // What a schema-3 writer left: neither the five device columns nor pm_pause, schema_version 3.
  testing::run_sql(path,
                   "ALTER TABLE devices DROP COLUMN parent_uuid; ALTER TABLE devices DROP COLUMN gpu_index; "
                   "ALTER TABLE devices DROP COLUMN mig_compute_instance_id; "
                   "ALTER TABLE devices DROP COLUMN mig_sm_share; ALTER TABLE devices DROP COLUMN "
                   "mig_memory_share; ALTER TABLE samples DROP COLUMN pm_pause; "
                   "UPDATE meta SET value = '3' WHERE key = 'schema_version';");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().schema_version, 3);
  const core::DeviceInfo& a = reader->devices()[0];
  EXPECT_EQ(a.mig_profile, "1g.10gb");  // schema 3 had these
  EXPECT_EQ(a.mig_instance_id, 7);
  EXPECT_EQ(a.parent_uuid, "");  // and not these: the defaults
  EXPECT_EQ(a.gpu_index, -1);
  EXPECT_EQ(a.mig_compute_instance_id, -1);
  EXPECT_TRUE(std::isnan(a.mig_sm_share));
  // meta has_pm_pause is still there, but a schema-3 file has no pm_pause column: no reason is read (the
  // flag bit stays, "?").
  EXPECT_EQ(pause_reasons(path), (std::vector<std::string>{"-", "-", "?", "-", "-", "-"}));
}

TEST(DevicePlacementTest, unknown_fields_are_null_in_the_table) {
  TempDir dir;
  write_placed(dir.file("t.sqlite"));
  EXPECT_EQ(query_int(dir.file("t.sqlite"),
                      "SELECT count(*) FROM devices WHERE host IS NULL AND mig_profile IS NULL AND "
                      "mig_instance_id IS NULL AND attribution IS NULL"),
            1);
  EXPECT_EQ(query_int(dir.file("t.sqlite"), "SELECT mig_instance_id FROM devices WHERE device = 0"), 7);
}

TEST(DevicePlacementTest, a_schema_2_file_without_the_columns_reads_with_defaults) {
  TempDir dir;
  const auto path = dir.file("t.sqlite");
  write_placed(path);
  // What a schema-2 writer left: the devices table without the four columns, schema_version 2.
  testing::run_sql(
      path,
      "ALTER TABLE devices DROP COLUMN host; ALTER TABLE devices DROP COLUMN mig_profile; "
      "ALTER TABLE devices DROP COLUMN mig_instance_id; ALTER TABLE devices DROP COLUMN attribution; "
      "UPDATE meta SET value = '2' WHERE key = 'schema_version';");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().schema_version, 2);
  ASSERT_EQ(reader->devices().size(), 2u);
  EXPECT_EQ(reader->devices()[0].name, placed_devices()[0].name);
  EXPECT_EQ(reader->devices()[0].host, "");
  EXPECT_EQ(reader->devices()[0].mig_instance_id, -1);
  EXPECT_EQ(reader->sample_count(), 6u);
}

}  // namespace
}  // namespace solscope::trace
