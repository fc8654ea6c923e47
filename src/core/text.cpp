#include "core/text.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <vector>

namespace solscope::core {
namespace {

constexpr std::array<char, 16> kHex{'0', '1', '2', '3', '4', '5', '6', '7',
                                    '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};

void append_byte_escape(std::string& out, unsigned char byte) {
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0x0F];
}

void append_code_point_escape(std::string& out, char32_t c) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(c >> shift) & 0x0F];
}

/// What starts at `text[i]` (a byte >= 0x80): a valid UTF-8 sequence of `length` bytes (2 to 4) with its
/// `code_point`, or an ill-formed one whose maximal subpart is `length` bytes (1 to 3): the longest prefix of
/// a valid sequence found there (Unicode 15.0 section 3.9, "U+FFFD Substitution of Maximal Subparts"; RFC
/// 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
struct Utf8Step {
  std::size_t length = 1;
  bool valid = false;
  char32_t code_point = 0;
};

auto utf8_step(std::string_view text, std::size_t i) -> Utf8Step {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80;  // allowed range of the second byte
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return {};  // a continuation byte, C0, C1 or F5..FF: never part of a valid sequence
  }
  if (i + 1 >= text.size() || byte(1) < low || byte(1) > high) return {};
  char32_t c = lead & (0xFF >> (length + 1));
  for (std::size_t k = 1; k < length; ++k) {
    if (i + k >= text.size() || (byte(k) & 0xC0) != 0x80) return {.length = k};
    c = (c << 6) | (byte(k) & 0x3F);
  }
  return {.length = length, .valid = true, .code_point = c};
}

/// Length of the valid UTF-8 sequence (2 to 4 bytes) at `text[i]` (a byte >= 0x80), its code point in `c`;
/// 0 when the bytes there are not valid UTF-8.
auto utf8_sequence(std::string_view text, std::size_t i, char32_t& c) -> std::size_t {
  const Utf8Step step = utf8_step(text, i);
  if (!step.valid) return 0;
  c = step.code_point;
  return step.length;
}

/// Code points that steer a terminal or reorder what it shows: C1 controls and bidirectional overrides.
auto is_steering(char32_t c) -> bool {
  return (c >= 0x80 && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

}  // namespace

auto to_lower_ascii(std::string_view text) -> std::string {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

auto edit_distance(std::string_view a, std::string_view b) -> std::size_t {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

auto terminal_safe(std::string_view text, LineBreaks breaks) -> std::string {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7F) {
      out += static_cast<char>(byte);
      ++i;
      continue;
    }
    if (byte < 0x80) {  // C0 control or DEL
      if ((byte == '\n' || byte == '\t') && breaks == LineBreaks::Keep) {
        out += static_cast<char>(byte);
      } else if (byte == '\n') {
        out += "\\n";
      } else if (byte == '\t') {
        out += "\\t";
      } else if (byte == '\r') {
        out += "\\r";
      } else {
        append_byte_escape(out, byte);
      }
      ++i;
      continue;
    }
    char32_t c = 0;
    const std::size_t length = utf8_sequence(text, i, c);
    if (length == 0) {
      append_byte_escape(out, byte);
      ++i;
    } else if (is_steering(c)) {
      append_code_point_escape(out, c);
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

auto is_terminal_safe(std::string_view text, LineBreaks breaks) -> bool {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7F) {
      ++i;
      continue;
    }
    if (byte < 0x80) {  // C0 control or DEL: only a kept line break or tab passes
      if (!((byte == '\n' || byte == '\t') && breaks == LineBreaks::Keep)) return false;
      ++i;
      continue;
    }
    char32_t c = 0;
    const std::size_t length = utf8_sequence(text, i, c);
    if (length == 0 || is_steering(c)) return false;
    i += length;
  }
  return true;
}

auto is_valid_utf8(std::string_view text) -> bool {
  std::size_t i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const Utf8Step step = utf8_step(text, i);
    if (!step.valid) return false;
    i += step.length;
  }
  return true;
}

auto valid_utf8(std::string_view text) -> std::string {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  std::size_t i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      out += text[i++];
      continue;
    }
    const Utf8Step step = utf8_step(text, i);
    if (step.valid) {
      out.append(text.substr(i, step.length));
    } else {
      out += kReplacementCharacter;
    }
    i += step.length;
  }
  return out;
}

}  // namespace solscope::core
