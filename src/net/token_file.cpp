#include "net/token_file.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "net/settings_file.hpp"

namespace solscope::net {
namespace {

auto is_token_char(char c) -> bool {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' ||
         c == '=';
}

auto trim(std::string_view s) -> std::string_view {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

auto read_token_file(const std::string& path) -> core::Result<std::string> {
  constexpr std::string_view kHint = "write the bearer token on the file's first line";
  auto text = read_settings_file(
      path, {.what = "token file", .max_bytes = kMaxTokenFileBytes, .owner_only = true, .hint = kHint});
  if (!text) return core::propagate(std::move(text));
  if (text->empty()) {
    return core::fail(core::ErrorCode::NotFound, "token file " + path + " is empty", std::string(kHint));
  }
  const std::string line = text->substr(0, text->find('\n'));
  const std::string token(trim(line));
  if (token.size() < kMinTokenLength) {
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "token file " + path + " holds a token of " + std::to_string(token.size()) + " characters",
        "use at least " + std::to_string(kMinTokenLength) +
            " random characters, e.g. `(umask 077; openssl rand -hex 32 > " + path + ")`");
  }
  if (!std::all_of(token.begin(), token.end(), is_token_char)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "token file " + path +
                          " holds characters a bearer "
                          "token cannot carry",
                      "use letters, digits and -._~+/ only, e.g. `openssl rand -hex 32`");
  }
  return token;
}

}  // namespace solscope::net
