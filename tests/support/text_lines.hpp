// Text helpers for tests that read a command's output or a file of the test data.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace solscope::testing {

/// The lines of `text`, without their '\n' (a last line without one counts too).
inline auto lines_of(const std::string& text) -> std::vector<std::string> {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The lines of `text` that start with `prefix` (e.g. a /metrics family's samples), in order.
inline auto lines_starting(const std::string& text, const std::string& prefix) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (std::string& line : lines_of(text)) {
    if (line.starts_with(prefix)) out.push_back(std::move(line));
  }
  return out;
}

/// The bytes of tests/data/`relative` (SOLSCOPE_TEST_DATA_DIR); fails the test (and gives "") when it cannot
/// be opened.
inline auto test_data_text(const std::string& relative) -> std::string {
  std::ifstream in(std::string(SOLSCOPE_TEST_DATA_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in) << relative;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace solscope::testing
