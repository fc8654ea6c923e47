// The curses backend on a file instead of a terminal: it starts, draws, and gives the terminal back.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "tui/detail/terminal.hpp"

namespace solscope::tui {
namespace {

TEST(TerminalTest, presents_frames_to_a_stream_and_closes_cleanly) {
  std::FILE* out = std::tmpfile();
  std::FILE* in = std::fopen("/dev/null", "r");
  ASSERT_NE(out, nullptr);
  ASSERT_NE(in, nullptr);
  {
    auto term = Terminal::open(
        TerminalOptions{.out = out, .in = in, .term = "xterm-256color", .fatal_signal_handlers = false});
    ASSERT_TRUE(term) << term.error().describe();
    (*term)->resize(10, 40);
    EXPECT_EQ((*term)->rows(), 10);
    EXPECT_EQ((*term)->cols(), 40);
    EXPECT_EQ((*term)->color_mode(), ColorMode::Color256);
    Frame f(10, 40);
    f.put(2, 3, "hello-solscope", Role::Title);
    (*term)->present(f);
    f.put(3, 3, "second-frame", Role::Normal);
    (*term)->present(f);
    auto again = Terminal::open(TerminalOptions{.out = out, .in = in, .term = "xterm-256color"});
    EXPECT_FALSE(again);
  }
  std::fflush(out);
  std::rewind(out);
  std::string written;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, out)) > 0;) written.append(buf, n);
  EXPECT_NE(written.find("hello-solscope"), std::string::npos);
  EXPECT_NE(written.find("second-frame"), std::string::npos);
  EXPECT_NE(written.find("\x1b[?1049l"), std::string::npos);  // left the alternate screen (rmcup)
  std::fclose(out);
  std::fclose(in);
}

TEST(TerminalTest, no_color_gives_monochrome) {
  std::FILE* out = std::fopen("/dev/null", "w");
  std::FILE* in = std::fopen("/dev/null", "r");
  {
    auto term = Terminal::open(TerminalOptions{
        .out = out, .in = in, .term = "xterm-256color", .no_color = "1", .fatal_signal_handlers = false});
    ASSERT_TRUE(term);
    EXPECT_EQ((*term)->color_mode(), ColorMode::Mono);
  }
  std::fclose(out);
  std::fclose(in);
}

TEST(TerminalTest, an_unknown_terminal_type_is_an_error) {
  std::FILE* out = std::fopen("/dev/null", "w");
  std::FILE* in = std::fopen("/dev/null", "r");
  auto term = Terminal::open(TerminalOptions{.out = out, .in = in, .term = "no-such-terminal-xyz"});
  ASSERT_FALSE(term);
  EXPECT_EQ(term.error().code, core::ErrorCode::Unavailable);
  EXPECT_NE(term.error().message.find("no-such-terminal-xyz"), std::string::npos);
  std::fclose(out);
  std::fclose(in);
}

}  // namespace
}  // namespace solscope::tui
