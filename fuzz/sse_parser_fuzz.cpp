// libFuzzer target: the Server-Sent Events parser (server/detail/sse_parser.hpp) that `--connect` feeds with a
// daemon's stream.
//
// The first input byte sets the event bound (1-256 bytes, so that overflows happen) and the second the chunk
// size (1-16 bytes); the rest is the stream. It is parsed whole and in chunks: the two must give the same
// events and the same overflow count, since a stream arrives cut anywhere. A difference aborts (a finding).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "server/detail/sse_parser.hpp"

namespace {

using solscope::server::SseEvent;
using solscope::server::SseParser;

struct Parsed {
  std::vector<SseEvent> events;
  std::size_t overflows = 0;
};

auto parse(std::string_view stream, std::size_t max_event_bytes, std::size_t chunk_bytes) -> Parsed {
  SseParser parser(max_event_bytes);
  Parsed out;
  const auto keep = [&](const SseEvent& event) { out.events.push_back(event); };
  for (std::size_t at = 0; at < stream.size(); at += chunk_bytes)
    parser.feed(stream.substr(at, chunk_bytes), keep);
  out.overflows = parser.overflows();
  return out;
}

auto same(const Parsed& a, const Parsed& b) -> bool {
  return a.overflows == b.overflows && std::equal(a.events.begin(), a.events.end(), b.events.begin(),
                                                  b.events.end(), [](const SseEvent& x, const SseEvent& y) {
                                                    return x.type == y.type && x.data == y.data &&
                                                           x.id == y.id;
                                                  });
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  if (size < 2) return 0;
  const std::size_t max_event_bytes = std::size_t{data[0]} + 1;
  const std::size_t chunk_bytes = std::size_t{data[1] % 16U} + 1;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 2, size - 2);
  const Parsed whole = parse(stream, max_event_bytes, std::max<std::size_t>(stream.size(), 1));
  const Parsed chunked = parse(stream, max_event_bytes, chunk_bytes);
  for (const SseEvent& event : whole.events) {
    if (event.data.size() > max_event_bytes) std::abort();  // the bound holds for every dispatched event
  }
  if (!same(whole, chunked)) std::abort();
  return 0;
}
