// Every refusal of Reader::open and Writer::open/append, each with its message.
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/reader.hpp"
#include "trace/schema.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

auto open_error(const std::filesystem::path& path) -> core::Error {
  auto reader = Reader::open(path);
  EXPECT_FALSE(reader) << "opened " << path;
  return reader ? core::Error{} : reader.error();
}

auto synthetic_file(const TempDir& dir, const std::string& name) -> std::filesystem::path {
  const auto path = dir.file(name);
  auto written = synthetic::write_trace(path, 2, 20, 1);
  EXPECT_TRUE(written) << written.error().describe();
  return path;
}

TEST(ReaderErrorTest, missing_file) {
  TempDir dir;
  const auto error = open_error(dir.file("nope.sqlite"));
  EXPECT_EQ(error.code, core::ErrorCode::NotFound);
  EXPECT_EQ(error.message, "no such trace: " + dir.file("nope.sqlite").string());
}

TEST(ReaderErrorTest, directory) {
  TempDir dir;
  const auto error = open_error(dir.path());
  EXPECT_EQ(error.code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message, "not a solscope trace: " + dir.path().string() + " is a directory");
}

TEST(ReaderErrorTest, empty_file) {
  TempDir dir;
  testing::write_text(dir.file("empty.sqlite"), "");
  const auto error = open_error(dir.file("empty.sqlite"));
  EXPECT_EQ(error.code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message, "not a solscope trace: " + dir.file("empty.sqlite").string() + " is empty");
}

TEST(ReaderErrorTest, not_sqlite) {
  TempDir dir;
  testing::write_text(dir.file("notes.txt"), "device,t_start_ns\n0,1\n");
  const auto error = open_error(dir.file("notes.txt"));
  EXPECT_EQ(error.code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message,
            "not a solscope trace: " + dir.file("notes.txt").string() + " is not an SQLite database");
}

TEST(ReaderErrorTest, sqlite_without_meta_table) {
  TempDir dir;
  testing::run_sql(dir.file("other.db"), "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES('x');");
  const auto error = open_error(dir.file("other.db"));
  EXPECT_EQ(error.code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message, "not a solscope trace: " + dir.file("other.db").string() + " has no meta table");
}

TEST(ReaderErrorTest, meta_without_schema_version) {
  TempDir dir;
  testing::run_sql(dir.file("other.db"), "CREATE TABLE meta(key TEXT, value TEXT);");
  const auto error = open_error(dir.file("other.db"));
  EXPECT_EQ(error.code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message, "not a solscope trace: " + dir.file("other.db").string() +
                               " has no schema_version in its meta table");
}

TEST(ReaderErrorTest, missing_samples_table) {
  TempDir dir;
  const auto path = synthetic_file(dir, "t.sqlite");
  testing::run_sql(path, "DROP TABLE samples;");
  const auto error = open_error(path);
  EXPECT_EQ(error.code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message, "not a solscope trace: " + path.string() + " lacks the samples table");
}

TEST(ReaderErrorTest, newer_schema_is_refused) {
  TempDir dir;
  const auto path = synthetic_file(dir, "t.sqlite");
  const std::string newer = std::to_string(kSchemaVersion + 1);
  testing::run_sql(path, "UPDATE meta SET value = '" + newer +
                             "' WHERE key IN ('schema_version', 'oldest_readable_version');");
  const auto error = open_error(path);
  EXPECT_EQ(error.code, core::ErrorCode::Unimplemented);
  EXPECT_EQ(error.message, "trace " + path.string() + " was written by a newer solscope (schema " + newer +
                               ", this build reads up to " + std::to_string(kSchemaVersion) + ")");
  EXPECT_EQ(error.hint, "upgrade solscope");
}

TEST(ReaderErrorTest, newer_schema_that_old_readers_may_read_opens) {
  TempDir dir;
  const auto path = synthetic_file(dir, "t.sqlite");
  testing::run_sql(path, "UPDATE meta SET value = '3' WHERE key = 'schema_version';");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().schema_version, 3);
  EXPECT_EQ(reader->sample_count(), 40u);
}

TEST(ReaderErrorTest, versions_that_cannot_be_real_are_refused) {
  // Schema 1 is the first: 0, negatives, numbers past any plausible version and ones that wrap an int are
  // damage, not "an older/newer solscope". (4294967297 once read as schema 1; -1 and 1e23 opened.)
  TempDir dir;
  for (const std::string bad : {"0", "-1", "100000000000000000000000", "4294967297", "1.5", "one"}) {
    const auto path = synthetic_file(dir, "t" + std::to_string(bad.size()) + bad.substr(0, 1) + ".sqlite");
    testing::run_sql(path, "UPDATE meta SET value = '" + bad +
                               "' WHERE key IN ('schema_version', 'oldest_readable_version');");
    const auto error = open_error(path);
    EXPECT_EQ(error.code, core::ErrorCode::DataLoss) << bad;
    EXPECT_EQ(error.message, "trace " + path.string() + " has a damaged meta table: schema_version '" + bad +
                                 "' is not a schema version (1 to 10000)")
        << bad;
  }
  const auto path = synthetic_file(dir, "oldest.sqlite");
  testing::run_sql(path, "UPDATE meta SET value = '-1' WHERE key = 'oldest_readable_version';");
  EXPECT_EQ(open_error(path).message, "trace " + path.string() +
                                          " has a damaged meta table: oldest_readable_version '-1' is not a "
                                          "schema version (1 to 10000)");
}

TEST(ReaderErrorTest, newer_schema_message_gives_the_real_versions) {
  TempDir dir;
  auto path = synthetic_file(dir, "t99.sqlite");
  testing::run_sql(path,
                   "UPDATE meta SET value = '99' WHERE key = 'schema_version';"
                   "UPDATE meta SET value = '7' WHERE key = 'oldest_readable_version';");
  EXPECT_EQ(open_error(path).message,
            "trace " + path.string() +
                " was written by a newer solscope (schema 99 that needs a reader of schema 7 or newer, this "
                "build reads up to " +
                std::to_string(kSchemaVersion) + ")");
  // A file that needs a reader newer than its own schema: once printed as "schema 1" of a newer solscope.
  path = synthetic_file(dir, "t1.sqlite");
  testing::run_sql(path, "UPDATE meta SET value = '99' WHERE key = 'oldest_readable_version';");
  const auto error = open_error(path);
  EXPECT_EQ(error.code, core::ErrorCode::DataLoss);
  EXPECT_EQ(error.message, "trace " + path.string() +
                               " has a damaged meta table: oldest_readable_version 99 is above its "
                               "schema_version " +
                               std::to_string(kSchemaVersion));
}

TEST(WriterErrorTest, existing_trace_is_not_overwritten_unless_asked) {
  TempDir dir;
  const auto path = synthetic_file(dir, "t.sqlite");
  auto refused = Writer::open(path);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(refused.error().message, "trace " + path.string() + " already exists");
  EXPECT_EQ(Reader::open(path)->sample_count(), 40u);  // untouched

  auto replaced = Writer::open(path, {.overwrite = true});
  ASSERT_TRUE(replaced) << replaced.error().describe();
  ASSERT_TRUE(replaced->close());
  EXPECT_EQ(Reader::open(path)->sample_count(), 0u);
}

TEST(WriterErrorTest, empty_existing_file_is_used) {
  TempDir dir;
  testing::write_text(dir.file("t.sqlite"), "");
  auto writer = Writer::open(dir.file("t.sqlite"));
  ASSERT_TRUE(writer) << writer.error().describe();
  EXPECT_TRUE(writer->close());
}

TEST(WriterErrorTest, missing_directory_names_path_and_errno) {
  TempDir dir;
  const auto path = dir.file("no/such/dir/t.sqlite");
  auto writer = Writer::open(path);
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(writer.error().message, "cannot create trace " + path.string() + ": No such file or directory");
}

TEST(WriterErrorTest, parent_that_is_a_file_names_path_and_errno) {
  TempDir dir;
  testing::write_text(dir.file("plain"), "x");
  const auto path = dir.file("plain/t.sqlite");
  auto writer = Writer::open(path);
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().message, "cannot create trace " + path.string() + ": Not a directory");
}

TEST(WriterErrorTest, unwritable_directory_names_path_and_errno) {
  if (geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  std::filesystem::create_directory(dir.file("ro"));
  std::filesystem::permissions(dir.file("ro"),
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  auto writer = Writer::open(dir.file("ro/t.sqlite"));
  std::filesystem::permissions(dir.file("ro"), std::filesystem::perms::owner_all);
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().code, core::ErrorCode::PermissionDenied);
  EXPECT_EQ(writer.error().message,
            "cannot create trace " + dir.file("ro/t.sqlite").string() + ": Permission denied");
}

TEST(WriterErrorTest, directory_path_is_refused) {
  TempDir dir;
  auto writer = Writer::open(dir.path());
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().message, "trace path " + dir.path().string() + " is a directory");
}

TEST(WriterErrorTest, zero_batch_is_refused) {
  TempDir dir;
  auto writer = Writer::open(dir.file("t.sqlite"), {.batch_samples = 0});
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.sqlite")));
}

TEST(WriterErrorTest, mismatched_figures_closed_writer_and_reserved_meta_are_refused) {
  TempDir dir;
  auto writer = Writer::open(dir.file("t.sqlite"));
  ASSERT_TRUE(writer);
  const auto devices = synthetic::devices(2);
  const auto raw = synthetic::sample(0, 0, 1);
  const auto other = core::derive(synthetic::sample(1, 0, 1), devices[1]);
  auto mismatch = writer->append(raw, other);
  ASSERT_FALSE(mismatch);
  EXPECT_EQ(mismatch.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_THAT(mismatch.error().message, HasSubstr("paired with figures of device 1"));

  auto reserved = writer->set_metadata("schema_version", "9");
  ASSERT_FALSE(reserved);
  EXPECT_EQ(reserved.error().code, core::ErrorCode::InvalidArgument);
  ASSERT_TRUE(writer->set_metadata("command", "python train.py"));

  ASSERT_TRUE(writer->close());
  ASSERT_TRUE(writer->close());  // idempotent
  auto late = writer->append(raw, core::derive(raw, devices[0]));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, core::ErrorCode::FailedPrecondition);
  auto reader = Reader::open(dir.file("t.sqlite"));
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->metadata().entries.at("command"), "python train.py");
  EXPECT_EQ(reader->metadata().schema_version, kSchemaVersion);
}

}  // namespace
}  // namespace solscope::trace
