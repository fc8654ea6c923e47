#include "core/enum_table.hpp"

#include <gtest/gtest.h>

#include "core/chip.hpp"
#include "core/metric_catalog.hpp"
#include "core/result.hpp"

namespace solscope::core {
namespace {

enum class Counted : std::uint8_t { First, Second, kCount };
enum class Uncounted : std::uint8_t { Alpha, Beta, Gamma };

constexpr EnumNames<Counted> kCountedNames({"first", "second"}, "unknown");
constexpr EnumNames<Uncounted, 3> kUncountedNames({"alpha", "beta", "gamma"}, "?");

// The table is checked at compile time; these run there too.
static_assert(kCountedNames(Counted::Second) == "second");
static_assert(kUncountedNames(Uncounted::Gamma) == "gamma");

TEST(EnumNamesTest, names_each_enumerator_by_its_value) {
  EXPECT_EQ(kCountedNames(Counted::First), "first");
  EXPECT_EQ(kCountedNames(Counted::Second), "second");
  EXPECT_EQ(kUncountedNames(Uncounted::Alpha), "alpha");
  EXPECT_EQ(kUncountedNames(Uncounted::Beta), "beta");
}

TEST(EnumNamesTest, kcount_and_values_outside_the_enum_take_the_fallback) {
  EXPECT_EQ(kCountedNames(Counted::kCount), "unknown");
  EXPECT_EQ(kCountedNames(static_cast<Counted>(200)), "unknown");
  EXPECT_EQ(kUncountedNames(static_cast<Uncounted>(3)), "?");
}

TEST(EnumTableTest, holds_any_value_per_enumerator) {
  constexpr EnumTable<Uncounted, int, 3> kSizes({8, 4, 2}, 0);
  static_assert(kSizes(Uncounted::Beta) == 4);
  EXPECT_EQ(kSizes(Uncounted::Alpha), 8);
  EXPECT_EQ(kSizes(Uncounted::Gamma), 2);
  EXPECT_EQ(kSizes(static_cast<Uncounted>(7)), 0);
}

TEST(EnumNamesTest, core_names_are_unchanged) {
  EXPECT_EQ(to_string(ErrorCode::InvalidArgument), "invalid argument");
  EXPECT_EQ(to_string(ErrorCode::FailedPrecondition), "failed precondition");
  EXPECT_EQ(to_string(ErrorCode::Internal), "internal");
  EXPECT_EQ(to_string(ErrorCode::DeadlineExceeded), "deadline exceeded");
  EXPECT_EQ(to_string(Unit::Percent), "pct");
  EXPECT_EQ(to_string(Unit::BytesPerSecond), "bytes_per_s");
  EXPECT_EQ(to_string(Unit::Bytes), "bytes");
  EXPECT_EQ(to_string(ChipFamily::Unknown), "unknown");
  EXPECT_EQ(to_string(ChipFamily::Ga10x), "GA10x/AD10x");
  EXPECT_EQ(to_string(ChipFamily::Gb20x), "GB20x");
  EXPECT_TRUE(chips_of(ChipFamily::Unknown).empty());
  ASSERT_EQ(chips_of(ChipFamily::Gb100).size(), 2u);
  EXPECT_EQ(chips_of(ChipFamily::Gb100)[1], "GB102");
}

}  // namespace
}  // namespace solscope::core
