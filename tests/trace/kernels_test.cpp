// The kernels table (schema 2): round trip, meta keys, filters, schema-1 files, durability and damage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/derive.hpp"
#include "data/synthetic/profiles.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/reader.hpp"
#include "trace/schema.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"

namespace solscope::trace {
namespace {

using testing::TempDir;

constexpr std::int64_t kT0 = synthetic::kStartNs;

auto kernel(std::uint32_t device, std::int64_t start_ms, std::int64_t duration_us, std::uint64_t correlation,
            std::string name) -> core::KernelRecord {
  core::KernelRecord k;
  k.device = device;
  k.start_ns = kT0 + start_ms * 1'000'000;
  k.end_ns = k.start_ns + duration_us * 1'000;
  k.pid = 1234;
  k.stream = 7 + device;
  k.correlation = correlation;
  k.grid = {132, 2, 1};
  k.block = {256, 1, 1};
  k.name = std::move(name);
  return k;
}

/// A trace with 2 devices, 10 samples per device and `kernels` appended in `batches` batches.
auto write_with_kernels(const std::filesystem::path& path, const std::vector<core::KernelRecord>& kernels,
                        std::size_t batches) -> void {
  auto writer = Writer::open(path);
  ASSERT_TRUE(writer) << writer.error().describe();
  const auto devices = synthetic::devices(2);
  ASSERT_TRUE(writer->write_devices(devices));
  ASSERT_TRUE(writer->set_kernel_log("cupti"));
  const std::size_t per_batch = (kernels.size() + batches - 1) / batches;
  std::size_t next = 0;
  for (const core::RawSample& raw : synthetic::samples(2, 10, 1)) {
    ASSERT_TRUE(writer->append(raw, core::derive(raw, devices[raw.device_index])));
    if (next < kernels.size()) {
      const std::size_t count = std::min(per_batch, kernels.size() - next);
      ASSERT_TRUE(writer->append_kernels(std::span(kernels).subspan(next, count)));
      next += count;
    }
  }
  ASSERT_TRUE(writer->set_kernel_clock_offset_ns(-1'234'567));
  ASSERT_TRUE(writer->set_kernels_dropped(17));
  ASSERT_TRUE(writer->close());
  EXPECT_EQ(writer->committed_kernels(), kernels.size());
}

auto names(const std::vector<core::KernelRecord>& kernels) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (const auto& k : kernels) out.push_back(k.name);
  return out;
}

TEST(KernelsTest, round_trip_sorts_by_start_and_keeps_every_field) {
  TempDir dir;
  const auto path = dir.file("k.sqlite");
  // Out of order across and within batches, as the injection library delivers them.
  const std::vector<core::KernelRecord> in = {kernel(1, 30, 50, 3, "c"), kernel(0, 10, 2000, 1, "a"),
                                              kernel(0, 50, 5, 5, "e"), kernel(1, 10, 7, 2, "b"),
                                              kernel(0, 40, 0, 4, "d")};
  write_with_kernels(path, in, 2);
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().schema_version, kSchemaVersion);
  EXPECT_EQ(reader->metadata().oldest_readable_version, 1);
  EXPECT_EQ(reader->metadata().kernel_log, "cupti");
  EXPECT_EQ(reader->metadata().kernel_clock_offset_ns, std::optional<std::int64_t>(-1'234'567));
  EXPECT_EQ(reader->metadata().kernels_dropped, 17u);
  auto table = reader->kernels();
  ASSERT_TRUE(table) << table.error().describe();
  EXPECT_TRUE(table->present);
  EXPECT_EQ(table->note, "");
  EXPECT_FALSE(table->report.damaged());
  EXPECT_EQ(table->report.kernels, 5u);
  // Ties at 10 ms go by device.
  EXPECT_EQ(names(table->kernels), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  const core::KernelRecord& a = table->kernels[0];
  EXPECT_EQ(a.device, 0u);
  EXPECT_EQ(a.start_ns, kT0 + 10'000'000);
  EXPECT_EQ(a.end_ns, kT0 + 12'000'000);
  EXPECT_EQ(a.duration_ns(), 2'000'000);
  EXPECT_EQ(a.pid, 1234);
  EXPECT_EQ(a.stream, 7u);
  EXPECT_EQ(a.correlation, 1u);
  EXPECT_EQ(a.grid, (std::array<std::uint32_t, 3>{132, 2, 1}));
  EXPECT_EQ(a.block, (std::array<std::uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(table->kernels[3].duration_ns(), 0) << "a zero-length record is kept";
  EXPECT_EQ(reader->sample_count(), 20u) << "samples are untouched";
}

TEST(KernelsTest, for_each_kernel_streams_every_record_in_arrival_order_without_holding_them) {
  TempDir dir;
  const auto path = dir.file("k.sqlite");
  const std::vector<core::KernelRecord> in = {kernel(1, 30, 50, 3, "c"), kernel(0, 10, 2000, 1, "a"),
                                              kernel(0, 50, 5, 5, "e"), kernel(1, 10, 7, 2, "b")};
  write_with_kernels(path, in, 2);
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  std::vector<std::string> seen;
  auto table = reader->for_each_kernel({}, [&](const core::KernelRecord& k) { seen.push_back(k.name); });
  ASSERT_TRUE(table) << table.error().describe();
  EXPECT_TRUE(table->present);
  EXPECT_TRUE(table->kernels.empty()) << "the records went to the sink only";
  EXPECT_EQ(table->report.kernels, 4u);
  EXPECT_EQ(table->note, "");
  std::vector<std::string> sorted = seen;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::string>{"a", "b", "c", "e"}));
  KernelReadOptions gpu1;
  gpu1.devices = {1};
  seen.clear();
  table = reader->for_each_kernel(gpu1, [&](const core::KernelRecord& k) { seen.push_back(k.name); });
  ASSERT_TRUE(table);
  EXPECT_EQ(table->report.kernels, 2u);
  EXPECT_EQ(seen.size(), 2u);
}

TEST(KernelsTest, long_names_are_cut_at_a_character_boundary) {
  TempDir dir;
  const auto path = dir.file("k.sqlite");
  // 511 ASCII bytes, then a 2-byte character that would straddle byte 512: the cut keeps 511 bytes.
  const std::string name = std::string(511, 'x') + "\xc3\xa9" + std::string(100, 'y');
  write_with_kernels(path, {kernel(0, 1, 1, 1, name), kernel(0, 2, 1, 2, std::string(600, 'z'))}, 1);
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader);
  auto table = reader->kernels();
  ASSERT_TRUE(table);
  ASSERT_EQ(table->kernels.size(), 2u);
  EXPECT_EQ(table->kernels[0].name, std::string(511, 'x'));
  EXPECT_EQ(table->kernels[1].name, std::string(kMaxKernelNameBytes, 'z'));
}

TEST(KernelsTest, filters_by_device_and_by_overlap_with_the_window) {
  TempDir dir;
  const auto path = dir.file("k.sqlite");
  write_with_kernels(path,
                     {kernel(0, 10, 2000, 1, "a"), kernel(1, 10, 7, 2, "b"), kernel(1, 30, 50, 3, "c"),
                      kernel(0, 40, 0, 4, "d"), kernel(0, 50, 5, 5, "e")},
                     1);
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader);
  auto device1 = reader->kernels({.devices = {1}});
  ASSERT_TRUE(device1);
  EXPECT_EQ(names(device1->kernels), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(device1->report.kernels, 2u);
  // [11 ms, 40 ms): "a" (10-12 ms) overlaps it, "b" (10-10.007 ms) ends before, "d" starts at its end.
  auto window = reader->kernels({.from_ns = kT0 + 11'000'000, .to_ns = kT0 + 40'000'000});
  ASSERT_TRUE(window);
  EXPECT_EQ(names(window->kernels), (std::vector<std::string>{"a", "c"}));
  auto both = reader->kernels({.devices = {0}, .from_ns = kT0 + 40'000'000});
  ASSERT_TRUE(both);
  EXPECT_EQ(names(both->kernels), (std::vector<std::string>{"e"})) << "d is [40, 40) ms: ends at from_ns";
}

TEST(KernelsTest, a_schema_1_file_reads_with_no_kernel_table) {
  auto reader = Reader::open(SOLSCOPE_TEST_DATA_DIR "/synthetic/synthetic-v1.sqlite");
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().schema_version, 1);
  EXPECT_EQ(reader->metadata().kernel_log, "");
  EXPECT_EQ(reader->metadata().kernel_clock_offset_ns, std::nullopt);
  EXPECT_EQ(reader->metadata().kernels_dropped, 0u);
  auto table = reader->kernels();
  ASSERT_TRUE(table) << table.error().describe();
  EXPECT_FALSE(table->present);
  EXPECT_EQ(table->kernels.size(), 0u);
  EXPECT_FALSE(table->report.damaged());
  EXPECT_EQ(table->note, "");
  EXPECT_EQ(reader->sample_count(), 120u);
}

TEST(KernelsTest, a_new_trace_without_kernels_has_an_empty_table_and_no_kernel_log) {
  TempDir dir;
  const auto path = dir.file("t.sqlite");
  ASSERT_TRUE(synthetic::write_trace(path, 1, 5, 1));
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader);
  auto table = reader->kernels();
  ASSERT_TRUE(table);
  EXPECT_TRUE(table->present);
  EXPECT_EQ(table->kernels.size(), 0u);
  EXPECT_EQ(reader->metadata().kernel_log, "");
}

TEST(KernelsTest, a_record_ending_before_it_starts_is_refused_with_its_batch) {
  TempDir dir;
  auto writer = Writer::open(dir.file("k.sqlite"));
  ASSERT_TRUE(writer);
  core::KernelRecord bad = kernel(0, 5, 1, 2, "bad");
  bad.end_ns = bad.start_ns - 1;
  const std::vector<core::KernelRecord> batch = {kernel(0, 1, 1, 1, "good"), bad};
  auto refused = writer->append_kernels(batch);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_THAT(refused.error().message, ::testing::HasSubstr("\"bad\" of device 0 ends"));
  auto reserved = writer->set_metadata(kMetaKernelsDropped, "3");
  ASSERT_FALSE(reserved);
  EXPECT_EQ(reserved.error().code, core::ErrorCode::InvalidArgument);
  ASSERT_TRUE(writer->close());
  EXPECT_EQ(writer->committed_kernels(), 0u);
}

TEST(KernelsTest, a_full_batch_of_kernels_is_committed_before_close) {
  // Same durability as samples: once batch_samples records are buffered they are in the file, readable by
  // another reader while the recorder still runs (and after a kill).
  TempDir dir;
  const auto path = dir.file("k.sqlite");
  auto writer = Writer::open(path, {.batch_samples = 4});
  ASSERT_TRUE(writer);
  std::vector<core::KernelRecord> batch;
  for (std::uint64_t i = 0; i < 3; ++i) batch.push_back(kernel(0, static_cast<std::int64_t>(i), 1, i, "k"));
  ASSERT_TRUE(writer->append_kernels(batch));
  EXPECT_EQ(writer->committed_kernels(), 0u);
  ASSERT_TRUE(writer->append_kernels(std::span(batch).first(1)));
  EXPECT_EQ(writer->committed_kernels(), 4u);
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto table = reader->kernels();
  ASSERT_TRUE(table);
  EXPECT_EQ(table->kernels.size(), 4u);
  ASSERT_TRUE(writer->close());
}

TEST(KernelsTest, a_zeroed_page_of_the_kernels_table_is_stepped_over_and_counted) {
  TempDir dir;
  const auto path = dir.file("k.sqlite");
  constexpr std::uint64_t kTotal = 3000;
  std::vector<core::KernelRecord> in;
  for (std::uint64_t i = 1; i <= kTotal; ++i) {
    in.push_back(kernel(static_cast<std::uint32_t>(i % 2), static_cast<std::int64_t>(i), 100, i,
                        "synthetic_kernel_" + std::to_string(i)));
  }
  write_with_kernels(path, in, 1);
  // The kernels were written last, in one transaction: the file's last pages are leaves of the kernels
  // table (its root page was made with the schema, near the start). Zero the third page from the end.
  auto bytes = testing::read_bytes(path);
  const std::size_t pages = bytes.size() / kPageSizeBytes;
  ASSERT_GE(pages, 12u);
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>((pages - 3) * kPageSizeBytes),
            bytes.begin() + static_cast<std::ptrdiff_t>((pages - 2) * kPageSizeBytes), '\0');
  testing::write_bytes(path, bytes, bytes.size());

  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto table = reader->kernels();
  ASSERT_TRUE(table) << table.error().describe();
  const KernelReadReport& r = table->report;
  EXPECT_EQ(r.damaged_ranges, 1u);
  EXPECT_FALSE(r.stopped);
  EXPECT_GT(r.skipped_rows, 10u);
  EXPECT_LT(r.skipped_rows, 400u) << "one 16 KiB leaf holds well under 400 rows";
  EXPECT_EQ(r.kernels + r.skipped_rows, kTotal);
  EXPECT_EQ(r.skipped_rows, static_cast<std::uint64_t>(r.last_skipped_id - r.first_skipped_id + 1));
  // Every record before and after the damaged range is there (correlation = id here).
  std::vector<std::uint64_t> ids;
  for (const auto& k : table->kernels) ids.push_back(k.correlation);
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), r.kernels);
  EXPECT_EQ(ids.front(), 1u);
  EXPECT_EQ(ids.back(), kTotal);
  EXPECT_EQ(ids[static_cast<std::size_t>(r.first_skipped_id) - 2],
            static_cast<std::uint64_t>(r.first_skipped_id - 1));
  EXPECT_EQ(ids[static_cast<std::size_t>(r.first_skipped_id) - 1],
            static_cast<std::uint64_t>(r.last_skipped_id + 1));
  EXPECT_THAT(table->note,
              ::testing::StartsWith("trace " + path.string() + ": its kernels table is damaged: read " +
                                    std::to_string(r.kernels) + " kernel records; skipped " +
                                    std::to_string(r.skipped_rows) + " unreadable rows in 1 range(s)"));
  EXPECT_EQ(reader->sample_count(), 20u) << "the samples are not affected";
}

TEST(KernelsTest, a_schema_2_file_that_lost_its_kernels_table_says_so) {
  TempDir dir;
  const auto path = dir.file("k.sqlite");
  write_with_kernels(path, {kernel(0, 1, 1, 1, "a")}, 1);
  testing::run_sql(path, "DROP TABLE kernels;");
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto table = reader->kernels();
  ASSERT_TRUE(table);
  EXPECT_FALSE(table->present);
  EXPECT_TRUE(table->report.stopped);
  EXPECT_EQ(table->note, "trace " + path.string() +
                             " is damaged: its kernels table is missing, no kernel record can be read");
}

TEST(KernelsTest, the_synthetic_generator_writes_a_kernel_table_that_follows_the_phases) {
  TempDir dir;
  const auto path = dir.file("phases.sqlite");
  auto written = synthetic::write_profile_trace(
      path, {.profile = synthetic::Profile::Phases, .devices = 2, .hz = 10, .seconds = 8.0, .kernels = true});
  ASSERT_TRUE(written) << written.error().describe();
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->metadata().kernel_log, "synthetic");
  EXPECT_TRUE(reader->metadata().synthetic);
  auto table = reader->kernels();
  ASSERT_TRUE(table);
  // GPU 0: idle 0-4 s, tensor 4-8 s (800 GEMMs, 200 all-reduces). GPU 1: idle 0-2 s, tensor 2-6 s (800 +
  // 200), DRAM 6-8 s (800 GEMVs).
  EXPECT_EQ(table->kernels.size(), 2800u);
  std::map<std::string, int> counts;
  for (const auto& k : table->kernels) ++counts[k.name];
  EXPECT_EQ(counts["synthetic_gemm_bf16_128x256"], 1600);
  EXPECT_EQ(counts["synthetic_allreduce_ring"], 400);
  EXPECT_EQ(counts["synthetic_decode_gemv_bf16"], 800);
  EXPECT_EQ(table->kernels.front().start_ns, reader->metadata().start_time_ns + 2'000'000'000);
  auto random = synthetic::write_profile_trace(dir.file("r.sqlite"),
                                               {.profile = synthetic::Profile::Random, .kernels = true});
  ASSERT_FALSE(random);
  EXPECT_EQ(random.error().code, core::ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace solscope::trace
