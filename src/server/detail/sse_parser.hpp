// Reading a text/event-stream (Server-Sent Events, WHATWG HTML "Server-sent events" 9.2.6): chunks in, events
// out. Used by RemoteFeed; pure and bounded.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace solscope::server {

/// One dispatched event.
struct SseEvent {
  std::string type = "message";  ///< the `event:` field; "message" when absent
  std::string data;              ///< the `data:` lines joined by '\n'
  std::string id;                ///< the `id:` field; empty when absent
};

/// Incremental parser. Lines end in LF, CRLF or CR; a blank line dispatches the event; lines starting with
/// ':' are comments; a field's value loses one leading space. Not thread-safe.
class SseParser {
 public:
  /// `max_event_bytes` bounds the buffered line plus event data (>= 1); an event growing past it is discarded
  /// whole and counted in overflows().
  explicit SseParser(std::size_t max_event_bytes = std::size_t{1} << 20);

  /// Parses `chunk`, calling `on_event` for each complete event, in order.
  void feed(std::string_view chunk, const std::function<void(const SseEvent&)>& on_event);
  /// Events discarded for exceeding max_event_bytes.
  [[nodiscard]] auto overflows() const -> std::size_t { return overflows_; }

 private:
  void line(std::string_view text, const std::function<void(const SseEvent&)>& on_event);

  std::size_t max_bytes_;
  std::string line_;
  SseEvent event_;
  bool has_data_ = false;
  bool discarding_ = false;    ///< dropping the current event's lines until a blank line
  bool line_started_ = false;  ///< the current line has a byte (buffered or discarded)
  bool last_was_cr_ = false;
  std::size_t overflows_ = 0;
};

}  // namespace solscope::server
