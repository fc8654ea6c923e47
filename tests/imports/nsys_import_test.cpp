// The nsys SQLite importer over a SYNTHETIC export built here from the documented table layout (Nsight
// Systems "SQLite Schema Reference": GPU_METRICS, TARGET_INFO_GPU_METRICS, TARGET_INFO_SESSION_START_TIME);
// no real export with GPU metrics was found to keep as a fixture.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/derive.hpp"
#include "imports/nsys_sqlite.hpp"

namespace solscope::imports {
namespace {

namespace fs = std::filesystem;

class NsysImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("solscope-nsys-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A SYNTHETIC export: two GPUs (typeId 1 and 2), SM/tensor/DRAM percents at 1 ms steps.
  auto make_export(bool with_session_start) -> fs::path {
    const fs::path path = dir_ / "report.sqlite";
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string sql =
        "CREATE TABLE TARGET_INFO_GPU_METRICS(typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL, typeName "
        "TEXT "
        "NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT NULL);"
        "CREATE TABLE GPU_METRICS(timestamp INTEGER, typeId INTEGER NOT NULL, metricId INTEGER NOT NULL, "
        "value "
        "INTEGER NOT NULL);"
        "INSERT INTO TARGET_INFO_GPU_METRICS VALUES"
        "(1, 0, 'GH100', 1, 'SMs Active [Throughput %]'),(1, 0, 'GH100', 2, 'Tensor Active [Throughput %]'),"
        "(1, 0, 'GH100', 3, 'DRAM Read Bandwidth [Throughput %]'),"
        "(1, 0, 'GH100', 4, 'DRAM Write Bandwidth [Throughput %]'),(1, 0, 'GH100', 5, 'GPC Clock Frequency "
        "[MHz]'),"
        "(2, 0, 'GA100', 7, 'SM Issue'),(2, 0, 'GA100', 8, 'GR Active');"
        "INSERT INTO GPU_METRICS VALUES"
        "(1000000, 1, 1, 80),(1000000, 1, 2, 45),(1000000, 1, 3, 20),(1000000, 1, 4, 15),(1000000, 1, 5, "
        "1980),"
        "(2000000, 1, 1, 90),(2000000, 1, 2, 55),(2000000, 1, 3, 30),(2000000, 1, 4, 10),"
        "(1500000, 2, 7, 33),(1500000, 2, 8, 70),(2500000, 2, 7, 12),(2500000, 2, 8, 40);";
    if (with_session_start) {
      sql +=
          "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);"
          "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(1740830400000000000, '', '');";
    }
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
    return path;
  }
  static auto bytes(const fs::path& p) -> std::string {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(NsysImport, percent_metrics_by_name_per_gpu_and_the_file_is_untouched) {
  const fs::path path = make_export(true);
  const std::string before = bytes(path);
  const auto r = read_nsys_sqlite(path);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(bytes(path), before);
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
  EXPECT_FALSE(fs::exists(path.string() + "-journal"));
  ASSERT_EQ(r->devices.size(), 2u);
  EXPECT_EQ(r->devices[0].name, "GH100 (nsys GPU metrics, type 1)");
  ASSERT_EQ(r->samples.size(), 4u);
  EXPECT_FALSE(r->relative_times);
  const auto& first = r->samples[0];  // GPU 1 at 1 ms
  EXPECT_EQ(first.source, core::SourceKind::Nsys);
  EXPECT_EQ(first.t_end_ns, 1740830400'001'000'000LL);
  EXPECT_EQ(first.t_start_ns, 1740830400'000'000'000LL);  // first gap 1 ms
  EXPECT_DOUBLE_EQ(first.value(core::MetricId::SmActive), 80.0);
  EXPECT_DOUBLE_EQ(first.value(core::MetricId::DramThroughput), 35.0);  // read 20 + write 15
  const auto s0 = core::derive(first, r->devices[0]);
  EXPECT_DOUBLE_EQ(s0.compute_sol_pct, 45.0);
  EXPECT_EQ(s0.compute_pipe, core::Pipe::Tensor);
  EXPECT_DOUBLE_EQ(s0.memory_sol_pct, 35.0);
  EXPECT_TRUE(std::isnan(first.value(core::MetricId::SmClockMhz)));  // MHz: not a percent, not read
  const auto& gpu2 = r->samples[1];  // GPU 2 at 1.5 ms: SM issue sets Compute SOL
  EXPECT_EQ(gpu2.device_index, 1u);
  const auto s1 = core::derive(gpu2, r->devices[1]);
  EXPECT_DOUBLE_EQ(s1.compute_sol_pct, 33.0);
  EXPECT_EQ(s1.compute_pipe, core::Pipe::Issue);
  EXPECT_TRUE(std::isnan(s1.memory_sol_pct));
  EXPECT_DOUBLE_EQ(gpu2.value(core::MetricId::GrActive), 70.0);
  EXPECT_DOUBLE_EQ(core::derive(r->samples[2], r->devices[0]).memory_sol_pct, 40.0);
}

TEST_F(NsysImport, without_session_start_times_are_relative) {
  const auto r = read_nsys_sqlite(make_export(false));
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_TRUE(r->relative_times);
  EXPECT_EQ(r->samples[0].t_end_ns, 1'000'000);
}

TEST_F(NsysImport, null_text_infinite_and_negative_values_are_unknown_counted_never_zero) {
  // Before: NULL and text read as 0 %, +Inf was stored as it was, -50 % was kept.
  const fs::path path = dir_ / "odd.sqlite";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* sql =
      "CREATE TABLE TARGET_INFO_GPU_METRICS(typeId INTEGER, sourceId INTEGER, typeName TEXT, metricId "
      "INTEGER, "
      "metricName TEXT);"
      "CREATE TABLE GPU_METRICS(timestamp INTEGER, typeId INTEGER, metricId INTEGER, value INTEGER);"
      "INSERT INTO TARGET_INFO_GPU_METRICS VALUES"
      "(1, 0, 'GH100', 1, 'SMs Active [Throughput %]'),(1, 0, 'GH100', 2, 'Tensor Active [Throughput %]'),"
      "(1, 0, 'GH100', 3, 'DRAM Read Bandwidth [Throughput %]'),"
      "(1, 0, 'GH100', 4, 'DRAM Write Bandwidth [Throughput %]');"
      "INSERT INTO GPU_METRICS VALUES"
      "(1000000, 1, 1, 80),(1000000, 1, 2, NULL),(1000000, 1, 3, 20),(1000000, 1, 4, 15),"
      "(2000000, 1, 1, 'abc'),(2000000, 1, 2, 9e999),(2000000, 1, 3, NULL),(2000000, 1, 4, 10),"
      "(3000000, 1, 1, -50),(3000000, 1, 2, 40),(3000000, 1, 3, 30),(3000000, 1, 4, 10);";
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
  const auto r = read_nsys_sqlite(path);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->samples.size(), 3u);
  const auto& s = r->samples;
  EXPECT_DOUBLE_EQ(s[0].value(core::MetricId::SmActive), 80.0);
  EXPECT_TRUE(std::isnan(s[0].value(core::MetricId::TensorPipe)));  // NULL: unknown, not 0
  EXPECT_DOUBLE_EQ(s[0].value(core::MetricId::DramThroughput), 35.0);
  EXPECT_TRUE(std::isnan(core::derive(s[0], r->devices[0]).compute_sol_pct));
  EXPECT_TRUE(std::isnan(s[1].value(core::MetricId::SmActive)));        // text
  EXPECT_TRUE(std::isnan(s[1].value(core::MetricId::TensorPipe)));      // +Inf
  EXPECT_TRUE(std::isnan(s[1].value(core::MetricId::DramThroughput)));  // read NULL: the sum is unknown too
  EXPECT_TRUE(std::isnan(s[2].value(core::MetricId::SmActive)));        // -50 %
  EXPECT_DOUBLE_EQ(s[2].value(core::MetricId::TensorPipe), 40.0);
  EXPECT_DOUBLE_EQ(s[2].value(core::MetricId::DramThroughput), 40.0);
  EXPECT_EQ(r->tally.out_of_domain.total(), 5u);
  EXPECT_EQ(r->tally.out_of_domain.describe(), "tensor_pipe_pct 2, dram_pct 1, sm_active_pct 2");
}

TEST_F(NsysImport, refusals) {
  const fs::path text = dir_ / "x.sqlite";
  std::ofstream(text) << "not a database at all, just text that is long enough to be read as a header....\n";
  EXPECT_FALSE(read_nsys_sqlite(text));
  const fs::path empty_db = dir_ / "empty.sqlite";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(empty_db.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x);", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  const auto r = read_nsys_sqlite(empty_db);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(r.error().message, empty_db.string() + " has no GPU_METRICS and TARGET_INFO_GPU_METRICS tables");
  bool dram = false;
  EXPECT_EQ(nsys_metric("DRAM Write Bandwidth [Throughput %]", dram), core::MetricId::DramThroughput);
  EXPECT_TRUE(dram);
  EXPECT_EQ(nsys_metric("PCIe RX Throughput [Throughput MB/s]", dram), core::MetricId::kCount);
  EXPECT_EQ(nsys_metric("sm active", dram), core::MetricId::SmActive);
}

}  // namespace
}  // namespace solscope::imports
