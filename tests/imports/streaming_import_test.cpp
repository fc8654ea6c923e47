// The streaming text importers (importer.hpp import_lines, line_source.hpp): an input read line by line
// from a source that never holds it whole, each sample handed on as soon as its span is known, the same
// samples as the in-memory import, and bounded state whatever the input's length.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "imports/detail/recording.hpp"
#include "imports/importer.hpp"
#include "imports/line_source.hpp"
#include "support/text_lines.hpp"

namespace solscope::imports {
namespace {

using testing::test_data_text;

constexpr std::int64_t kS = 1'000'000'000;

/// A dcgm-exporter scrape log made line by line as it is read: `scrapes` scrapes 1 s apart of two GPUs,
/// two series each. Every line is written into one buffer that the next line overwrites, so an importer
/// that kept a view of an earlier line would read garbage.
class GeneratedScrapes final : public LineSource {
 public:
  explicit GeneratedScrapes(std::uint64_t scrapes) : scrapes_(scrapes) {}
  auto next() -> core::Result<std::optional<std::string_view>> override {
    if (at_ == scrapes_ * kLinesPerScrape) return std::nullopt;
    const std::uint64_t scrape = at_ / kLinesPerScrape;
    const std::uint64_t k = at_ % kLinesPerScrape;
    ++at_;
    ++number_;
    const std::int64_t ms = 1'735'689'600'000 + static_cast<std::int64_t>(scrape) * 1000;
    buffer_ = std::string(k % 2 == 0 ? "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE" : "DCGM_FI_PROF_DRAM_ACTIVE") +
              "{gpu=\"" + std::to_string(k / 2) + "\",UUID=\"GPU-" + std::to_string(k / 2) + "\"} 0." +
              std::to_string(1 + scrape % 9) + " " + std::to_string(ms);
    return std::string_view(buffer_);
  }
  static constexpr std::uint64_t kLinesPerScrape = 4;

 private:
  std::uint64_t scrapes_;
  std::uint64_t at_ = 0;
  std::string buffer_;
};

TEST(StreamingImport, a_scrape_log_streams_sample_by_sample_from_a_callback_source) {
  constexpr std::uint64_t kScrapes = 20'000;  // 80,000 lines
  GeneratedScrapes source(kScrapes);
  std::uint64_t samples = 0;
  std::size_t lines_at_first_sample = 0;
  std::vector<std::int64_t> last_end(2, 0);
  bool spans_follow = true;
  auto recording = import_lines(source, ImportFormat::DcgmExporter, kS, [&](const core::RawSample& s) {
    if (samples++ == 0) lines_at_first_sample = source.line_number();
    auto& end = last_end.at(s.device_index);
    if (end != 0 && s.t_start_ns != end) spans_follow = false;
    if (s.t_end_ns - s.t_start_ns != kS) spans_follow = false;
    end = s.t_end_ns;
    return core::ok();
  });
  ASSERT_TRUE(recording) << recording.error().describe();
  // The first samples went on after the third scrape began: nothing waited for the end of the input.
  EXPECT_LE(lines_at_first_sample, 3 * GeneratedScrapes::kLinesPerScrape);
  EXPECT_EQ(samples, 2 * kScrapes);
  EXPECT_TRUE(spans_follow) << "each sample spans from its GPU's previous one";
  EXPECT_TRUE(recording->samples.empty()) << "a streamed import holds no samples";
  ASSERT_EQ(recording->devices.size(), 2u);
  EXPECT_FALSE(recording->relative_times);
  EXPECT_FALSE(recording->span_single_ns);
}

TEST(StreamingImport, the_sink_stops_the_import_with_its_error) {
  GeneratedScrapes source(1000);
  std::uint64_t samples = 0;
  auto recording = import_lines(source, ImportFormat::DcgmExporter, kS, [&](const core::RawSample&) {
    if (++samples == 5)
      return core::Result<void>(core::fail(core::ErrorCode::ResourceExhausted, "disk full"));
    return core::ok();
  });
  ASSERT_FALSE(recording);
  EXPECT_EQ(recording.error().message, "disk full");
  EXPECT_EQ(samples, 5u);
  EXPECT_LT(source.line_number(), 1000 * GeneratedScrapes::kLinesPerScrape);
}

auto key(const core::RawSample& s) {
  return std::tuple(s.device_index, s.t_start_ns, s.t_end_ns);
}

/// import_lines over a stream of `text` gives import_text's samples (each GPU's in the same order).
void expect_same_samples(const std::string& text, ImportFormat format, std::int64_t interval_ns) {
  const auto whole = import_text(text, format, interval_ns);
  ASSERT_TRUE(whole) << whole.error().describe();
  std::istringstream in(text);
  StreamLines lines(in);
  std::vector<core::RawSample> streamed;
  const auto recording = import_lines(lines, format, interval_ns, collect_into(streamed));
  ASSERT_TRUE(recording) << recording.error().describe();
  ASSERT_EQ(streamed.size(), whole->samples.size());
  std::vector<core::RawSample> a = whole->samples;
  auto by_key = [](const core::RawSample& x, const core::RawSample& y) { return key(x) < key(y); };
  std::stable_sort(a.begin(), a.end(), by_key);
  std::stable_sort(streamed.begin(), streamed.end(), by_key);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(key(streamed[i]), key(a[i])) << i;
    for (std::size_t m = 0; m < core::kMetricCount; ++m) {
      const double x = a[i].values[m];
      const double y = streamed[i].values[m];
      EXPECT_TRUE((std::isnan(x) && std::isnan(y)) || x == y) << i << " metric " << m;
    }
  }
  EXPECT_EQ(recording->devices.size(), whole->devices.size());
  EXPECT_EQ(recording->synthetic, whole->synthetic);
  EXPECT_EQ(recording->relative_times, whole->relative_times);
  EXPECT_EQ(recording->unmapped, whole->unmapped);
}

TEST(StreamingImport, every_line_format_streams_the_samples_of_the_whole_text) {
  expect_same_samples(test_data_text("synthetic/dcgm-exporter/synthetic-timestamped.prom"),
                      ImportFormat::DcgmExporter, kS);
  expect_same_samples(test_data_text("real/dcgm-exporter/titan-v-issue58.prom"), ImportFormat::DcgmExporter,
                      30 * kS);
  expect_same_samples(test_data_text("real/dcgmi-dmon/dcgm-issue244-8gpu.txt"), ImportFormat::DcgmiDmon, kS);
  expect_same_samples(test_data_text("synthetic/nvidia-smi-dmon/synthetic-date-time.txt"),
                      ImportFormat::NvidiaSmiDmon, kS);
  expect_same_samples(test_data_text("real/nvidia-smi-dmon/leimao-gpm-1-2-13.txt"),
                      ImportFormat::NvidiaSmiDmon, kS);
}

TEST(StreamingImport, scrapes_out_of_time_order_are_refused_with_their_line) {
  const std::string log =
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 1735689601000\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 6 1735689602000\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 7 1735689601000\n";
  const auto r = import_text(log, ImportFormat::DcgmExporter, kS);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(r.error().message,
            "line 3: timestamp 1735689601000 ms is not after the previous scrape's (1735689602000 ms)");
  // An error inside a later scrape names its line in the file, not in the scrape.
  const auto far =
      import_text(log.substr(0, log.size() / 3 * 2) + "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 9300000000000\n",
                  ImportFormat::DcgmExporter, kS);
  ASSERT_FALSE(far);
  EXPECT_TRUE(far.error().message.starts_with("line 3: timestamp 9300000000000 ms")) << far.error().message;
}

TEST(StreamLines, splits_as_the_text_does_across_blocks_and_bounds_a_line) {
  const std::string long_line(StreamLines::kReadBlockBytes + 100, 'x');  // crosses a block edge
  std::istringstream in("a\r\n" + long_line + "\n\nlast");
  StreamLines lines(in);
  std::vector<std::string> got;
  for (;;) {
    auto line = lines.next();
    ASSERT_TRUE(line);
    if (!*line) break;
    got.emplace_back(**line);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"a", long_line, "", "last"}));
  EXPECT_EQ(lines.line_number(), 4u);

  std::istringstream endless("ok\n" + std::string(kMaxLineBytes + 1, 'y'));
  StreamLines bounded(endless);
  ASSERT_TRUE(bounded.next());
  const auto over = bounded.next();
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(over.error().message, "line 2: longer than 1 MiB");

  TextLines text("a\r\nb\n");
  EXPECT_EQ(**text.next(), "a");
  EXPECT_EQ(**text.next(), "b");
  EXPECT_FALSE(*text.next());
}

TEST(SpanFromPrevious, streams_the_spans_of_span_from_previous) {
  std::vector<core::RawSample> s(6);
  const std::uint32_t devices[] = {0, 1, 0, 0, 1, 2};
  const std::int64_t ends[] = {10, 10, 12, 12, 15, 40};
  for (std::size_t i = 0; i < s.size(); ++i) {
    s[i].device_index = devices[i];
    s[i].t_end_ns = ends[i];
  }
  Recording recording;
  recording.samples = s;
  ASSERT_TRUE(span_from_previous(recording, 7));
  std::vector<core::RawSample> whole = recording.samples;
  std::vector<core::RawSample> streamed;
  ImportTally tally;
  SpanFromPrevious spans(7, collect_into(streamed), tally);
  for (const auto& sample : s) ASSERT_TRUE(spans.add(sample));
  EXPECT_EQ(streamed.size(), 4u) << "devices 0 and 1: their first two each; device 2 waits";
  ASSERT_TRUE(spans.finish());
  EXPECT_EQ(tally.repeated_rows, 1u);
  EXPECT_EQ(recording.tally.repeated_rows, 1u);
  ASSERT_EQ(streamed.size(), whole.size());
  auto by_key = [](const core::RawSample& x, const core::RawSample& y) { return key(x) < key(y); };
  std::sort(whole.begin(), whole.end(), by_key);
  std::sort(streamed.begin(), streamed.end(), by_key);
  for (std::size_t i = 0; i < whole.size(); ++i) EXPECT_EQ(key(streamed[i]), key(whole[i])) << i;
}

TEST(SpanFromPrevious, a_time_that_goes_back_stops_the_stream_as_span_from_previous_does) {
  std::vector<core::RawSample> streamed;
  ImportTally tally;
  SpanFromPrevious spans(7, collect_into(streamed), tally);
  core::RawSample sample;
  for (const std::int64_t end : {10, 20, 15}) {
    sample.t_end_ns = end;
    auto added = spans.add(sample);
    if (end != 15) {
      ASSERT_TRUE(added);
      continue;
    }
    ASSERT_FALSE(added);
    EXPECT_EQ(added.error().code, core::ErrorCode::DataLoss);
    EXPECT_NE(added.error().message.find("row 3"), std::string::npos) << added.error().message;
  }
}

}  // namespace
}  // namespace solscope::imports
