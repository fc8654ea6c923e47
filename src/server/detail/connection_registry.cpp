#include "server/detail/connection_registry.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>

namespace solscope::server::detail {

ConnectionRegistry::ConnectionRegistry(std::size_t max_per_address)
    : max_per_address_(std::max<std::size_t>(max_per_address, 1)) {}

ConnectionRegistry::Slot::~Slot() {
  if (registry_ != nullptr) registry_->leave(fd_);
}

auto ConnectionRegistry::admit(int fd, const std::string& address, std::optional<Slot>& slot) -> Admission {
  const std::scoped_lock lock(mutex_);
  if (stopping_) return Admission::Stopping;
  std::size_t& count = per_address_[address];
  if (count >= max_per_address_) {
    ++refused_;
    return Admission::TooManyFromAddress;
  }
  ++count;
  address_of_[fd] = address;
  slot.emplace(this, fd);
  return Admission::Admitted;
}

void ConnectionRegistry::leave(int fd) {
  const std::scoped_lock lock(mutex_);
  const auto it = address_of_.find(fd);
  if (it == address_of_.end()) return;
  const auto count = per_address_.find(it->second);
  if (count != per_address_.end() && --count->second == 0) per_address_.erase(count);
  address_of_.erase(it);
}

void ConnectionRegistry::shut_down_all() {
  const std::scoped_lock lock(mutex_);
  stopping_ = true;
  // The sockets stay open (their threads close them), so no descriptor is reused under a thread's feet.
  for (const auto& [fd, address] : address_of_) ::shutdown(fd, SHUT_RDWR);
}

auto ConnectionRegistry::refused_total() const -> std::uint64_t {
  const std::scoped_lock lock(mutex_);
  return refused_;
}

auto ConnectionRegistry::open() const -> std::size_t {
  const std::scoped_lock lock(mutex_);
  return address_of_.size();
}

namespace {

/// The numeric address (IPv4-mapped IPv6 addresses as IPv4) and port of `addr`; "" and 0 for another family.
auto endpoint_of(const sockaddr_storage& addr) -> Endpoint {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&addr);
    const bool ok = ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text)) != nullptr;
    return {ok ? text : "", ntohs(v4->sin_port)};
  }
  if (addr.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    const bool ok = IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)
                        ? ::inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], text, sizeof(text)) != nullptr
                        : ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text)) != nullptr;
    return {ok ? text : "", ntohs(v6->sin6_port)};
  }
  return {};
}

}  // namespace

auto socket_endpoint(int fd, EndpointSide side) -> Endpoint {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  auto* raw = reinterpret_cast<sockaddr*>(&addr);
  const int rc = side == EndpointSide::Peer ? ::getpeername(fd, raw, &len) : ::getsockname(fd, raw, &len);
  return rc == 0 ? endpoint_of(addr) : Endpoint{};
}

}  // namespace solscope::server::detail
