// The never-below rule (docs/design/ceiling-model.md section 7.1): on every check row of tests/data/measured/
// the attainable ceiling is at least what a real engine measured (output tokens/s per GPU), and its
// tensor-pipe activity at least the tensor SOL a counter read; and it is not uselessly high (at most
// kMaxUsefulRatio times the measurement). Each test prints its table of rows (id, measured, ceiling, ratio)
// and the median and range of the ratios, which the design doc quotes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ceiling/capacity.hpp"
#include "ceiling/measured_rows.hpp"
#include "ceiling/serving.hpp"
#include "ceiling/test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::fixture_arch;
using testing::kMeasuredCountersFile;
using testing::kMeasuredServingFile;
using testing::measured_path;
using testing::MeasuredRow;
using testing::read_measured_rows;

/// A ceiling more than this many times the measurement says nothing useful (issue 22 item 3).
constexpr double kMaxUsefulRatio = 2.0;

/// The rows of one file; fails the test when the file does not read.
auto rows_of(std::string_view file) -> std::vector<MeasuredRow> {
  auto rows = read_measured_rows(measured_path(file));
  EXPECT_TRUE(rows.has_value()) << (rows ? "" : rows.error().describe());
  return rows ? *rows : std::vector<MeasuredRow>{};
}

/// A dtype the model can be told to use (`--dtype`, `--kv-dtype`), or nullopt (the checkpoint decides).
auto storage_dtype(const std::string& name) -> std::optional<Dtype> {
  const auto d = dtype_from_string(name);
  return d && is_storage_dtype(*d) ? d : std::nullopt;
}

/// The layout and dtypes of a row: weights and GEMM math from the row when weights and activations share a
/// storage dtype (FP8 W8A8), else from the checkpoint (e.g. NVFP4 weights with BF16 activations).
auto workload_of(const MeasuredRow& row) -> Workload {
  Workload w;
  w.tensor_parallel = row.tp;
  w.expert_parallel = row.ep;
  if (row.weight_dtype == row.activation_dtype) w.dtype = storage_dtype(row.weight_dtype);
  w.kv_dtype = storage_dtype(row.kv_dtype);
  return w;
}

/// The ceiling of one row: at its concurrency, or best_concurrency()'s pick for a maximum-throughput run.
struct RowCeiling {
  std::int64_t concurrency = 0;
  ServeCeiling serve;
  std::string error;  ///< empty when computed
};

auto ceiling_of(const MeasuredRow& row) -> RowCeiling {
  const auto gpu = find_gpu(builtin_db(), row.gpu);
  if (!gpu) return {.error = "unknown GPU '" + row.gpu + "'"};
  const ModelArch arch = fixture_arch(row.model);
  const Workload base = workload_of(row);
  ServeTraffic t{.input_tokens = row.isl,
                 .output_tokens = row.osl,
                 .concurrency = row.concurrency.value_or(1),
                 .max_batched_tokens = row.max_batched_tokens};
  if (row.concurrency) {
    auto s = evaluate_serving(builtin_db(), **gpu, arch, base, t);
    if (!s) return {.error = s.error().describe()};
    return {.concurrency = *row.concurrency, .serve = std::move(*s)};
  }
  auto best = best_concurrency(builtin_db(), **gpu, arch, base, t);
  if (!best) return {.error = best.error().describe()};
  return {.concurrency = best->concurrency, .serve = std::move(best->ceiling)};
}

/// Median, smallest and largest of `values` (not empty).
struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
};

auto spread_of(std::vector<double> values) -> Spread {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {median, values.front(), values.back()};
}

TEST(MeasuredRows, FilesReadAndNameTheirSources) {
  const auto serving = rows_of(kMeasuredServingFile);
  const auto counters = rows_of(kMeasuredCountersFile);
  EXPECT_EQ(serving.size(), 45u);  // 40 TensorRT-LLM 1.0 runs, 5 vLLM 0.21.0 runs (README)
  EXPECT_EQ(counters.size(), 5u);
  std::ifstream readme(measured_path("README.md"));
  std::ostringstream text;
  text << readme.rdbuf();
  for (const auto* rows : {&serving, &counters}) {
    for (const MeasuredRow& r : *rows) {
      EXPECT_NE(text.str().find("`" + r.source + "`"), std::string::npos) << r.id << ": source " << r.source;
      EXPECT_TRUE(find_gpu(builtin_db(), r.gpu).has_value()) << r.id << ": GPU " << r.gpu;
      EXPECT_TRUE(std::filesystem::exists(testing::fixture_path(r.model))) << r.id << ": model " << r.model;
    }
  }
  for (const MeasuredRow& r : counters) EXPECT_EQ(r.metric, testing::kMetricTensorSol) << r.id;
}

TEST(MeasuredRows, BadLineIsNamed) {
  const auto path = std::filesystem::temp_directory_path() / "solscope_measured_bad.jsonl";
  std::ofstream(path) << "\n{\"id\": \"x\", \"engine\": \"vllm\"}\n";
  auto rows = read_measured_rows(path.string());
  std::filesystem::remove(path);
  ASSERT_FALSE(rows.has_value());
  EXPECT_EQ(rows.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_NE(rows.error().message.find(":2: field 'engine_version'"), std::string::npos)
      << rows.error().describe();
}

// Every published serving run: the ceiling's output tokens/s per GPU is at least the measured figure and at
// most kMaxUsefulRatio times it.
TEST(MeasuredServing, CeilingNeverBelowAndNotUseless) {
  std::vector<double> ratios;
  std::printf("%-34s %6s %11s %11s %7s\n", "row", "conc", "measured", "ceiling", "ratio");
  for (const MeasuredRow& row : rows_of(kMeasuredServingFile)) {
    const RowCeiling c = ceiling_of(row);
    ASSERT_TRUE(c.error.empty()) << row.id << ": " << c.error;
    const double measured = testing::measured_tokens_per_s_per_gpu(row);
    const double ceiling = output_tokens_per_s_per_gpu(c.serve);
    const double ratio = ceiling / measured;
    ratios.push_back(ratio);
    std::printf("%-34s %6lld %11.1f %11.1f %7.3f\n", row.id.c_str(), static_cast<long long>(c.concurrency),
                measured, ceiling, ratio);
    EXPECT_TRUE(c.serve.fits) << row.id << ": the ceiling's concurrency " << c.concurrency << " does not fit";
    EXPECT_GE(ceiling, measured) << std::fixed << std::setprecision(3) << row.id << ": ceiling " << ceiling
                                 << " output tokens/s per GPU is below the " << measured
                                 << " measured (ratio " << ratio << ")";
    EXPECT_LE(ratio, kMaxUsefulRatio)
        << std::fixed << std::setprecision(3) << row.id << ": ceiling " << ceiling << " is " << ratio
        << " times the measured " << measured << " output tokens/s per GPU";
  }
  ASSERT_FALSE(ratios.empty());
  const Spread s = spread_of(ratios);
  std::printf("ceiling / measured over %zu rows: median %.3f, range %.3f-%.3f\n", ratios.size(), s.median,
              s.min, s.max);
}

// Every measured tensor-pipe reading: the attainable activity at the row's concurrency is at least the
// counter's figure, and at most kMaxUsefulRatio times it.
TEST(MeasuredCounters, ActivityNeverBelowTensorSol) {
  std::vector<double> ratios;
  std::printf("%-34s %6s %9s %9s %7s\n", "row", "conc", "measured", "activity", "ratio");
  for (const MeasuredRow& row : rows_of(kMeasuredCountersFile)) {
    ASSERT_TRUE(row.concurrency.has_value()) << row.id << ": a counter row needs its concurrency";
    const RowCeiling c = ceiling_of(row);
    ASSERT_TRUE(c.error.empty()) << row.id << ": " << c.error;
    const double activity = c.serve.activity_compute_sol_pct;
    const double ratio = activity / row.value;
    ratios.push_back(ratio);
    std::printf("%-34s %6lld %8.1f%% %8.1f%% %7.3f\n", row.id.c_str(), static_cast<long long>(c.concurrency),
                row.value, activity, ratio);
    EXPECT_GE(activity, row.value) << std::fixed << std::setprecision(3) << row.id << ": attainable activity "
                                   << activity << "% is below the measured tensor SOL " << row.value << "%";
    EXPECT_LE(ratio, kMaxUsefulRatio)
        << std::fixed << std::setprecision(3) << row.id << ": attainable activity " << activity << "% is "
        << ratio << " times the measured " << row.value << "%";
  }
  ASSERT_FALSE(ratios.empty());
  const Spread s = spread_of(ratios);
  std::printf("activity / measured over %zu rows: median %.3f, range %.3f-%.3f\n", ratios.size(), s.median,
              s.min, s.max);
}

}  // namespace
}  // namespace solscope::ceiling
