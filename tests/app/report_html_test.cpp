// The HTML report (`solscope report TRACE --html FILE`): one self-contained page. Checked on the rendered
// text: no external URL in any src/href, no network API, the report's JSON inlined so that it parses back
// equal, and a kernel named "</script>..." cannot end the data element early. The browser test
// (tests/integration/report_html_test.mjs) checks what Chromium draws.
#include "cli/report/report_html.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/process.hpp"

namespace solscope::app {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr std::string_view kDataOpen = R"(<script type="application/json" id="report-data">)";

auto lower(std::string text) -> std::string {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

auto count_of(const std::string& text, const std::string& word) -> int {
  int count = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++count;
  return count;
}

auto read_file(const fs::path& path) -> std::string {
  std::stringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

/// A report in the shape of docs/report.md: one GPU, two phases, two kernels.
auto sample_report(const std::string& kernel_name) -> json {
  return json{
      {"trace",
       {{"path", "run.sqlite"}, {"host", "node1"}, {"start_ns", 1700000000000000000}, {"synthetic", true}}},
      {"gpus",
       json::array({json{
           {"device", 0},
           {"name", "NVIDIA H100 80GB HBM3"},
           {"figures", {{"compute_sol_pct", 41.5}, {"compute_pipe", "tensor"}, {"memory_sol_pct", 22.25}}},
           {"bound_time_s", {{"compute", 6.0}, {"memory", 2.0}, {"latency", 1.0}, {"idle", 1.0}}},
           {"phases", json::array({json{{"start_ns", 1700000000000000000},
                                        {"end_ns", 1700000006000000000},
                                        {"class", "compute"}},
                                   json{{"start_ns", 1700000006000000000},
                                        {"end_ns", 1700000010000000000},
                                        {"class", "memory"}}})},
           {"series",
            {{"t_ns", {1700000000000000000, 1700000005000000000}}, {"compute_sol_pct", {40.0, nullptr}}}},
           {"kernels", json::array({json{{"name", kernel_name}, {"calls", 3}, {"total_ns", 1500}},
                                    json{{"name", "gemm"}, {"calls", 1}, {"total_ns", 500}}})},
       }})}};
}

/// The text of the inlined data element.
auto inlined_json(const std::string& page) -> std::string {
  const auto open = page.find(kDataOpen);
  if (open == std::string::npos) return {};
  const auto from = open + kDataOpen.size();
  return page.substr(from, page.find("</script>", from) - from);
}

TEST(ReportHtml, IsSelfContained) {
  const auto page = render_html_report(sample_report("gemm_tn"));
  ASSERT_TRUE(page.has_value()) << page.error().message;
  const std::string text = lower(*page);
  // Every src/href/url() names no other file: no scheme, no protocol-relative or relative path.
  const std::regex link(R"re((?:src|href)\s*=\s*["']?\s*([^"'\s>]*))re");
  int links = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it) {
    const std::string target = (*it)[1].str();
    EXPECT_TRUE(target.starts_with("data:") || target.starts_with("#")) << "the page links " << target;
    ++links;
  }
  EXPECT_EQ(links, 1);  // the icon, a data: URL
  EXPECT_EQ(count_of(text, "url("), 0);
  EXPECT_EQ(count_of(text, "@import"), 0);
  for (const char* api : {"fetch(", "xmlhttprequest", "eventsource", "websocket", "sendbeacon", "import("}) {
    EXPECT_EQ(count_of(text, api), 0) << api;
  }
  // The policy forbids every request: default-src 'none', scripts and styles only inline.
  EXPECT_EQ(
      count_of(text, "content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline';"),
      1);
  // Four scripts (data, uPlot, the pages' shared page.js, the page) and two style sheets (uPlot, the page),
  // every marker replaced.
  EXPECT_EQ(count_of(text, "<script"), 4);
  EXPECT_EQ(count_of(text, "</script"), 4);
  EXPECT_EQ(count_of(text, "<style"), 2);
  EXPECT_EQ(count_of(text, "</style"), 2);
  EXPECT_EQ(count_of(text, "@solscope:"), 0);
  EXPECT_EQ(count_of(*page, "new uPlot("), 1);  // the page's chart
  // uPlot's JS and CSS, byte for byte (neither holds a closing tag that would need an escape).
  for (const char* file : {"uPlot.iife.min.js", "uPlot.min.css"}) {
    const std::string bytes = read_file(fs::path(SOLSCOPE_SOURCE_DIR) / "web/node_modules/uplot/dist" / file);
    ASSERT_GT(bytes.size(), 1000U) << file;
    EXPECT_EQ(count_of(*page, bytes), 1) << file;
  }
}

TEST(ReportHtml, JsonIsInlinedAndParsesBack) {
  const json report = sample_report("void gemm<float>(float const*, int)");
  const auto page = render_html_report(report);
  ASSERT_TRUE(page.has_value()) << page.error().message;
  const std::string data = inlined_json(*page);
  EXPECT_EQ(data.find('<'), std::string::npos);
  EXPECT_EQ(json::parse(data), report);
  EXPECT_EQ(count_of(data, "void gemm\\u003cfloat\\u003e(float const*, int)"), 1);
}

TEST(ReportHtml, KernelNamedScriptEndCannotBreakOut) {
  const std::string name = "</script><script>alert(1)</script><!-- @solscope:report.js@ \u2028\u2029 &amp;";
  const json report = sample_report(name);
  const auto page = render_html_report(report);
  ASSERT_TRUE(page.has_value()) << page.error().message;
  EXPECT_EQ(count_of(lower(*page), "</script"), 4);  // the page's own four scripts, none from the name
  EXPECT_EQ(count_of(*page, "alert(1)"), 1);         // once, inside the data, escaped
  EXPECT_EQ(count_of(*page, "\u2028"), 0);
  EXPECT_EQ(count_of(*page, "\u2029"), 0);
  const json back = json::parse(inlined_json(*page));
  EXPECT_EQ(back["gpus"][0]["kernels"][0]["name"], name);
  EXPECT_EQ(back, report);
}

TEST(ReportHtml, JsonForScriptEscapes) {
  EXPECT_EQ(json_for_script(json{{"a", "</script>&\u2028x\u2029"}}),
            R"({"a":"\u003c/script\u003e\u0026\u2028x\u2029"})");
  // Invalid UTF-8 (a name cut mid-character) becomes U+FFFD instead of failing.
  EXPECT_EQ(json_for_script(json{{"a", std::string("ab\xE2\x80", 4)}}), "{\"a\":\"ab\xEF\xBF\xBD\"}");
  EXPECT_EQ(json_for_script(json::array({1.5, nullptr})), "[1.5,null]");
}

TEST(ReportHtml, TextForElementEscapesClosingTags) {
  EXPECT_EQ(text_for_element("a</SCRIPT>b</style x</div>"), "a<\\/SCRIPT>b<\\/style x</div>");
  EXPECT_EQ(text_for_element("x < y </scrip"), "x < y </scrip");
}

TEST(ReportHtml, WritesTheFile) {
  const fs::path dir = fs::temp_directory_path() / ("solscope_report_html_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const json report = sample_report("k");
  const auto page = render_html_report(report);
  ASSERT_TRUE(page.has_value());
  ASSERT_TRUE(write_html_report(report, dir / "r.html").has_value());
  EXPECT_EQ(fs::file_size(dir / "r.html"), page->size());
  EXPECT_EQ(read_file(dir / "r.html"), *page);

  const auto missing = write_html_report(report, dir / "no-such-dir" / "r.html");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, core::ErrorCode::NotFound);
  EXPECT_NE(missing.error().message.find("no-such-dir/r.html"), std::string::npos) << missing.error().message;
  fs::remove_all(dir);
}

// `solscope report TRACE --html FILE` over the demo trace: the file holds the --json report plus a series per
// GPU; the output-path rules hold (exit 2: an existing file without --force, the trace itself).
TEST(ReportHtmlCli, WritesTheDemoReportAndKeepsTheOutputRules) {
  using std::chrono_literals::operator""s;
  const std::string bin = SOLSCOPE_BINARY;
  const std::string demo = std::string(SOLSCOPE_TEST_DATA_DIR) + "/demo-trace.sqlite";
  const fs::path dir = fs::temp_directory_path() / ("solscope_report_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string html = (dir / "demo.html").string();

  const auto first = testing::run_process({bin, "report", demo, "--json", "--html", html}, 60s);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const json printed = json::parse(first.out);
  const std::string page = read_file(html);
  json inlined = json::parse(inlined_json(page));
  ASSERT_EQ(inlined["gpus"].size(), 4U);
  for (auto& gpu : inlined["gpus"]) {
    ASSERT_TRUE(gpu.contains("series"));
    EXPECT_EQ(gpu["series"]["t_ns"].size(), 1000U);  // 1,200 samples of 100 ms over 120 s: 1,000 buckets
    EXPECT_EQ(gpu["series"]["compute_sol_pct"].size(), 1000U);
    gpu.erase("series");
  }
  EXPECT_EQ(inlined, printed);

  const auto again = testing::run_process({bin, "report", demo, "--html", html}, 60s);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
  EXPECT_EQ(read_file(html), page);
  const std::string trace_bytes = read_file(demo);
  const auto over_input = testing::run_process({bin, "report", demo, "--html", demo, "--force"}, 60s);
  EXPECT_EQ(over_input.exit_code, 2);
  EXPECT_EQ(read_file(demo), trace_bytes);
  const auto forced = testing::run_process({bin, "report", demo, "--html", html, "--force"}, 60s);
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(read_file(html), page);  // the same trace gives the same bytes
  fs::remove_all(dir);
}

}  // namespace
}  // namespace solscope::app
