// The check rows of tests/data/measured/ (its README gives every source and field): published end-to-end
// serving measurements and measured counter readings that the attainable ceiling must never fall below
// (docs/design/ceiling-model.md section 7.1). This is the one reader of those files; the tests and any tool
// that needs the rows go through it.
//
// Example:
//   auto rows = read_measured_rows(measured_path("serving.jsonl"));   // rows->front().id, .value, ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace solscope::ceiling::testing {

/// The file of published serving throughputs (one JSON object per line).
inline constexpr std::string_view kMeasuredServingFile = "serving.jsonl";
/// The file of measured tensor-pipe readings on a named serving setup.
inline constexpr std::string_view kMeasuredCountersFile = "counters.jsonl";

/// Metric names a row may carry (the `metric` field).
inline constexpr std::string_view kMetricOutputTotal = "output_tokens_per_s_total";
inline constexpr std::string_view kMetricOutputPerGpu = "output_tokens_per_s_per_gpu";
inline constexpr std::string_view kMetricTensorSol = "tensor_pipe_sol_pct";

/// One measurement and the conditions it was taken under.
struct MeasuredRow {
  std::string id;              ///< unique in its file, e.g. "trtllm-l8b-h100-tp1-128-128"
  std::string engine;          ///< "tensorrt-llm", "vllm", ...
  std::string engine_version;  ///< as the source states it
  std::string model;           ///< folder under tests/data/hf_configs
  std::string gpu;             ///< a name `solscope ceiling --gpu` accepts
  int gpus = 1;                ///< GPUs of the run in all (a multiple of tp)
  int tp = 1;                  ///< tensor-parallel degree
  int ep = 1;                  ///< expert-parallel degree
  std::string weight_dtype;    ///< "fp8", "bf16", "nvfp4", ...
  std::string activation_dtype;
  std::string kv_dtype;
  std::int64_t isl = 1;  ///< prompt tokens per request
  std::int64_t osl = 1;  ///< generated tokens per request
  /// Requests in flight; nullopt = the engine's maximum-throughput run (`"max"` in the file).
  std::optional<std::int64_t> concurrency;
  std::int64_t max_batched_tokens = 0;     ///< token budget per step; 0 = unknown
  bool max_batched_tokens_stated = false;  ///< the source states it (else derived, see the README)
  std::string metric;                      ///< one of the kMetric* names
  double value = 0;                        ///< in the metric's unit
  std::string source;                      ///< source id of the README
};

/// The path of a file in tests/data/measured/.
[[nodiscard]] auto measured_path(std::string_view file) -> std::string;

/// Reads a JSON Lines file of rows; blank lines are skipped. Errors: NotFound for a missing file;
/// InvalidArgument naming the file, line and field for bad JSON, a missing or mistyped field, a
/// concurrency that is neither a number nor "max", an unknown metric, or a duplicate id.
[[nodiscard]] auto read_measured_rows(const std::string& path) -> core::Result<std::vector<MeasuredRow>>;

/// A row's measured output tokens/s per GPU (total over `gpus`, or the per-GPU figure as given); NaN for
/// a counter row.
[[nodiscard]] auto measured_tokens_per_s_per_gpu(const MeasuredRow& row) -> double;

}  // namespace solscope::ceiling::testing
