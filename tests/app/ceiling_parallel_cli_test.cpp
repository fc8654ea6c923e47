// `solscope ceiling --ep --dp-attention --pp --pp-microbatches`: parsing, JSON figures and usage errors
// (docs/design/ceiling-model.md 2.7, 2.8).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ceiling/test_support.hpp"
#include "cli/ceiling/ceiling_command.hpp"

namespace solscope::app {
namespace {

using ceiling::testing::fixture_path;

auto deepseek(const std::string& gpu) -> CeilingArgs {
  CeilingArgs args;
  args.gpu = gpu;
  args.model = fixture_path("deepseek-v3");
  args.batch = 256;
  args.context = 1024;
  args.tp = 1;
  args.ep = 8;
  args.dp_attention = true;
  args.json = true;
  return args;
}

auto run_json(const CeilingArgs& args, int& code, std::string& err) -> nlohmann::json {
  std::ostringstream out;
  std::ostringstream errs;
  code = run_ceiling(args, out, errs);
  err = errs.str();
  return code == 0 ? nlohmann::json::parse(out.str()) : nlohmann::json();
}

TEST(CeilingParallelCliTest, options_parse_into_the_args) {
  CLI::App app;
  CeilingArgs args;
  add_ceiling_options(*app.add_subcommand("ceiling"), args);
  app.parse("ceiling --gpu H200 --model m --ep 8 --dp-attention --pp 2 --pp-microbatches 4", false);
  EXPECT_EQ(args.ep, 8);
  EXPECT_TRUE(args.dp_attention);
  EXPECT_EQ(args.pp, 2);
  EXPECT_EQ(args.pp_microbatches, 4);
}

TEST(CeilingParallelCliTest, deepseek_ep8_json_carries_the_layout_and_both_figures) {
  int code = -1;
  std::string err;
  const auto j = run_json(deepseek("H200"), code, err);
  ASSERT_EQ(code, 0) << err;
  EXPECT_EQ(j["parallel"]["ep"], 8);
  EXPECT_EQ(j["parallel"]["attention_dp"], 8);
  EXPECT_EQ(j["parallel"]["gpus"], 8);
  EXPECT_DOUBLE_EQ(j["parallel"]["experts_per_gpu"].get<double>(), 32.0);
  EXPECT_DOUBLE_EQ(j["parallel"]["all_to_all_bytes"].get<double>(), 372'506'624.0);  // parallel_test.cpp
  EXPECT_TRUE(j["per_gpu"]["fits"].get<bool>());
  EXPECT_DOUBLE_EQ(j["compute_sol_pct"].get<double>(), j["tensor_activity_pct"].get<double>());
  EXPECT_GT(j["tensor_activity_pct"].get<double>(), j["useful_compute_sol_pct"].get<double>());
  EXPECT_DOUBLE_EQ(j["useful_compute_sol_pct"].get<double>(), j["mfu_pct"].get<double>());
}

TEST(CeilingParallelCliTest, does_not_fit_is_flagged_with_the_numbers) {
  CeilingArgs args = deepseek("H100");
  args.tp = 8;
  args.dp_attention = false;
  args.batch = 1;
  int code = -1;
  std::string err;
  const auto j = run_json(args, code, err);
  ASSERT_EQ(code, 0) << err;  // a flagged result, not an error
  EXPECT_FALSE(j["per_gpu"]["fits"].get<bool>());
  EXPECT_DOUBLE_EQ(j["per_gpu"]["usable_bytes"].get<double>(), 72e9);
  bool found = false;
  for (const auto& note : j["notes"]) {
    found = found || note.get<std::string>().find("GB per GPU exceed the 72.0 GB usable of H100-SXM5-80GB") !=
                         std::string::npos;
  }
  EXPECT_TRUE(found) << j["notes"].dump();
}

TEST(CeilingParallelCliTest, bad_layouts_exit_2_with_the_reason) {
  struct Case {
    void (*edit)(CeilingArgs&);
    const char* message;
  };
  const Case cases[] = {
      {[](CeilingArgs& a) { a.ep = 3; }, "solscope: error: --ep 3 does not divide the 256 experts"},
      {[](CeilingArgs& a) { a.dp_attention = false; },
       "solscope: error: --ep 8 without --dp-attention must equal --tp 1"},
      {[](CeilingArgs& a) { a.pp = 62; }, "solscope: error: --pp 62 is out of range"},
      {[](CeilingArgs& a) { a.pp = 2, a.pp_microbatches = 5000; },
       "solscope: error: --pp-microbatches 5000 is out of range"},
  };
  for (const Case& c : cases) {
    CeilingArgs args = deepseek("H200");
    c.edit(args);
    int code = -1;
    std::string err;
    run_json(args, code, err);
    EXPECT_EQ(code, 2) << c.message;
    EXPECT_EQ(err.rfind(c.message, 0), 0u) << err;
  }
}

}  // namespace
}  // namespace solscope::app
