#include "core/units.hpp"

#include <gtest/gtest.h>

namespace solscope::core {
namespace {

// The derived factors are the very doubles the literals they replaced were, so every conversion written with
// them gives the same bits as before.
static_assert(kMicro == 1e-6);
static_assert(kRatioPerPercent == 0.01);
static_assert(kMebi == 1048576.0);
static_assert(kGibi == 1024.0 * 1024.0 * 1024.0);
static_assert(kSecondsPerHour == 3600.0);

TEST(UnitsTest, factors_convert_between_units) {
  EXPECT_DOUBLE_EQ(250.0 * kMicro, 0.00025) << "250 us in s";
  EXPECT_EQ(1.5 * kKilo, 1500.0) << "1.5 s in ms";
  EXPECT_EQ(50.0 * kRatioPerPercent, 0.5);
  EXPECT_EQ(2.0 * kMebi, 2097152.0);
  EXPECT_EQ(static_cast<double>(kNsPerHour) / static_cast<double>(kNsPerS) / kSecondsPerHour, 1.0);
}

}  // namespace
}  // namespace solscope::core
