#include "net/loopback.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <string>

namespace solscope::net {

auto is_loopback_host(std::string_view host, LoopbackForm form) -> bool {
  if (form == LoopbackForm::Listen) {
    if (host == "localhost") return true;
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  }
  const std::string text(host);
  in_addr v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24U) == 127U;
  in6_addr v6{};
  return inet_pton(AF_INET6, text.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6) != 0;
}

}  // namespace solscope::net
