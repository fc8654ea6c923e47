#include "core/text.hpp"

#include <gtest/gtest.h>

namespace solscope::core {
namespace {

TEST(TextTest, lowercases_ascii_only) {
  EXPECT_EQ(to_lower_ascii("GPU-AbC:17.0"), "gpu-abc:17.0");
  EXPECT_EQ(to_lower_ascii(""), "");
  EXPECT_EQ(to_lower_ascii("\xC3\x89t\xC3\xA9"), "\xC3\x89t\xC3\xA9") << "non-ASCII bytes unchanged";
}

TEST(TextTest, edit_distance_counts_single_edits) {
  EXPECT_EQ(edit_distance("devices", "devices"), 0u);
  EXPECT_EQ(edit_distance("devcies", "devices"), 2u);
  EXPECT_EQ(edit_distance("", "top"), 3u);
  EXPECT_EQ(edit_distance("h100", "h200"), 1u);
  EXPECT_EQ(edit_distance("record", ""), 6u);
}

}  // namespace
}  // namespace solscope::core
