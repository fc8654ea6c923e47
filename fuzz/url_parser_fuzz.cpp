// libFuzzer target: the one URL parser of every URL option (net/remote_http.hpp parse_url: --prometheus,
// --dcgm-exporter, --connect).
//
// The input is a URL as a user types it. A URL that parses has a host, a port from 1 to 65535, a prefix that
// starts with '/' and does not end with one, and an origin without user info; a refusal never shows the user
// info of the input (the text between the scheme and its last '@').
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "net/remote_http.hpp"

namespace {

/// The user info a message must not show: between the scheme ("://") and the last '@'; empty when none.
auto user_info(std::string_view url) -> std::string_view {
  const auto scheme_end = url.find("://");
  const std::size_t start = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  const auto at = url.rfind('@');
  if (at == std::string_view::npos || at < start) return {};
  return url.substr(start, at - start);
}

void check_refusal(std::string_view url, const solscope::core::Error& error) {
  std::string text = error.message + "\n" + error.hint;
  // The refusal names the form it refuses; that phrase is no user info of the input.
  constexpr std::string_view kPhrase = "(USER:PASSWORD@HOST)";
  if (const auto at = text.find(kPhrase); at != std::string::npos) text.erase(at, kPhrase.size());
  const std::string_view secret = user_info(url);
  // "***" is what replaces user info, so a secret made of '*' would be found in its own stand-in.
  if (secret.empty() || secret.find('*') != std::string_view::npos) return;
  if (text.find(std::string(secret) + "@") != std::string::npos) std::abort();
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  const std::string url(reinterpret_cast<const char*>(data), size);
  const auto parsed = solscope::net::parse_url(url);
  if (!parsed) {
    check_refusal(url, parsed.error());
    return 0;
  }
  if (parsed->host.empty() || parsed->port < 1 || parsed->port > 65535) std::abort();
  if (!parsed->prefix.empty() && (parsed->prefix.front() != '/' || parsed->prefix.back() == '/'))
    std::abort();
  if (parsed->origin.find('@') != std::string::npos) std::abort();
  return 0;
}
