#include "core/text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

TEST(TextTest, terminal_safe_escapes_an_injected_title_and_clear_screen) {
  // Issue 10, item 12: a device name from a hostile trace.
  const std::string name = "H100\x1b]0;pwned\x07\x1b[2J";
  EXPECT_EQ(terminal_safe(name), "H100\\x1b]0;pwned\\x07\\x1b[2J");
  EXPECT_EQ(terminal_safe(name).find('\x1b'), std::string::npos);
}

TEST(TextTest, terminal_safe_keeps_printable_and_utf8_text) {
  const std::string plain = "NVIDIA H100 80GB HBM3 \\ 100% ~";
  EXPECT_EQ(terminal_safe(plain), plain);
  const std::string utf8 =
      "\xC3\x89t\xC3\xA9 \xE2\x96\xB6 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x9A\x80";  // Été ▶ 日本 🚀
  EXPECT_EQ(terminal_safe(utf8), utf8);
  EXPECT_EQ(terminal_safe(""), "");
}

TEST(TextTest, terminal_safe_line_breaks_and_tabs) {
  EXPECT_EQ(terminal_safe("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(terminal_safe("a\nb\tc\rd", LineBreaks::Keep), "a\nb\tc\\rd");
  EXPECT_EQ(terminal_safe(std::string_view("x\0y\x7f", 4)), "x\\x00y\\x7f");
}

TEST(TextTest, terminal_safe_escapes_c1_controls_and_bidi_overrides) {
  EXPECT_EQ(terminal_safe("a\xC2\x9B"
                          "2Jb"),
            "a\\u009b2Jb");                                         // UTF-8 encoded 8-bit CSI
  EXPECT_EQ(terminal_safe("\xC2\x85\xC2\xA0"), "\\u0085\xC2\xA0");  // NEL escaped, NBSP kept
  EXPECT_EQ(terminal_safe("x\xE2\x80\xAEy\xE2\x81\xA6z"), "x\\u202ey\\u2066z");
}

TEST(TextTest, terminal_safe_escapes_every_byte_of_invalid_utf8) {
  EXPECT_EQ(terminal_safe("a\x9B"
                          "2J"),
            "a\\x9b2J");                                                 // a raw 8-bit CSI byte
  EXPECT_EQ(terminal_safe("\xC0\x9B"), "\\xc0\\x9b");                    // overlong ESC
  EXPECT_EQ(terminal_safe("\xE0\x80\x9B"), "\\xe0\\x80\\x9b");           // overlong ESC, 3 bytes
  EXPECT_EQ(terminal_safe("\xED\xA0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(terminal_safe("\xF4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(terminal_safe("\xE2\x96"), "\\xe2\\x96");                    // cut short
  EXPECT_EQ(terminal_safe("\xFF"
                          "ok"),
            "\\xffok");
}

}  // namespace
TEST(TextTest, is_terminal_safe_is_true_exactly_when_terminal_safe_changes_nothing) {
  const std::vector<std::string> texts{"",
                                       "GPU 0 H100 80GB",
                                       "│ 45 °C ▶ …",
                                       "name\x1b]0;owned\x07\x1b[2J",
                                       "line\nbreak",
                                       "tab\there",
                                       "cr\rhere",
                                       "\xc2\x9b c1",
                                       "\xe2\x80\xae bidi",
                                       "\xff bad",
                                       "\xc0\xaf overlong",
                                       "\xed\xa0\x80 surrogate",
                                       "cut \xe2\x94"};
  for (const auto& text : texts) {
    for (const LineBreaks breaks : {LineBreaks::Escape, LineBreaks::Keep}) {
      EXPECT_EQ(is_terminal_safe(text, breaks), terminal_safe(text, breaks) == text) << text;
    }
  }
  EXPECT_TRUE(is_terminal_safe("│ 45 °C"));
  EXPECT_FALSE(is_terminal_safe("a\x1b[2Jb"));
  EXPECT_TRUE(is_terminal_safe("two\nlines", LineBreaks::Keep));
  EXPECT_FALSE(is_terminal_safe("two\nlines"));
}

}  // namespace solscope::core

namespace solscope::core {
namespace {

// U+FFFD in UTF-8, spelled out so that the tests do not lean on the constant they check.
const std::string kFffd = "\xEF\xBF\xBD";

TEST(ValidUtf8Test, keeps_well_formed_text_byte_for_byte) {
  const std::vector<std::string> texts{"",
                                       "NVIDIA H100 80GB HBM3",
                                       std::string("nul\0inside", 10),
                                       "\x7F del and \x1b controls",
                                       "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",  // 2, 3 and 4 bytes
                                       "\xED\x9F\xBF \xEE\x80\x80",                  // U+D7FF, U+E000
                                       "\xF4\x8F\xBF\xBF",                           // U+10FFFF
                                       kFffd};
  for (const std::string& text : texts) {
    EXPECT_TRUE(is_valid_utf8(text)) << text;
    EXPECT_EQ(valid_utf8(text), text) << text;
  }
}

TEST(ValidUtf8Test, replaces_each_maximal_subpart_with_one_replacement_character) {
  // The example of Unicode 15.0 section 3.9: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64.
  EXPECT_EQ(valid_utf8("a\xF1\x80\x80\xE1\x80\xC2"
                       "b\x80"
                       "c\x80\xBF"
                       "d"),
            "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d");
}

TEST(ValidUtf8Test, replaces_overlong_forms_surrogates_and_code_points_above_the_range) {
  EXPECT_EQ(valid_utf8("\xC0\xAF"), kFffd + kFffd);                          // overlong '/', 2 bytes
  EXPECT_EQ(valid_utf8("\xC1\xBF"), kFffd + kFffd);                          // overlong, C1 lead
  EXPECT_EQ(valid_utf8("\xE0\x80\xAF"), kFffd + kFffd + kFffd);              // overlong '/', 3 bytes
  EXPECT_EQ(valid_utf8("\xF0\x80\x80\xAF"), kFffd + kFffd + kFffd + kFffd);  // overlong, 4 bytes
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);              // U+D800, a surrogate
  EXPECT_EQ(valid_utf8("\xED\xBF\xBF"), kFffd + kFffd + kFffd);              // U+DFFF
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // above U+10FFFF
  EXPECT_EQ(valid_utf8("\xF5\x80\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // F5: never a lead
  EXPECT_EQ(valid_utf8("\xFE\xFF"), kFffd + kFffd);
}

TEST(ValidUtf8Test, replaces_truncated_sequences_and_lone_continuation_bytes) {
  EXPECT_EQ(valid_utf8("GPU \xE2\x82"), "GPU " + kFffd);         // cut short at the end: one U+FFFD
  EXPECT_EQ(valid_utf8("\xF0\x9F\x98 x"), kFffd + " x");         // 3 of 4 bytes, then ASCII
  EXPECT_EQ(valid_utf8("\xC3"), kFffd);                          // a lead byte alone
  EXPECT_EQ(valid_utf8("\x80"), kFffd);                          // a lone continuation byte
  EXPECT_EQ(valid_utf8("\x80\x80\x80"), kFffd + kFffd + kFffd);  // one each
  EXPECT_EQ(valid_utf8("NV\xFFID"), "NV" + kFffd + "ID");        // one corrupted byte in a name
  EXPECT_EQ(valid_utf8("\xC3\xA9\xFF\xC3\xA9"), "\xC3\xA9" + kFffd + "\xC3\xA9");  // neighbours kept
}

TEST(ValidUtf8Test, its_result_is_always_valid_and_is_valid_utf8_agrees) {
  const std::vector<std::string> texts{"\xFF", "\xC0\xAF", "\xED\xA0\x80", "\xE2\x82", "ok", "\xF4\x90"};
  for (const std::string& text : texts) {
    EXPECT_EQ(is_valid_utf8(text), valid_utf8(text) == text) << text;
    EXPECT_TRUE(is_valid_utf8(valid_utf8(text))) << text;
    EXPECT_EQ(valid_utf8(valid_utf8(text)), valid_utf8(text)) << text;
  }
  EXPECT_EQ(kReplacementCharacter, kFffd);
}

}  // namespace
}  // namespace solscope::core
