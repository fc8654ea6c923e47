// The loopback HTTP client (net/http_client.hpp) against a local stub server: loopback hosts only, status
// codes, the body cap, a closed port.
#include "net/http_client.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "workload/workload_test_support.hpp"

namespace solscope::net {
namespace {

using workload::test_support::engine_fixture;
using workload::test_support::StubServer;

TEST(HttpClientTest, only_loopback_hosts_are_allowed) {
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.1.2.3"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("localhost"));
  EXPECT_FALSE(is_loopback_host("10.0.0.5"));
  EXPECT_FALSE(is_loopback_host("127.0.0.1.example.com"));
  EXPECT_FALSE(is_loopback_host("127.0.0."));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  const auto client = make_loopback_http_client();
  const auto refused = client->get("192.0.2.1", 80, "/metrics");  // TEST-NET-1: never contacted
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, core::ErrorCode::PermissionDenied);
}

TEST(HttpClientTest, gets_from_a_local_stub) {
  StubServer stub;
  stub.set("/v1/models", 200, engine_fixture("vllm_models.json"));
  const auto client = make_loopback_http_client();
  const auto ok = client->get("127.0.0.1", stub.port(), "/v1/models");
  ASSERT_TRUE(ok.has_value()) << ok.error().describe();
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, engine_fixture("vllm_models.json"));
  const auto missing = client->get("127.0.0.1", stub.port(), "/nothing");
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->status, 404);
}

TEST(HttpClientTest, caps_the_body_size) {
  StubServer stub;
  stub.set("/metrics", 200, std::string(5000, 'x'));
  const auto client =
      make_loopback_http_client({.connect_timeout_s = 1, .read_timeout_s = 2, .max_body_bytes = 1000});
  const auto result = client->get("127.0.0.1", stub.port(), "/metrics");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, core::ErrorCode::ResourceExhausted);
}

TEST(HttpClientTest, a_closed_port_is_unavailable) {
  std::uint16_t closed_port = 0;
  {
    StubServer stub;  // take an ephemeral port, then let it go
    closed_port = stub.port();
  }
  const auto result = make_loopback_http_client()->get("127.0.0.1", closed_port, "/v1/models");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, core::ErrorCode::Unavailable);
  EXPECT_THAT(result.error().message, ::testing::HasSubstr("/v1/models"));
}

}  // namespace
}  // namespace solscope::net
