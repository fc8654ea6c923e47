#include "wire/detail/json_escape.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace solscope::wire::detail {
namespace {

/// The bytes of U+FFFD REPLACEMENT CHARACTER in UTF-8.
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
/// Room for any double nlohmann's to_chars writes (its serializer's number buffer is 64 bytes).
constexpr std::size_t kNumberBytes = 64;

/// Whole numbers below this print as "<digits>.0"; from 1e15 on (16 digits) nlohmann writes "1e+15".
constexpr double kWholeLimit = 1e15;

/// True for a byte that needs more than copying: a control character, `"`, `\`, or a non-ASCII byte.
constexpr auto needs_care(unsigned char c) -> bool {
  return c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
}

void append_escaped_ascii(std::string& out, unsigned char c) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\r':
      out += "\\r";
      return;
    default:
      if (c < 0x20) {
        out += "\\u00";
        out += kHex[c >> 4U];
        out += kHex[c & 0xFU];
      } else {
        out += static_cast<char>(c);
      }
  }
}

/// The length of the UTF-8 sequence that `lead` starts (2-4), and the range its second byte must lie in
/// (RFC 3629 section 4: no overlong forms, no surrogates, nothing above U+10FFFF); 0 for a byte that starts
/// no sequence (a continuation byte, C0, C1, F5-FF).
struct Lead {
  int length = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
};

constexpr auto lead_of(unsigned char b) -> Lead {
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};
  if (b >= 0xE1 && b <= 0xEF) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};
  if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
  return {};
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    std::size_t plain = i;
    while (plain < n && !needs_care(static_cast<unsigned char>(text[plain]))) ++plain;
    out.append(text.data() + i, plain - i);
    i = plain;
    if (i == n) break;
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      append_escaped_ascii(out, b);
      ++i;
      continue;
    }
    const Lead lead = lead_of(b);
    if (lead.length == 0) {  // rejected at its first byte: that byte is dropped
      out += kReplacement;
      ++i;
      continue;
    }
    std::size_t j = 1;
    for (; j < static_cast<std::size_t>(lead.length); ++j) {
      if (i + j == n) break;
      const auto c = static_cast<unsigned char>(text[i + j]);
      const unsigned char lo = j == 1 ? lead.second_min : 0x80;
      const unsigned char hi = j == 1 ? lead.second_max : 0xBF;
      if (c < lo || c > hi) break;
    }
    if (j == static_cast<std::size_t>(lead.length)) {
      out.append(text.data() + i, j);
    } else {
      out += kReplacement;  // cut off by the end, or by a byte that is read again as the next start
    }
    i += j;
  }
  out += '"';
}

void append_json_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  std::array<char, kNumberBytes> buffer{};
  // A whole number of at most 15 digits prints as its digits and ".0" (nlohmann's format_buffer), so it skips
  // Grisu2: clocks, temperatures, byte counts. Zero keeps to_chars for its sign ("-0.0").
  if (v != 0.0 && std::fabs(v) < kWholeLimit && std::trunc(v) == v) {
    const auto [end, ec] =
        std::to_chars(buffer.data(), buffer.data() + buffer.size(), static_cast<std::int64_t>(v));
    out.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
    out += ".0";
    return;
  }
  const char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), v);
  out.append(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
}

}  // namespace solscope::wire::detail
