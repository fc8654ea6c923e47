// `solscope ceiling`: the attainable SOL of a described workload, from the roofline model of src/ceiling.
//
// The I/O side of the command: reads the model's config.json (a file, or a directory holding one) and an
// optional GPU spec file, resolves the GPU, evaluates one step and prints a readable breakdown or JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <string>

#include "core/result.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace solscope::app {

/// Options of `solscope ceiling` (README "solscope ceiling"). Numbers are validated by run_ceiling, not by
/// CLI11, so that every bad value gets the same message grammar.
struct CeilingArgs {
  std::string gpu;                ///< --gpu: a name from the spec file (or an alias), or "auto"
  std::string model;              ///< --model: a config.json, or a directory holding one
  std::int64_t tp = 1;            ///< --tp: tensor-parallel degree, 1-1024
  std::string phase = "decode";   ///< --phase: prefill, decode or train
  std::int64_t batch = 1;         ///< --batch: requests (decode/prefill) or sequences (train) per step
  std::int64_t context = 0;       ///< --context: tokens already in each request's KV cache
  std::int64_t prompt = 0;        ///< --prompt: new tokens per request (prefill) or sequence length (train)
  std::string dtype = "auto";     ///< --dtype: auto (config.json), bf16, fp16, fp32 or fp8
  std::string kv_dtype = "auto";  ///< --kv-dtype: auto (activation dtype), bf16, fp16, fp32 or fp8
  double sm_clock_mhz =
      std::numeric_limits<double>::quiet_NaN();  ///< --sm-clock-mhz; NaN = tensor-spec clock
  double tokens_per_s =
      std::numeric_limits<double>::quiet_NaN();  ///< --tokens-per-s: measured speed, for MFU
  std::int64_t ep = 1;                           ///< --ep: expert-parallel degree, 1-1024
  bool dp_attention = false;            ///< --dp-attention: attention data-parallel across the EP group
  std::int64_t pp = 1;                  ///< --pp: pipeline stages, 1-256
  std::int64_t pp_microbatches = 0;     ///< --pp-microbatches: 0 = the --pp degree
  std::string gpu_specs;                ///< --gpu-specs: a spec file replacing the built-in one
  bool json = false;                    ///< --json
  bool serve = false;                   ///< --serve: steady-state serving mix instead of one --phase step
  std::int64_t isl = 1024;              ///< --isl: prompt tokens per request (--serve)
  std::int64_t osl = 256;               ///< --osl: generated tokens per request (--serve)
  std::int64_t concurrency = 64;        ///< --concurrency: requests in flight (--serve)
  std::int64_t max_batched_tokens = 0;  ///< --max-batched-tokens: token budget per step; 0 = vLLM's default
  /// --concurrency max (--serve): the concurrency with the most output tokens/s that fits in memory
  /// (ceiling/capacity.hpp); `concurrency` is then unused.
  bool concurrency_max = false;
  /// --max-tpot-ms / --max-ttft-ms (--serve): latency limits of the chosen concurrency, ms; NaN = none.
  /// Either one chooses the concurrency as --concurrency max does, within the limits.
  double max_tpot_ms = std::numeric_limits<double>::quiet_NaN();
  double max_ttft_ms = std::numeric_limits<double>::quiet_NaN();
  std::int64_t sweep_points =
      0;               ///< --sweep [N] (--serve): points of the concurrency sweep, 2-1000; 0 = none
  bool csv = false;    ///< --csv: the sweep's table as CSV (with --sweep)
  std::string html;    ///< --html FILE: the sweep as a self-contained HTML page (with --sweep)
  bool force = false;  ///< --force: replace an existing --html file
  /// For --gpu auto: returns the device name of the GPU to model as NVML reports it (e.g. "NVIDIA H100 80GB
  /// HBM3"). Left empty, --gpu auto fails with "needs a GPU". Set by the caller (the app wires NVML).
  std::function<core::Result<std::string>()> detect_gpu;
};

/// Adds the options above to the `ceiling` subcommand.
void add_ceiling_options(CLI::App& sub, CeilingArgs& args);

/// Runs the command: the breakdown (or JSON with --json, the sweep's table as CSV with --csv) on `out`,
/// errors as "solscope: error: ..." on `err`. Returns 0, 1 (unreadable or invalid file, --html not written),
/// 2 (bad option value: unknown GPU with "did you mean", bad phase, dtype or numbers, capacity options
/// without
/// --serve or --sweep, a bad --html path, no concurrency within the limits or the memory) or 3 (--gpu auto
/// without a GPU) (exit_codes.hpp).
auto run_ceiling(const CeilingArgs& args, std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
