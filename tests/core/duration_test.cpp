#include "core/duration.hpp"

#include <gtest/gtest.h>

#include "core/units.hpp"

namespace solscope::core {
namespace {

TEST(DurationTest, every_unit_and_a_bare_number_of_seconds) {
  EXPECT_EQ(parse_duration_ns("250ns").value(), 250);
  EXPECT_EQ(parse_duration_ns("250us").value(), 250 * kNsPerUs);
  EXPECT_EQ(parse_duration_ns("100ms").value(), 100 * kNsPerMs);
  EXPECT_EQ(parse_duration_ns("0.5s").value(), 500 * kNsPerMs);
  EXPECT_EQ(parse_duration_ns("2").value(), 2 * kNsPerS);
  EXPECT_EQ(parse_duration_ns("1.5m").value(), 90 * kNsPerS);
  EXPECT_EQ(parse_duration_ns("1h").value(), kNsPerHour);
  EXPECT_EQ(parse_duration_ns("0s").value(), 0);
  EXPECT_EQ(parse_duration_ns("1000000h").value(), kMaxDurationNs);
}

TEST(DurationTest, signs_nan_infinity_exponents_and_overflow_are_refused) {
  for (const char* bad : {"", "ms", "s", ".5s", "5.s", "10 ms", "10xs", "5d", "-1s", "+1s", "1e3s", "1..2s",
                          "nan", "nans", "inf", "infs", "1000001h", "99999999999999999999h", "0x10s"}) {
    auto r = parse_duration_ns(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::InvalidArgument) << bad;
    EXPECT_NE(r.error().message.find("invalid duration"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace solscope::core
