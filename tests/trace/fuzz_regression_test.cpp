// Defects the libFuzzer target fuzz/trace_reader_fuzz.cpp found in the reader, each with the smallest trace
// that shows it (the fuzzer's own inputs are in fuzz/corpus/trace_reader).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "data/synthetic/synthetic_trace.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"

namespace solscope::trace {
namespace {

using testing::identical;
using testing::read_all;
using testing::TempDir;

// Sample ids spanning more than INT64_MAX (a valid SQLite file: rowids may be negative) overflowed the binary
// search behind ReadOptions::from_ns (UBSan: signed integer overflow in first_id_at_or_after).
TEST(TraceFuzzRegression, from_ns_seek_over_ids_spanning_the_whole_int64_range) {
  TempDir dir;
  const auto path = dir.file("wide-ids.sqlite");
  constexpr std::uint64_t kSamples = 20;
  ASSERT_TRUE(synthetic::write_trace(path, 1, kSamples, 3));
  const auto original = synthetic::samples(1, kSamples, 3);
  const std::string lowest = std::to_string(std::numeric_limits<std::int64_t>::min() + 1);
  testing::run_sql(path, "UPDATE samples SET id = " + lowest +
                             " WHERE id = 1;"
                             "UPDATE sample_counters SET sample_id = " +
                             lowest + " WHERE sample_id = 1;");

  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  ASSERT_EQ(reader->sample_count(), kSamples);
  for (const std::size_t first : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{19}}) {
    ReadOptions from;
    from.from_ns = original[first].t_start_ns;
    const auto back = read_all(*reader, from);
    ASSERT_EQ(back.samples.size(), kSamples - first) << "from sample " << first;
    for (std::size_t i = 0; i < back.samples.size(); ++i) {
      EXPECT_TRUE(identical(back.samples[i], original[first + i])) << "from sample " << first << ", " << i;
    }
  }
}

}  // namespace
}  // namespace solscope::trace
