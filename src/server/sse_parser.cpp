#include "server/detail/sse_parser.hpp"

namespace solscope::server {

SseParser::SseParser(std::size_t max_event_bytes) : max_bytes_(max_event_bytes == 0 ? 1 : max_event_bytes) {}

void SseParser::feed(std::string_view chunk, const std::function<void(const SseEvent&)>& on_event) {
  for (const char c : chunk) {
    if (c == '\n' && last_was_cr_) {  // the LF of a CRLF: the CR already ended the line
      last_was_cr_ = false;
      continue;
    }
    last_was_cr_ = c == '\r';
    if (c == '\n' || c == '\r') {
      // While an oversized event is discarded its lines are not buffered: only a blank line ends it.
      if (!discarding_ || !line_started_) line(line_, on_event);
      line_.clear();
      line_started_ = false;
      continue;
    }
    line_started_ = true;
    if (discarding_) continue;
    line_ += c;
    if (line_.size() + event_.data.size() > max_bytes_) {
      discarding_ = true;
      ++overflows_;
      line_.clear();
    }
  }
}

void SseParser::line(std::string_view text, const std::function<void(const SseEvent&)>& on_event) {
  if (text.empty()) {
    if (has_data_ && !discarding_) on_event(event_);
    event_ = SseEvent{};
    has_data_ = false;
    discarding_ = false;
    return;
  }
  if (text.front() == ':') return;
  const std::size_t colon = text.find(':');
  const std::string_view field = text.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  if (value.starts_with(' ')) value.remove_prefix(1);
  if (field == "event") {
    event_.type = value;
  } else if (field == "data") {
    if (has_data_) event_.data += '\n';
    event_.data += value;
    has_data_ = true;
  } else if (field == "id") {
    event_.id = value;
  }
}

}  // namespace solscope::server
