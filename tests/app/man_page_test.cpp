// solscope(1): the man page is rendered from the command-line definition, so every option that any `--help`
// lists appears in it (docs/release.md section 5).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "support/process.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
using testing::run_process;

const std::string kBinary = SOLSCOPE_BINARY;

auto help_of(const std::vector<std::string>& command) -> std::string {
  std::vector<std::string> argv{kBinary};
  argv.insert(argv.end(), command.begin(), command.end());
  argv.push_back("--help");
  const auto result = run_process(argv, 10s);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.out;
}

/// The subcommands that the top-level --help lists (the lines under "Subcommands:").
auto subcommands(const std::string& help) -> std::vector<std::string> {
  std::vector<std::string> names;
  std::istringstream in(help.substr(help.find("Subcommands:")));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    names.push_back(name);
  }
  return names;
}

/// Every long option (--name) in a text.
auto long_options(const std::string& text) -> std::set<std::string> {
  std::set<std::string> found;
  const std::regex option(R"((^|[\s,\[])(--[a-z][a-z0-9-]*))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), option); it != std::sregex_iterator(); ++it) {
    found.insert((*it)[2].str());
  }
  return found;
}

TEST(ManPage, EveryOptionOfEveryHelpIsInTheManPage) {
  const auto man = run_process({kBinary, "--man"}, 10s);
  ASSERT_EQ(man.exit_code, 0) << man.err;
  ASSERT_EQ(man.out.rfind(".\\\"", 0), 0U) << "roff comment first";
  EXPECT_NE(man.out.find(".TH SOLSCOPE 1"), std::string::npos);
  // The page as text: roff's escaped hyphens as hyphens, its font changes (\fB, \fI, \fR) as spaces.
  const std::string text = std::regex_replace(man.out, std::regex(R"(\\-)"), "-");
  const auto in_page = long_options(std::regex_replace(text, std::regex(R"(\\f[BIRP])"), " "));

  const std::string top = help_of({});
  const auto commands = subcommands(top);
  ASSERT_GE(commands.size(), 10U) << top;
  std::size_t checked = 0;
  std::vector<std::vector<std::string>> helps{{}};
  for (const auto& command : commands) helps.push_back({command});
  for (const auto& command : helps) {
    for (const auto& option : long_options(help_of(command))) {
      if (option == "--help") continue;
      EXPECT_TRUE(in_page.count(option) == 1)
          << option << " of `solscope " << (command.empty() ? "" : command[0]) << " --help`";
      ++checked;
    }
    if (!command.empty()) {
      EXPECT_NE(text.find(".SS \"solscope " + command[0] + "\""), std::string::npos) << command[0];
    }
  }
  EXPECT_GE(checked, 60U);
  EXPECT_EQ(help_of({}).find("--man"), std::string::npos) << "--man stays out of --help";
}

}  // namespace
}  // namespace solscope::app
