#include "server/auth.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace solscope::server {
namespace {

TEST(AuthTest, tokens_equal_only_for_identical_strings) {
  EXPECT_TRUE(tokens_equal("0123456789abcdef", "0123456789abcdef"));
  EXPECT_FALSE(tokens_equal("0123456789abcdef", "0123456789abcdeX"));
  EXPECT_FALSE(tokens_equal("0123456789abcdef", "0123456789abcde"));
  EXPECT_FALSE(tokens_equal("", "x"));
  EXPECT_TRUE(tokens_equal("", ""));
}

TEST(AuthTest, check_bearer_tells_missing_from_wrong) {
  const std::string token = "0123456789abcdef";
  EXPECT_EQ(check_bearer("", ""), AuthCheck::Ok);
  EXPECT_EQ(check_bearer("Bearer whatever", ""), AuthCheck::Ok);
  EXPECT_EQ(check_bearer("", token), AuthCheck::Missing);
  EXPECT_EQ(check_bearer("Basic dXNlcjpwdw==", token), AuthCheck::Missing);
  EXPECT_EQ(check_bearer("Bearer ", token), AuthCheck::Missing);
  EXPECT_EQ(check_bearer("Bearer 0123456789abcdeX", token), AuthCheck::Wrong);
  EXPECT_EQ(check_bearer("Bearer 0123456789abcdef", token), AuthCheck::Ok);
  EXPECT_EQ(check_bearer("bearer 0123456789abcdef", token), AuthCheck::Ok);
}

TEST(AuthTest, loopback_hosts_are_recognised_without_resolving_names) {
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.1.2.3"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_TRUE(is_loopback_host("[::1]"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_FALSE(is_loopback_host("10.0.0.5"));
  EXPECT_FALSE(is_loopback_host("::"));
  EXPECT_FALSE(is_loopback_host("127.evil.example"));
}

class TokenFileTest : public ::testing::Test {
 protected:
  auto write(const std::string& text) -> std::string {
    const auto path = std::filesystem::temp_directory_path() /
                      ("solscope-token-" + std::to_string(::getpid()) + "-" +
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::ofstream(path) << text;
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

}  // namespace
}  // namespace solscope::server
