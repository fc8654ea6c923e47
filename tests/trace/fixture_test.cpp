// The committed SYNTHETIC schema-1 fixture still reads: old traces stay readable as the code changes.
#include <gtest/gtest.h>

#include "data/synthetic/synthetic_trace.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"

namespace solscope::trace {
namespace {

TEST(FixtureTest, synthetic_schema_1_fixture_reads_bit_identical) {
  // Made by: solscope_make_synthetic_trace -o tests/data/synthetic/synthetic-v1.sqlite --devices 2 --samples
  // 60
  //          --seed 1 (see tests/data/synthetic/make_synthetic_trace.cpp).
  const std::filesystem::path path = SOLSCOPE_TEST_DATA_DIR "/synthetic/synthetic-v1.sqlite";
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().schema_version, 1);
  EXPECT_TRUE(reader->metadata().synthetic);
  EXPECT_FALSE(reader->recovered());
  ASSERT_EQ(reader->devices().size(), 2u);
  const auto expected = synthetic::samples(2, 60, 1);
  const auto back = testing::read_all(*reader);
  ASSERT_EQ(back.samples.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_TRUE(testing::identical(back.samples[i], expected[i])) << "sample " << i;
  }
}

}  // namespace
}  // namespace solscope::trace
