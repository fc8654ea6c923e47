#include "server/auth.hpp"

#include <algorithm>
#include <cctype>

namespace solscope::server {
namespace {

auto trim(std::string_view s) -> std::string_view {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

auto tokens_equal(std::string_view a, std::string_view b) -> bool {
  // Compare every byte of the longer string; the length difference is folded in, never short-circuited.
  const std::size_t n = std::max(a.size(), b.size());
  unsigned diff = a.size() == b.size() ? 0U : 1U;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0U;
    const auto y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0U;
    diff |= x ^ y;
  }
  return diff == 0;
}

auto check_bearer(std::string_view authorization, std::string_view token) -> AuthCheck {
  if (token.empty()) return AuthCheck::Ok;
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return AuthCheck::Missing;
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return AuthCheck::Missing;
  }
  const std::string_view sent = trim(authorization.substr(kScheme.size()));
  return tokens_equal(sent, token) ? AuthCheck::Ok : AuthCheck::Wrong;
}

}  // namespace solscope::server
