// The open connections of the server (private to src/server): a cap per client address, and a way to cut
// every connection at once when the server stops, whatever its client does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace solscope::server::detail {

/// Why a connection was not admitted.
enum class Admission {
  Admitted,
  TooManyFromAddress,  ///< the client's address already holds max_per_address connections
  Stopping,            ///< the server is stopping
};

/// Open connections by socket and client address. Thread-safe.
class ConnectionRegistry {
 public:
  /// At most `max_per_address` (>= 1) connections from one client address at once.
  explicit ConnectionRegistry(std::size_t max_per_address);

  /// A connection's place in the registry; leaving it (destruction) frees the place.
  class Slot {
   public:
    Slot(ConnectionRegistry* registry, int fd) : registry_(registry), fd_(fd) {}
    Slot(Slot&& other) noexcept : registry_(std::exchange(other.registry_, nullptr)), fd_(other.fd_) {}
    Slot(const Slot&) = delete;
    auto operator=(const Slot&) -> Slot& = delete;
    auto operator=(Slot&&) -> Slot& = delete;
    ~Slot();

   private:
    ConnectionRegistry* registry_;
    int fd_;
  };

  /// Registers socket `fd` of client `address` (numeric, e.g. "127.0.0.1" or "::1"). On Admitted, `slot`
  /// holds the connection's place until destroyed.
  [[nodiscard]] auto admit(int fd, const std::string& address, std::optional<Slot>& slot) -> Admission;
  /// Refuses every later connection and shuts down (both ways) every registered socket: blocked reads and
  /// writes on them return at once. Idempotent.
  void shut_down_all();
  /// Connections refused for their address since start.
  [[nodiscard]] auto refused_total() const -> std::uint64_t;
  /// Connections open now.
  [[nodiscard]] auto open() const -> std::size_t;

 private:
  void leave(int fd);

  const std::size_t max_per_address_;
  mutable std::mutex mutex_;
  std::map<int, std::string> address_of_;  ///< socket -> client address
  std::map<std::string, std::size_t> per_address_;
  std::uint64_t refused_ = 0;
  bool stopping_ = false;
};

/// One end of a TCP connection: numeric address (IPv4-mapped IPv6 addresses as IPv4, e.g. "127.0.0.1" or
/// "::1") and port (0..65535).
struct Endpoint {
  std::string address;
  int port = 0;
};
/// Which end of a socket.
enum class EndpointSide { Peer, Local };
/// The `side` end of socket `fd`; an empty address and port 0 when unknown (getpeername/getsockname failed,
/// not IPv4 or IPv6).
[[nodiscard]] auto socket_endpoint(int fd, EndpointSide side) -> Endpoint;

}  // namespace solscope::server::detail
