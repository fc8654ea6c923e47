// The `samples` columns are listed once (schema.hpp): the table the DDL creates, the writer's INSERT and its
// bindings all derive from that list, and the bundled demo trace has the same tables.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trace/detail/columns.hpp"
#include "trace/schema.hpp"

namespace solscope::trace {
namespace {

auto exec_ok(sqlite3* db, std::string_view sql) -> bool {
  return sqlite3_exec(db, std::string(sql).c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
}

/// Column names of `table`, in table order.
auto table_columns(sqlite3* db, const std::string& table) -> std::vector<std::string> {
  std::vector<std::string> names;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, ("PRAGMA table_info(" + table + ")").c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    return names;
  }
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)));
  }
  sqlite3_finalize(stmt);
  return names;
}

/// What the writer binds: id, the ten head columns, figure_columns(), then the tail column pm_pause.
auto bound_columns() -> std::vector<std::string> {
  std::vector<std::string> names{"id",    "device",          "t_start_ns",   "t_end_ns",       "source",
                                 "flags", "compute_sol_pct", "compute_pipe", "memory_sol_pct", "memory_path",
                                 "bound"};
  for (const auto& column : detail::figure_columns()) names.emplace_back(column.name);
  names.emplace_back("pm_pause");
  return names;
}

TEST(ColumnsTest, the_schema_columns_equal_the_insert_columns_and_bindings) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  ASSERT_TRUE(exec_ok(db, kSchemaSql)) << sqlite3_errmsg(db);
  const auto columns = table_columns(db, "samples");
  EXPECT_EQ(columns, bound_columns());
  EXPECT_EQ(columns.size(),
            1 + detail::kHeadColumnCount + detail::kFigureColumnCount + detail::kTailColumnCount);
  sqlite3_stmt* insert = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, std::string(detail::kInsertSampleSql).c_str(), -1, &insert, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  EXPECT_EQ(
      sqlite3_bind_parameter_count(insert),
      detail::kHeadColumnCount + static_cast<int>(detail::kFigureColumnCount) + detail::kTailColumnCount);
  EXPECT_EQ(detail::kFirstFigureParam, 11);
  EXPECT_EQ(detail::kPmPauseParam, sqlite3_bind_parameter_count(insert));
  sqlite3_finalize(insert);
  sqlite3_close(db);
}

TEST(ColumnsTest, the_demo_trace_has_the_schema_of_this_build) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(SOLSCOPE_TEST_DATA_DIR "/demo-trace.sqlite", &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  sqlite3* fresh = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &fresh), SQLITE_OK);
  ASSERT_TRUE(exec_ok(fresh, kSchemaSql));
  for (const char* table : {"meta", "devices", "metrics", "samples", "sample_counters"}) {
    EXPECT_EQ(table_columns(db, table), table_columns(fresh, table)) << table;
  }
  sqlite3_close(fresh);
  sqlite3_close(db);
}

}  // namespace
}  // namespace solscope::trace
