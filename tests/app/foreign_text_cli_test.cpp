// Issue 18, defect 1, end to end: a trace whose device UUID and name, meta value and kernel name hold bytes
// that are not UTF-8 gives valid JSON from `report --json`, `export --format jsonl` and `replay --json`, the
// bad bytes shown as U+FFFD. Before: `export --format jsonl` aborted with SIGABRT (exit 134, an uncaught
// nlohmann type_error.316) and `replay --json` exited 1 with nothing printed. SYNTHETIC trace with kernels,
// altered with the plain SQLite API.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "support/solscope_cli.hpp"
#include "support/text_lines.hpp"
#include "trace/trace_test_support.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
using testing::lines_of;
using testing::run_process;
using trace::testing::run_sql;

const std::string kMakeTrace = SOLSCOPE_MAKE_TRACE;
const std::string kFffd = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

class ForeignTextCli : public testing::SolscopeCliTest {
 protected:
  ForeignTextCli() : SolscopeCliTest(SOLSCOPE_BINARY, "solscope-foreign") {}
  void SetUp() override {
    trace_ = path("t.sqlite");
    auto made = run_process({kMakeTrace, "-o", trace_, "--profile", "demo", "--devices", "1", "--hz", "10",
                             "--seconds", "20", "--kernels"},
                            60s);
    ASSERT_EQ(made.exit_code, 0) << made.err;
    // X'FF' never occurs in UTF-8; X'C0AF' is an overlong '/'.
    run_sql(trace_,
            "UPDATE devices SET uuid = CAST(X'4750552DFF31' AS TEXT), name = CAST(X'4E56C0AF4944' AS TEXT);"
            "UPDATE meta SET value = CAST(X'726563FF' AS TEXT) WHERE key = 'source_description';"
            "UPDATE kernels SET name = CAST(X'6B65726EFF656C' AS TEXT);");
  }
  std::string trace_;
};

TEST_F(ForeignTextCli, report_json_is_valid_and_shows_the_replacement_character) {
  auto r = solscope({"report", trace_, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);  // nlohmann's parser refuses ill-formed UTF-8
  EXPECT_NE(r.out.find("NV" + kFffd + kFffd + "ID"), std::string::npos);
  EXPECT_NE(r.out.find("kern" + kFffd + "el"), std::string::npos);
  EXPECT_FALSE(json["gpus"].empty());
}

TEST_F(ForeignTextCli, export_jsonl_succeeds_with_the_replacement_character) {
  auto r = solscope({"export", trace_, "--format", "jsonl", "-o", path("out.jsonl")});
  ASSERT_EQ(r.exit_code, 0) << r.err;  // before: 134 (SIGABRT)
  std::ifstream in(path("out.jsonl"));
  std::stringstream text;
  text << in.rdbuf();
  const auto lines = lines_of(text.str());
  ASSERT_FALSE(lines.empty());
  for (const std::string& line : lines) {
    const auto sample = nlohmann::json::parse(line);
    ASSERT_EQ(sample.at("uuid"), "GPU-" + kFffd + "1") << line;
  }
}

TEST_F(ForeignTextCli, replay_json_prints_every_sample_with_the_replacement_character) {
  auto r = solscope({"replay", trace_, "--json", "--speed", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;  // before: 1, nothing printed
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 200U);  // 20 s at 10 Hz, one GPU
  EXPECT_EQ(nlohmann::json::parse(lines.front()).at("uuid"), "GPU-" + kFffd + "1");
}

}  // namespace
}  // namespace solscope::app
