// What counts as a loopback host (net/loopback.hpp): the listen addresses the server serves without a token,
// and the literal addresses the loopback client may contact.
#include "net/loopback.hpp"

#include <gtest/gtest.h>

namespace solscope::net {
namespace {

TEST(LoopbackTest, listen_addresses_are_recognised_without_resolving_names) {
  EXPECT_TRUE(is_loopback_host("127.0.0.1", LoopbackForm::Listen));
  EXPECT_TRUE(is_loopback_host("127.1.2.3", LoopbackForm::Listen));
  EXPECT_TRUE(is_loopback_host("::1", LoopbackForm::Listen));
  EXPECT_TRUE(is_loopback_host("[::1]", LoopbackForm::Listen));
  EXPECT_TRUE(is_loopback_host("localhost", LoopbackForm::Listen));
  EXPECT_FALSE(is_loopback_host("0.0.0.0", LoopbackForm::Listen));
  EXPECT_FALSE(is_loopback_host("10.0.0.5", LoopbackForm::Listen));
  EXPECT_FALSE(is_loopback_host("::", LoopbackForm::Listen));
  EXPECT_FALSE(is_loopback_host("127.evil.example", LoopbackForm::Listen));
}

TEST(LoopbackTest, a_host_to_contact_is_a_literal_address_without_brackets) {
  EXPECT_TRUE(is_loopback_host("0:0:0:0:0:0:0:1"));  // the IPv6 loopback, written out
  EXPECT_FALSE(is_loopback_host("[::1]"));           // brackets belong to a URL, not to a host to connect to
  EXPECT_FALSE(is_loopback_host("127.300.0.1"));     // not an address
  EXPECT_FALSE(is_loopback_host("127.0.0.01"));      // inet_pton refuses leading zeros (octal elsewhere)
  EXPECT_FALSE(is_loopback_host("::ffff:127.0.0.1"));
  EXPECT_FALSE(is_loopback_host(""));
  EXPECT_FALSE(is_loopback_host("", LoopbackForm::Listen));
  EXPECT_FALSE(is_loopback_host("[]", LoopbackForm::Listen));
}

}  // namespace
}  // namespace solscope::net
