#include "tui/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/derive.hpp"
#include "core/units.hpp"

namespace solscope::tui {
namespace {

/// Byte offset of the code point number `count` in `text` (text.size() when shorter).
auto offset_of(const std::string& text, int count) -> std::size_t {
  std::size_t i = 0;
  for (int n = 0; n < count && i < text.size(); ++n) {
    ++i;
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
  }
  return i;
}

}  // namespace

auto format_number(double value, int decimals) -> std::string {
  if (std::isnan(value)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

auto format_pct(double pct, int decimals) -> std::string {
  return std::isnan(pct) ? "n/a" : format_number(core::clamp_pct(pct), decimals) + "%";
}

auto format_value(double value, int decimals, const char* unit) -> std::string {
  return std::isnan(value) ? "n/a" : format_number(value, decimals) + " " + unit;
}

auto format_gib(double bytes) -> std::string {
  if (std::isnan(bytes) || bytes <= 0.0) return "n/a";
  return format_number(bytes / core::kGibi, 1);
}

auto format_rate(double bytes_per_s) -> std::string {
  if (std::isnan(bytes_per_s)) return "n/a";
  static constexpr const char* kUnits[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  double v = std::max(bytes_per_s, 0.0);
  std::size_t unit = 0;
  while (v >= 1000.0 && unit + 1 < std::size(kUnits)) {
    v /= 1000.0;
    ++unit;
  }
  return format_number(v, v >= 100.0 ? 0 : (v >= 10.0 ? 1 : 2)) + " " + kUnits[unit];
}

auto format_seconds(double seconds) -> std::string {
  if (std::isnan(seconds)) return "n/a";
  if (std::abs(seconds) < 1.0) return format_number(seconds * 1e3, 1) + " ms";
  return format_number(seconds, 2) + " s";
}

auto format_utc_time(std::int64_t t_ns) -> std::string {
  std::int64_t seconds = t_ns / core::kNsPerS;
  if (t_ns < 0 && t_ns % core::kNsPerS != 0) --seconds;
  const std::int64_t of_day = ((seconds % 86400) + 86400) % 86400;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d:%02d:%02d", static_cast<int>(of_day / 3600),
                static_cast<int>(of_day / 60 % 60), static_cast<int>(of_day % 60));
  return buf;
}

auto format_span(std::int64_t span_ns) -> std::string {
  const std::string sign = span_ns < 0 ? "-" : "";
  const std::int64_t s = (span_ns < 0 ? -span_ns : span_ns) / core::kNsPerS;
  if (s >= 3600 && s % 3600 == 0) return sign + std::to_string(s / 3600) + "h";
  if (s >= 60 && s % 60 == 0) return sign + std::to_string(s / 60) + "m";
  return sign + std::to_string(s) + "s";
}

auto format_clock(std::int64_t duration_ns) -> std::string {
  const std::int64_t s = std::max<std::int64_t>(duration_ns, 0) / core::kNsPerS;
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%d:%02d:%02d", static_cast<int>(s / 3600), static_cast<int>(s / 60 % 60),
                  static_cast<int>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%d:%02d", static_cast<int>(s / 60), static_cast<int>(s % 60));
  }
  return buf;
}

auto text_width(const std::string& text) -> int {
  int n = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

auto fit(const std::string& text, int width, bool ascii) -> std::string {
  if (width <= 0) return {};
  if (text_width(text) <= width) return text;
  return text.substr(0, offset_of(text, width - 1)) + (ascii ? "~" : "…");
}

auto pad_right(const std::string& text, int width, bool ascii) -> std::string {
  std::string out = fit(text, width, ascii);
  out.append(static_cast<std::size_t>(std::max(width - text_width(out), 0)), ' ');
  return out;
}

auto pad_left(const std::string& text, int width) -> std::string {
  return std::string(static_cast<std::size_t>(std::max(width - text_width(text), 0)), ' ') + text;
}

}  // namespace solscope::tui
