// Capacity planning of `solscope ceiling --serve` (src/cli/ceiling/ceiling_capacity.cpp,
// ceiling_sweep_report.cpp):
// --concurrency max, --max-tpot-ms / --max-ttft-ms, --sweep as text, JSON and CSV, the option parsing and the
// errors with their exit codes, and, through the binary, --sweep --html and its output-path rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ceiling/capacity.hpp"
#include "ceiling/test_support.hpp"
#include "ceiling_run.hpp"
#include "cli/ceiling/ceiling_command.hpp"
#include "support/solscope_cli.hpp"

namespace solscope::app {
namespace {

using ceiling::testing::fixture_path;
using testing::CommandRun;
using testing::run_with;

/// Llama-3.1-8B on H100, isl 1024, osl 256: the reference traffic.
auto llama_serve() -> CeilingArgs {
  return testing::llama_serve_args();
}

/// The sweep of ceiling/capacity.hpp for the same traffic, for the figures the command must print.
auto reference_sweep(const ceiling::CapacityLimits& limits = {}) -> std::vector<ceiling::SweepPoint> {
  const ceiling::ServeTraffic traffic{1024, 256, 1, 0};
  auto s = ceiling::sweep_concurrency(ceiling::testing::builtin_db(), ceiling::testing::builtin_gpu("H100"),
                                      ceiling::testing::fixture_arch("llama-3.1-8b"), ceiling::Workload{},
                                      traffic, limits);
  EXPECT_TRUE(s.has_value());
  return s ? *s : std::vector<ceiling::SweepPoint>{};
}

auto best_of(const std::vector<ceiling::SweepPoint>& sweep, const ceiling::CapacityLimits& limits = {})
    -> std::int64_t {
  auto best = ceiling::best_point(sweep, limits);
  EXPECT_TRUE(best.has_value());
  return best ? sweep[*best].concurrency : -1;
}

auto lines_of(const std::string& text) -> std::vector<std::string> {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CeilingCapacityCli, ConcurrencyMaxChoosesTheBestThatFitsAndSaysWhy) {
  CeilingArgs args = llama_serve();
  args.concurrency_max = true;
  args.json = true;
  CommandRun r = run_with(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::int64_t chosen = best_of(reference_sweep());
  EXPECT_EQ(j["traffic"]["concurrency"].get<std::int64_t>(), chosen);
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_EQ(j["traffic"]["concurrency_choice"].get<std::string>().rfind(
                "the most output tokens/s that fits in 72.0 GB; best of 30 concurrencies from 1 to ", 0),
            0U)
      << j["traffic"].dump();
  args.json = false;
  r = run_with(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Chosen: concurrency " + std::to_string(chosen) +
                            " (the most output tokens/s that fits in 72.0 GB; best of 30",
                        0),
            0U)
      << r.out;
  EXPECT_NE(r.out.find("Serving ceiling of meta-llama/Llama-3.1-8B on H100-SXM5-80GB: isl 1024, osl 256, "
                       "concurrency " +
                       std::to_string(chosen)),
            std::string::npos)
      << r.out;
}

TEST(CeilingCapacityCli, TpotLimitChoosesTheMostTokensWithinIt) {
  CeilingArgs args = llama_serve();
  args.max_tpot_ms = 30;
  args.json = true;
  const CommandRun r = run_with(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const ceiling::CapacityLimits limits{0.030, std::nan("")};
  EXPECT_EQ(j["traffic"]["concurrency"].get<std::int64_t>(), best_of(reference_sweep(limits), limits));
  EXPECT_LT(j["traffic"]["concurrency"].get<std::int64_t>(), best_of(reference_sweep()));
  EXPECT_LE(j["tpot_s"].get<double>(), 0.030);
  EXPECT_NE(j["traffic"]["concurrency_choice"].get<std::string>().find("with TPOT <= 30 ms"),
            std::string::npos);
}

// A TTFT limit between the sweep's lowest and highest TTFT (that of its middle point, rounded up to 1 ms).
TEST(CeilingCapacityCli, TtftLimitAloneChoosesToo) {
  const std::vector<ceiling::SweepPoint> sweep = reference_sweep();
  ASSERT_FALSE(sweep.empty());
  const double limit_ms = std::ceil(sweep[sweep.size() / 2].ceiling.ttft_s * 1e3);
  CeilingArgs args = llama_serve();
  args.max_ttft_ms = limit_ms;
  args.json = true;
  const CommandRun r = run_with(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_LE(j["ttft_s"].get<double>(), limit_ms / 1e3);
  EXPECT_NE(j["traffic"]["concurrency_choice"].get<std::string>().find(
                "with TTFT <= " + std::to_string(static_cast<int>(limit_ms)) + " ms"),
            std::string::npos)
      << j["traffic"].dump();
}

TEST(CeilingCapacityCli, ImpossibleLimitIsExit2WithTheTightestFigures) {
  CeilingArgs args = llama_serve();
  args.max_tpot_ms = 1;
  const CommandRun r = run_with(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err.rfind("solscope: error: no concurrency from 1 to ", 0), 0U) << r.err;
  EXPECT_NE(r.err.find("keeps TPOT <= 1 ms: the lowest TPOT is "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("relax --max-tpot-ms"), std::string::npos) << r.err;
}

TEST(CeilingCapacityCli, NothingFitsIsExit2SayingSo) {
  CeilingArgs args = llama_serve();
  args.model = fixture_path("llama-3.1-70b");
  args.concurrency_max = true;
  const CommandRun r = run_with(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("solscope: error: no concurrency fits: one request does not fit in memory", 0), 0U)
      << r.err;
}

TEST(CeilingCapacityCli, SweepTextHasOneRowPerPointAndMarksTheBest) {
  CeilingArgs args = llama_serve();
  args.sweep_points = ceiling::kDefaultSweepPoints;
  args.max_tpot_ms = 30;
  const CommandRun r = run_with(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const ceiling::CapacityLimits limits{0.030, std::nan("")};
  const std::vector<ceiling::SweepPoint> sweep = reference_sweep(limits);
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 8U + sweep.size()) << r.out;
  EXPECT_EQ(lines[0],
            "Concurrency sweep of meta-llama/Llama-3.1-8B on H100-SXM5-80GB: isl 1024, osl 256, TP 1");
  EXPECT_NE(r.out.find("  memory limit            " + std::to_string(sweep.back().concurrency) +
                       " requests in flight fit in 72.0 GB usable (" +
                       std::to_string(sweep.back().concurrency + 1) + " do not)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  latency limits          TPOT <= 30 ms\n"), std::string::npos);
  const auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.starts_with("  concurrency  tok/s/GPU");
  });
  ASSERT_NE(header, lines.end()) << r.out;
  for (const char* column :
       {"tok/s/user", "TTFT ms", "TPOT ms", "activity %", "MFU %", "Memory SOL %", "limiter", "fits"}) {
    EXPECT_NE(header->find(column), std::string::npos) << column;
  }
  int best_rows = 0;
  int over_rows = 0;
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    const std::string& row = *(header + 1 + static_cast<std::ptrdiff_t>(i));
    std::istringstream cells(row);
    std::int64_t concurrency = 0;
    cells >> concurrency;
    EXPECT_EQ(concurrency, sweep[i].concurrency) << row;
    best_rows += row.ends_with("<- best");
    over_rows += row.ends_with("over the limits");
    if (row.ends_with("<- best")) {
      EXPECT_EQ(concurrency, best_of(sweep, limits));
    }
  }
  EXPECT_EQ(best_rows, 1);
  EXPECT_GT(over_rows, 0);
}

TEST(CeilingCapacityCli, SweepJsonHasTheHeaderAndEveryPoint) {
  CeilingArgs args = llama_serve();
  args.sweep_points = 12;
  args.json = true;
  const CommandRun r = run_with(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpu"]["id"], "H100-SXM5-80GB");
  EXPECT_EQ(j["model"]["name"], "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(j["traffic"]["isl"], 1024);
  EXPECT_EQ(j["traffic"]["osl"], 256);
  EXPECT_TRUE(j["limits"]["max_tpot_s"].is_null());
  const auto& points = j["points"];
  ASSERT_EQ(points.size(), 12U);
  EXPECT_EQ(points.front()["concurrency"], 1);
  EXPECT_EQ(points.back()["concurrency"], j["max_fitting_concurrency"]);
  int best = 0;
  for (const auto& p : points) {
    EXPECT_DOUBLE_EQ(p["tokens_per_s_per_user"].get<double>(), 1.0 / p["tpot_s"].get<double>());
    EXPECT_DOUBLE_EQ(p["output_tokens_per_s_per_gpu"].get<double>(), p["output_tokens_per_s"].get<double>());
    for (const char* key : {"ttft_s", "compute_sol_pct", "useful_compute_sol_pct", "memory_sol_pct"}) {
      EXPECT_TRUE(p[key].is_number()) << key;
    }
    EXPECT_TRUE(p["fits"].get<bool>());
    if (p["best"].get<bool>()) {
      ++best;
      EXPECT_EQ(p["concurrency"], j["best_concurrency"]);
    }
  }
  EXPECT_EQ(best, 1);
}

TEST(CeilingCapacityCli, SweepCsvHasAHeaderAndOneRowPerPoint) {
  CeilingArgs args = llama_serve();
  args.sweep_points = 8;
  args.csv = true;
  const CommandRun r = run_with(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 9U) << r.out;
  EXPECT_EQ(
      lines[0],
      "concurrency,output_tokens_per_s_per_gpu,tokens_per_s_per_user,ttft_ms,tpot_ms,activity_pct,mfu_pct,"
      "memory_sol_pct,limiter,fits,within_limits,best");
  EXPECT_TRUE(lines[1].starts_with("1,")) << lines[1];
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(std::count(lines[i].begin(), lines[i].end(), ','), 11) << lines[i];
    EXPECT_NE(lines[i].find(",true,true,"), std::string::npos) << lines[i];
  }
  EXPECT_EQ(std::count_if(lines.begin() + 1, lines.end(),
                          [](const std::string& l) { return l.ends_with(",true"); }),
            1)
      << "one best point: " << r.out;
}

TEST(CeilingCapacityCli, OptionMistakesAreExit2) {
  struct Case {
    void (*edit)(CeilingArgs&);
    const char* message;
  };
  const Case cases[] = {
      {[](CeilingArgs& a) {
         a.serve = false;
         a.sweep_points = 30;
       },
       "solscope: error: --sweep plans the serving capacity: it needs --serve"},
      {[](CeilingArgs& a) {
         a.serve = false;
         a.concurrency_max = true;
       },
       "solscope: error: --concurrency max plans the serving capacity: it needs --serve"},
      {[](CeilingArgs& a) {
         a.serve = false;
         a.max_ttft_ms = 100;
       },
       "solscope: error: --max-ttft-ms plans the serving capacity: it needs --serve"},
      {[](CeilingArgs& a) { a.csv = true; },
       "solscope: error: --csv prints the sweep's table: it needs --sweep"},
      {[](CeilingArgs& a) { a.html = "sweep.html"; },
       "solscope: error: --html writes the sweep's page: it needs --sweep"},
      {[](CeilingArgs& a) {
         a.sweep_points = 30;
         a.csv = true;
         a.json = true;
       },
       "solscope: error: --csv and --json both choose the output"},
      {[](CeilingArgs& a) { a.sweep_points = 1001; }, "solscope: error: sweep points 1001 are out of range"},
      {[](CeilingArgs& a) { a.max_tpot_ms = 0; }, "solscope: error: a latency limit is out of range"},
  };
  for (const Case& c : cases) {
    CeilingArgs args = llama_serve();
    c.edit(args);
    const CommandRun r = run_with(args);
    EXPECT_EQ(r.code, 2) << c.message;
    EXPECT_EQ(r.err.rfind(c.message, 0), 0U) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

auto parse(const std::string& line, CeilingArgs& args) -> void {
  CLI::App app;
  add_ceiling_options(*app.add_subcommand("ceiling"), args);
  app.parse(line, false);
}

TEST(CeilingCapacityCli, OptionsParse) {
  CeilingArgs a;
  parse("ceiling --gpu H100 --model m --serve --concurrency max --max-tpot-ms 30 --max-ttft-ms 500", a);
  EXPECT_TRUE(a.concurrency_max);
  EXPECT_EQ(a.concurrency, 64);
  EXPECT_DOUBLE_EQ(a.max_tpot_ms, 30);
  EXPECT_DOUBLE_EQ(a.max_ttft_ms, 500);
  EXPECT_EQ(a.sweep_points, 0);
  CeilingArgs b;
  parse("ceiling --gpu H100 --model m --serve --sweep --json", b);
  EXPECT_EQ(b.sweep_points, ceiling::kDefaultSweepPoints);
  EXPECT_TRUE(b.json);
  EXPECT_FALSE(b.concurrency_max);
  CeilingArgs c;
  parse("ceiling --gpu H100 --model m --serve --sweep 50 --csv --html out.html --force", c);
  EXPECT_EQ(c.sweep_points, 50);
  EXPECT_TRUE(c.csv);
  EXPECT_EQ(c.html, "out.html");
  EXPECT_TRUE(c.force);
  CeilingArgs d;
  parse("ceiling --gpu H100 --model m --serve --concurrency 12", d);
  EXPECT_EQ(d.concurrency, 12);
  EXPECT_FALSE(d.concurrency_max);
  for (const char* bad :
       {"--concurrency maximum", "--concurrency 0", "--concurrency 1.5", "--concurrency -3", "--sweep 1",
        "--sweep 1001", "--max-tpot-ms 0", "--max-tpot-ms nan", "--max-ttft-ms -1"}) {
    CeilingArgs e;
    EXPECT_THROW(parse(std::string("ceiling --gpu H100 --model m --serve ") + bad, e), CLI::ParseError)
        << bad;
  }
}

class CeilingSweepBinaryTest : public solscope::testing::SolscopeCliTest {
 protected:
  CeilingSweepBinaryTest() : SolscopeCliTest(SOLSCOPE_BINARY, "solscope-sweep") {}
  [[nodiscard]] auto sweep_args(const std::string& html) const -> std::vector<std::string> {
    return {"ceiling", "--gpu",   "H100", "--model", fixture_path("llama-3.1-8b"),
            "--serve", "--sweep", "5",    "--html",  html};
  }
};

TEST_F(CeilingSweepBinaryTest, ConcurrencyWordErrorsAreExit2WithTheRange) {
  const auto r = solscope({"ceiling", "--gpu", "H100", "--model", fixture_path("llama-3.1-8b"), "--serve",
                           "--concurrency", "most"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("'most' is not a number (give 1 to 1000000 or max)"), std::string::npos) << r.err;
}

TEST_F(CeilingSweepBinaryTest, HtmlIsWrittenOnceAndNeverOverAnInput) {
  const std::string html = path("sweep.html");
  auto r = solscope(sweep_args(html));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::stringstream page;
  page << std::ifstream(html).rdbuf();
  EXPECT_NE(page.str().find("<title>solscope ceiling sweep</title>"), std::string::npos);
  EXPECT_NE(page.str().find("\"best_concurrency\""), std::string::npos);
  EXPECT_EQ(page.str().find("@solscope:"), std::string::npos) << "a marker was left in the page";
  r = solscope(sweep_args(html));  // exists: needs --force
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
  std::vector<std::string> forced = sweep_args(html);
  forced.push_back("--force");
  EXPECT_EQ(solscope(forced).exit_code, 0);
  std::vector<std::string> over_input = sweep_args(fixture_path("llama-3.1-8b"));  // the config itself
  over_input.push_back("--force");
  r = solscope(over_input);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is the input"), std::string::npos) << r.err;
  r = solscope(sweep_args(path("no-such-dir/sweep.html")));
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace
}  // namespace solscope::app
