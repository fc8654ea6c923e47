// NVTX ranges and marks from CUPTI_ACTIVITY_KIND_MARKER records: pairing START and END by id across buffers,
// per-thread nesting depth, marks, the open-range cap, and the walk of a mixed buffer. SYNTHETIC buffers of
// real CUpti_ActivityMarker2 structs, as CUPTI documents them (fake_activity_buffer.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_activity_buffer.hpp"
#include "inject/detail/activity_parse.hpp"

namespace solscope::inject {
namespace {

using test::ActivityBuffer;
using test::fake_next_record;
using test::mark_record;
using test::pop_record;
using test::push_record;

class Collect final : public RecordSink {
 public:
  void on_record(const RecordBody& body) override { records.push_back(body); }
  [[nodiscard]] auto markers() const -> std::vector<Marker> {
    std::vector<Marker> out;
    for (const auto& r : records) {
      if (const auto* m = std::get_if<Marker>(&r)) out.push_back(*m);
    }
    return out;
  }
  std::vector<RecordBody> records;
};

auto range(std::uint64_t start, std::uint64_t end, std::uint32_t tid, std::uint32_t depth, std::string domain,
           std::string name) -> Marker {
  return Marker{.start_cupti_ns = start,
                .end_cupti_ns = end,
                .tid = tid,
                .depth = depth,
                .domain = std::move(domain),
                .name = std::move(name)};
}

TEST(MarkerParse, PushPopPairsByIdWithNestingAndMarks) {
  // Thread 7: step [100, 900) holds forward [120, 400) and backward [420, 880); a mark at 500 inside
  // step/backward. Thread 8: its own range [150, 160) at depth 0 while thread 7 is nested.
  ActivityBuffer buf;
  buf.add(push_record(1, 100, 7, "step"));
  buf.add(push_record(2, 120, 7, "forward"));
  buf.add(push_record(3, 150, 8, "load", "DataLoader"));
  buf.add(pop_record(3, 160, 8, "DataLoader"));
  buf.add(pop_record(2, 400, 7));
  buf.add(push_record(4, 420, 7, "backward"));
  buf.add(mark_record(5, 500, 7, "grad ready", "PyTorch"));
  buf.add(pop_record(4, 880, 7));
  buf.add(pop_record(1, 900, 7));

  NameCache names;
  MarkerPairs pairs;
  Collect sink;
  const auto counts = parse_activity_buffer(buf.bytes(), buf.size(), fake_next_record, names, sink, &pairs);
  EXPECT_EQ(counts.markers, 5U);
  EXPECT_EQ(counts.other, 0U);
  EXPECT_EQ(counts.stop, CUPTI_ERROR_MAX_LIMIT_REACHED);
  // Ranges come at their END, marks at once.
  EXPECT_EQ(
      sink.markers(),
      (std::vector<Marker>{range(150, 160, 8, 0, "DataLoader", "load"), range(120, 400, 7, 1, "", "forward"),
                           range(500, 500, 7, 2, "PyTorch", "grad ready"),
                           range(420, 880, 7, 1, "", "backward"), range(100, 900, 7, 0, "", "step")}));
  EXPECT_EQ(pairs.open(), 0U);
  EXPECT_EQ(pairs.dropped(), 0U);
  EXPECT_EQ(pairs.unmatched(), 0U);
}

TEST(MarkerParse, ARangeSpanningTwoBuffersIsPairedInTheSecond) {
  ActivityBuffer first;
  first.add(push_record(10, 1'000, 3, "epoch"));
  ActivityBuffer second;
  second.add(pop_record(10, 5'000, 3));
  NameCache names;
  MarkerPairs pairs;
  Collect sink;
  EXPECT_EQ(parse_activity_buffer(first.bytes(), first.size(), fake_next_record, names, sink, &pairs).markers,
            0U);
  EXPECT_EQ(pairs.open(), 1U);
  EXPECT_EQ(
      parse_activity_buffer(second.bytes(), second.size(), fake_next_record, names, sink, &pairs).markers,
      1U);
  EXPECT_EQ(sink.markers(), (std::vector<Marker>{range(1'000, 5'000, 3, 0, "", "epoch")}));
}

TEST(MarkerParse, WithoutPairsMarkersCountAsOther) {
  ActivityBuffer buf;
  buf.add(mark_record(1, 10, 1, "m"));
  NameCache names;
  Collect sink;
  const auto counts = parse_activity_buffer(buf.bytes(), buf.size(), fake_next_record, names, sink);
  EXPECT_EQ(counts.other, 1U);
  EXPECT_EQ(counts.markers, 0U);
  EXPECT_TRUE(sink.records.empty());
}

TEST(MarkerParse, TheOpenTableIsCappedAndDropsAreCounted) {
  MarkerPairs pairs(3);
  Collect sink;
  for (std::uint32_t id = 1; id <= 5; ++id) pairs.take(push_record(id, 100 * id, 9, "r"), sink);
  EXPECT_EQ(pairs.open(), 3U);
  EXPECT_EQ(pairs.dropped(), 2U);
  // Pops in stack order: 5 and 4 were dropped (unmatched), then 3, 2, 1 close at depths 2, 1, 0.
  for (std::uint32_t id = 5; id >= 1; --id) pairs.take(pop_record(id, 1'000 + id, 9), sink);
  EXPECT_EQ(pairs.unmatched(), 2U);
  EXPECT_EQ(pairs.open(), 0U);
  EXPECT_EQ(sink.markers(),
            (std::vector<Marker>{range(300, 1'003, 9, 2, "", "r"), range(200, 1'002, 9, 1, "", "r"),
                                 range(100, 1'001, 9, 0, "", "r")}));
  // The thread is back at depth 0: the dropped ranges' ENDs left their levels.
  pairs.take(mark_record(99, 2'000, 9, "after"), sink);
  EXPECT_EQ(sink.markers().back().depth, 0U);
}

TEST(MarkerParse, ADroppedRangeStillNestsTheRangesInsideIt) {
  MarkerPairs pairs(1);
  Collect sink;
  pairs.take(push_record(1, 10, 4, "outer"), sink);
  pairs.take(push_record(2, 20, 4, "dropped"), sink);  // the table is full
  pairs.take(pop_record(1, 30, 4), sink);              // frees the slot (out of stack order)
  pairs.take(push_record(3, 40, 4, "inner"), sink);    // still inside "dropped": depth 1
  pairs.take(pop_record(3, 50, 4), sink);
  const auto markers = sink.markers();
  ASSERT_EQ(markers.size(), 2U);
  EXPECT_EQ(markers[1], range(40, 50, 4, 1, "", "inner"));
  EXPECT_EQ(pairs.dropped(), 1U);
}

TEST(MarkerParse, UntimedUnmatchedAndSyncRecordsAreNotPassedOn) {
  MarkerPairs pairs;
  Collect sink;
  EXPECT_EQ(pairs.take(push_record(1, 0, 1, "no time"), sink), 0U);  // timestamp 0: CUPTI had none
  EXPECT_EQ(pairs.take(pop_record(2, 50, 1), sink), 0U);             // pushed before markers were enabled
  EXPECT_EQ(pairs.take(test::marker_record(CUPTI_ACTIVITY_FLAG_MARKER_SYNC_ACQUIRE, 3, 60, 1, "lock"), sink),
            0U);
  EXPECT_EQ(pairs.untimed(), 1U);
  EXPECT_EQ(pairs.unmatched(), 1U);
  EXPECT_TRUE(sink.records.empty());
  // An END stamped before its START (clocks read on two cores) ends where it started.
  pairs.take(push_record(4, 700, 1, "r"), sink);
  pairs.take(pop_record(4, 690, 1), sink);
  EXPECT_EQ(sink.markers(), (std::vector<Marker>{range(700, 700, 1, 0, "", "r")}));
}

TEST(MarkerParse, AMarkerOfAProcessObjectHasThreadZeroAndLongTextsAreBounded) {
  auto r = mark_record(1, 10, 77, nullptr);
  r.objectKind = CUPTI_ACTIVITY_OBJECT_PROCESS;
  const std::string long_name(2'000, 'x');
  auto named = mark_record(2, 20, 5, long_name.c_str(), long_name.c_str());
  MarkerPairs pairs;
  Collect sink;
  pairs.take(r, sink);
  pairs.take(named, sink);
  const auto markers = sink.markers();
  ASSERT_EQ(markers.size(), 2U);
  EXPECT_EQ(markers[0], range(10, 10, 0, 0, "", ""));
  // Copied up to 516 bytes; the wire encoder cuts at 512 on a character boundary.
  EXPECT_EQ(markers[1].name.size(), kKernelNameMaxBytes + 4);
  EXPECT_EQ(markers[1].domain.size(), kKernelNameMaxBytes + 4);
}

TEST(MarkerParse, KernelsAndMarkersOfOneBufferBothComeThrough) {
  ActivityBuffer buf;
  buf.add(push_record(1, 100, 2, "step"));
  buf.add(test::kernel_record("gemm", 150, 250));
  buf.add(pop_record(1, 300, 2));
  NameCache names;
  MarkerPairs pairs;
  Collect sink;
  const auto counts = parse_activity_buffer(buf.bytes(), buf.size(), fake_next_record, names, sink, &pairs);
  EXPECT_EQ(counts.kernels, 1U);
  EXPECT_EQ(counts.markers, 1U);
  ASSERT_EQ(sink.records.size(), 2U);
  EXPECT_EQ(std::get<Kernel>(sink.records[0]).name, "gemm");
  EXPECT_EQ(std::get<Marker>(sink.records[1]), range(100, 300, 2, 0, "", "step"));
}

}  // namespace
}  // namespace solscope::inject
