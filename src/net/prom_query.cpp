#include "net/prom_query.hpp"

#include <fmt/format.h>

// parse_prom_query_answer: prom_answer.cpp.

namespace solscope::net {

auto url_encode(std::string_view text) -> std::string {
  std::string out;
  out.reserve(text.size() * 3);
  for (unsigned char c : text) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == '~';
    if (keep) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

auto prom_time(std::int64_t t_ns) -> std::string {
  const std::int64_t ms = t_ns / 1'000'000;
  return fmt::format("{}.{:03}", ms / 1000, ms % 1000);
}

}  // namespace solscope::net
