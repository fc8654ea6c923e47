#include "server/detail/sse_parser.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace solscope::server {
namespace {

auto parse(SseParser& parser, const std::vector<std::string>& chunks) -> std::vector<SseEvent> {
  std::vector<SseEvent> events;
  for (const auto& c : chunks) parser.feed(c, [&events](const SseEvent& e) { events.push_back(e); });
  return events;
}

TEST(SseParserTest, events_split_across_chunks_and_line_endings) {
  SseParser parser;
  const auto events =
      parse(parser, {"event: hel", "lo\ndata: {\"a\":1}\n", "\n: keep-alive\n\nid: 7\r\nevent: sample\r\n",
                     "data: x\r\ndata: y\r\n\r", "\n"});
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].type, "hello");
  EXPECT_EQ(events[0].data, "{\"a\":1}");
  EXPECT_EQ(events[1].type, "sample");
  EXPECT_EQ(events[1].id, "7");
  EXPECT_EQ(events[1].data, "x\ny");
}

TEST(SseParserTest, events_without_data_are_not_dispatched_and_type_defaults_to_message) {
  SseParser parser;
  const auto events = parse(parser, {"event: nothing\n\ndata:plain\n\n"});
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].type, "message");
  EXPECT_EQ(events[0].data, "plain");
}

TEST(SseParserTest, oversized_events_are_discarded_whole) {
  SseParser parser(16);
  const auto events = parse(parser, {"data: " + std::string(100, 'x') + "\n\ndata: ok\n\n"});
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].data, "ok");
  EXPECT_EQ(parser.overflows(), 1U);
}

TEST(SseParserTest, lines_after_the_overflow_stay_part_of_the_discarded_event) {
  SseParser parser(16);
  const auto events =
      parse(parser, {"data: " + std::string(100, 'x') + "\ndata: tail\nid: 9\n\ndata: ok\n\n"});
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].data, "ok");
  EXPECT_EQ(events[0].id, "");
  EXPECT_EQ(parser.overflows(), 1U);
}

}  // namespace
}  // namespace solscope::server
