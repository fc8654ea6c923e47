#include "server/auth.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace solscope::server
