// Issue 18, defect 1: a trace whose text is not UTF-8 (one corrupted byte, a foreign writer) is read as valid
// UTF-8, the bad bytes replaced by U+FFFD, and its JSON export succeeds. Before: export_jsonl threw
// nlohmann's type_error.316 (the `export --format jsonl` command aborted with SIGABRT, exit 134). REAL data:
// a copy of the demo trace (tests/data/demo-trace.sqlite), altered with the plain SQLite API.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "data/synthetic/profiles.hpp"
#include "trace/export.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"

namespace solscope::trace {
namespace {

using testing::TempDir;

const std::string kFffd = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

class ForeignTextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("foreign.sqlite");
    auto written = synthetic::write_profile_trace(
        path_,
        {.profile = synthetic::Profile::Phases, .devices = 1, .hz = 10, .seconds = 8.0, .kernels = true});
    ASSERT_TRUE(written) << written.error().describe();
    // X'FF' never occurs in UTF-8; X'C0AF' is an overlong '/'; X'E282' is cut short.
    testing::run_sql(path_,
                     "UPDATE devices SET uuid = CAST(X'4750552DFF31' AS TEXT), "
                     "name = CAST(X'4E56C0AF4944' AS TEXT), host = CAST(X'6E6F6465E282' AS TEXT);"
                     "UPDATE meta SET value = CAST(X'726563FF' AS TEXT) WHERE key = 'source_description';"
                     "UPDATE kernels SET name = CAST(X'6B65726EFF656C' AS TEXT) WHERE id = "
                     "(SELECT min(id) FROM kernels);");
  }
  TempDir dir_;
  std::filesystem::path path_;
};

TEST_F(ForeignTextTest, device_texts_meta_values_and_kernel_names_are_read_as_valid_utf8) {
  auto reader = Reader::open(path_);
  ASSERT_TRUE(reader) << reader.error().describe();
  ASSERT_FALSE(reader->devices().empty());
  const core::DeviceInfo& device = reader->devices().front();
  EXPECT_EQ(device.uuid, "GPU-" + kFffd + "1");
  EXPECT_EQ(device.name, "NV" + kFffd + kFffd + "ID");
  EXPECT_EQ(device.host, "node" + kFffd);
  EXPECT_EQ(reader->metadata().source_description, "rec" + kFffd);
  EXPECT_EQ(reader->metadata().entries.at("source_description"), "rec" + kFffd);

  auto kernels = reader->kernels();
  ASSERT_TRUE(kernels) << kernels.error().describe();
  ASSERT_FALSE(kernels->kernels.empty());
  bool found = false;
  for (const core::KernelRecord& k : kernels->kernels) {
    EXPECT_TRUE(core::is_valid_utf8(k.name)) << k.name;
    found = found || k.name == "kern" + kFffd + "el";
  }
  EXPECT_TRUE(found);
}

TEST_F(ForeignTextTest, json_lines_export_succeeds_and_carries_the_replacement_character) {
  auto reader = Reader::open(path_);
  ASSERT_TRUE(reader) << reader.error().describe();
  std::ostringstream out;
  auto summary = export_jsonl(*reader, out, {});
  ASSERT_TRUE(summary) << summary.error().describe();
  EXPECT_GT(summary->samples, 0U);
  const std::string text = out.str();
  EXPECT_TRUE(core::is_valid_utf8(text));
  std::istringstream lines(text);
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  const auto first = nlohmann::json::parse(line);  // nlohmann's parser refuses ill-formed UTF-8
  EXPECT_EQ(first.at("uuid"), "GPU-" + kFffd + "1");
}

}  // namespace
}  // namespace solscope::trace
