// What counts as a loopback host: the one rule behind the loopback HTTP client (which contacts nothing else)
// and the server (which asks for a bearer token on any other listen address). Names are never resolved:
// /etc/hosts could map them anywhere.
#pragma once

#include <cstdint>
#include <string_view>

namespace solscope::net {

/// The spellings of a loopback host that is_loopback_host() accepts.
enum class LoopbackForm : std::uint8_t {
  /// A literal address only: an IPv4 address in 127.0.0.0/8 ("127.0.0.1") or the IPv6 loopback ("::1"),
  /// without brackets. For a host to connect to: nothing to resolve, nothing to strip.
  Address,
  /// Also "localhost" and a bracketed IPv6 address ("[::1]"): a listen address as the user writes it.
  Listen,
};

/// True when `host` is a loopback host in `form`. Addresses are read as inet_pton(3) reads them (four decimal
/// octets, or IPv6 text); any other name, "0.0.0.0" and "::" are not loopback.
[[nodiscard]] auto is_loopback_host(std::string_view host, LoopbackForm form = LoopbackForm::Address) -> bool;

}  // namespace solscope::net
