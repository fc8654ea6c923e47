// Bearer token files (net/token_file.hpp): the first line trimmed, short or odd tokens refused, and files
// that are not private, not regular or too big refused without blocking.
#include "net/token_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

namespace solscope::net {
namespace {

class TokenFileTest : public ::testing::Test {
 protected:
  auto write(const std::string& text) -> std::string {
    const auto path = std::filesystem::temp_directory_path() /
                      ("solscope-token-" + std::to_string(::getpid()) + "-" +
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove(path);
    std::ofstream(path) << text;
    std::filesystem::permissions(path,
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    path_ = path;
    return path.string();
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::filesystem::path path_;
};

TEST_F(TokenFileTest, reads_the_first_line_trimmed) {
  auto token = read_token_file(write("  0123456789abcdef0123\r\nsecond line\n"));
  ASSERT_TRUE(token) << token.error().describe();
  EXPECT_EQ(*token, "0123456789abcdef0123");
}

TEST_F(TokenFileTest, refuses_short_tokens_and_odd_characters) {
  auto short_token = read_token_file(write("short\n"));
  ASSERT_FALSE(short_token);
  EXPECT_EQ(short_token.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_NE(short_token.error().message.find("5 characters"), std::string::npos);
  EXPECT_FALSE(read_token_file(write("0123456789 abcdef0123\n")));
}

TEST_F(TokenFileTest, missing_file_is_not_found) {
  auto token = read_token_file("/nonexistent/solscope/token");
  ASSERT_FALSE(token);
  EXPECT_EQ(token.error().code, core::ErrorCode::NotFound);
}

TEST_F(TokenFileTest, refuses_a_file_open_to_group_or_others) {
  const std::string path = write("0123456789abcdef0123\n");
  for (const auto mode : {0640, 0604, 0620}) {
    std::filesystem::permissions(path, static_cast<std::filesystem::perms>(mode));
    auto token = read_token_file(path);
    ASSERT_FALSE(token) << "mode " << mode;
    EXPECT_EQ(token.error().code, core::ErrorCode::PermissionDenied);
    EXPECT_NE(token.error().message.find("open to other users"), std::string::npos);
    EXPECT_NE(token.error().hint.find("chmod 600"), std::string::npos);
  }
  std::filesystem::permissions(path, static_cast<std::filesystem::perms>(0400));
  EXPECT_TRUE(read_token_file(path));
}

TEST_F(TokenFileTest, refuses_a_fifo_at_once_instead_of_waiting_for_a_writer) {
  const auto path =
      std::filesystem::temp_directory_path() / ("solscope-token-fifo-" + std::to_string(::getpid()));
  std::filesystem::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto token = read_token_file(path.string());  // blocked forever before the fix (no writer)
  std::filesystem::remove(path);
  ASSERT_FALSE(token);
  EXPECT_EQ(token.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_NE(token.error().message.find("is not a regular file"), std::string::npos);
}

TEST_F(TokenFileTest, refuses_devices_and_files_over_4_kib) {
  auto zero = read_token_file("/dev/zero");  // read until memory ran out before the fix
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("is not a regular file"), std::string::npos);
  auto big = read_token_file(write(std::string(kMaxTokenFileBytes + 1, 'a')));
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("holds 4097 bytes"), std::string::npos);
  EXPECT_TRUE(read_token_file(write(std::string(kMaxTokenFileBytes - 1, 'a') + "\n")));
}

}  // namespace
}  // namespace solscope::net
