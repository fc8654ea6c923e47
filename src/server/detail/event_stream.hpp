// The live stream's fan-out: every SolSample and every closed window, rendered once, goes into a bounded
// queue per connected client. The publisher (the engine thread) never waits for a client: a full queue loses
// its oldest event and the client is told how many it lost.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace solscope::server {

/// One event ready to send: the device it is about, its data line (one JSON object, no newline) and its SSE
/// event type (docs/http-api.md "/api/v1/stream").
struct StreamEvent {
  static constexpr std::string_view kSampleEvent = "sample";  ///< data: one SolSample
  static constexpr std::string_view kWindowEvent = "window";  ///< data: one closed window

  std::uint32_t device = 0;
  std::string data;
  std::string_view type = kSampleEvent;  ///< kSampleEvent or kWindowEvent
};

/// What a client takes from its queue at once.
struct StreamBatch {
  std::vector<std::shared_ptr<const StreamEvent>> events;  ///< oldest first
  std::uint64_t dropped = 0;  ///< events lost to a full queue since the previous batch
  bool closed = false;        ///< the hub is shutting down: send nothing more
};

/// One connected client's bounded queue. Thread-safe: the hub pushes, the client's connection thread takes.
class StreamClient {
 public:
  /// `capacity` >= 1 events; `device` filters to one GPU (nullopt = all).
  StreamClient(std::size_t capacity, std::optional<std::uint32_t> device);

  /// Adds an event unless filtered out; a full queue drops its oldest event first. Never blocks on the taker.
  void push(const std::shared_ptr<const StreamEvent>& event);
  /// Waits at most `timeout` for events (or close()), then takes everything queued.
  [[nodiscard]] auto take(std::chrono::milliseconds timeout) -> StreamBatch;
  /// Wakes the taker and makes every later take() report closed.
  void close();
  /// Events dropped over the client's life.
  [[nodiscard]] auto dropped_total() const -> std::uint64_t;

 private:
  const std::size_t capacity_;
  const std::optional<std::uint32_t> device_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<const StreamEvent>> queue_;
  std::uint64_t dropped_ = 0;
  std::uint64_t dropped_total_ = 0;
  bool closed_ = false;
};

/// Counters of the hub for /metrics.
struct StreamStats {
  std::size_t clients = 0;           ///< connected now
  std::uint64_t rejected = 0;        ///< refused because max_clients were connected (HTTP 429)
  std::uint64_t dropped_events = 0;  ///< events lost by slow clients (all clients, ever)
};

/// The set of connected clients. Thread-safe.
class StreamHub {
 public:
  /// At most `max_clients` (>= 1) at once, each with a queue of `queue_events` (>= 1) events.
  StreamHub(std::size_t max_clients, std::size_t queue_events);

  /// A new client, or nullptr when max_clients are connected or the hub is closed. Dropping the returned
  /// pointer disconnects the client (frees its slot).
  [[nodiscard]] auto connect(std::optional<std::uint32_t> device) -> std::shared_ptr<StreamClient>;
  /// True when some client is connected (lets the publisher skip rendering when nobody listens).
  [[nodiscard]] auto has_clients() const -> bool;
  /// Pushes `event` to every client's queue. O(clients), one short lock per client; never waits for a taker.
  void publish(const std::shared_ptr<const StreamEvent>& event);
  /// Closes every client and refuses new ones (shutdown).
  void close();
  [[nodiscard]] auto stats() const -> StreamStats;

 private:
  void disconnect(const StreamClient* client);

  const std::size_t max_clients_;
  const std::size_t queue_events_;
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<StreamClient>> clients_;
  bool closed_ = false;
  StreamStats stats_;
};

}  // namespace solscope::server
