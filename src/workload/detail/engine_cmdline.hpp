// Serving-engine detection from a process's command line (and, for TGI, its environment).
//
// Recognised launches (each engine's documented CLI):
//  - vLLM: `vllm serve MODEL ...`, `python -m vllm.entrypoints.openai.api_server --model MODEL ...`; options
//    `--model`, `--tensor-parallel-size`/`-tp`, `--pipeline-parallel-size`/`-pp`,
//    `--data-parallel-size`/`-dp`, the flag `--enable-expert-parallel`/`-ep` (EP size = TP x DP, "Expert
//    Parallel Deployment" in the vLLM docs),
//    `--port`, `--host`, `--max-model-len`, `--served-model-name` (docs.vllm.ai, "vllm serve" CLI reference).
//    Its engine-core and worker processes retitle themselves `VLLM::EngineCore`, `VLLM::Worker_TP0...`
//    (setproctitle; vLLM PRs #21445, #21780, #22205): they are recognised as vLLM but are not entry points.
//  - SGLang: `python -m sglang.launch_server --model-path MODEL ...` or `sglang serve ...` (alias `--model`),
//  `--tp-size`/`--tensor-parallel-size`/`--tp`,
//    `--dp-size`/`--data-parallel-size`/`--dp`, `--ep-size`/`--expert-parallel-size`/`--ep`,
//    `--pp-size`/`--pipeline-parallel-size`/`--pp`, the flag `--enable-dp-attention`, `--port`, `--host`,
//    `--context-length`, `--served-model-name` (docs.sglang.io, "Server arguments"); scheduler processes are
//    titled `sglang::scheduler...`.
//  - TGI: `text-generation-launcher --model-id MODEL --num-shard N --port P --hostname H --max-total-tokens
//  T`,
//    each also read from the environment variables MODEL_ID, NUM_SHARD, PORT, MAX_TOTAL_TOKENS (flags win, as
//    in clap); shards run `text-generation-server serve MODEL ...`
//    (huggingface.co/docs/text-generation-inference, "Text-generation-launcher arguments").
// Option syntax: `--name value` and `--name=value`; underscores in option names count as dashes (vLLM's
// FlexibleArgumentParser accepts both); the last occurrence wins (argparse and clap semantics).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace solscope::workload {

/// Largest parallel degree (TP, DP, EP, PP) and context length (tokens) taken from an engine's command line,
/// its answers or a workload declaration; a larger value is ignored (or refused in a declaration).
inline constexpr std::int64_t kMaxParallel = 1024;
inline constexpr std::int64_t kMaxContextTokens = 1'000'000'000;

/// The serving engines solscope can discover.
enum class EngineKind : std::uint8_t { None, Vllm, Sglang, Tgi };

/// Display name: "vLLM", "SGLang", "TGI", or "none".
[[nodiscard]] auto to_string(EngineKind engine) -> std::string_view;

/// Case-insensitive "vllm", "sglang" or "tgi"; nullopt for anything else.
[[nodiscard]] auto engine_from_string(std::string_view name) -> std::optional<EngineKind>;

/// The HTTP port an engine listens on when none is given:
///  - vLLM 8000: `--port` default in the `vllm serve` CLI reference (docs.vllm.ai);
///  - SGLang 30000: `port` default in SGLang's server arguments (docs.sglang.io, server_args.py);
///  - TGI 3000: `--port` default of text-generation-launcher (TGI docs, launcher arguments; note that TGI's
///    official container image sets PORT=80 in its environment, which detect_engine() reads when it can).
/// 0 for EngineKind::None.
[[nodiscard]] auto default_port(EngineKind engine) -> std::uint16_t;

/// What a command line says about a serving engine. Unknown fields are empty, 0 or nullopt.
struct EngineLaunch {
  EngineKind engine = EngineKind::None;
  /// The command is the engine's launcher or API server (which holds the options and the HTTP port), not one
  /// of its retitled workers or shards.
  bool entry_point = false;
  std::string model;                  ///< as given: a local path or a Hugging Face id
  std::string served_model_name;      ///< alias clients use (vLLM/SGLang `--served-model-name`)
  std::string host;                   ///< bind address as given; empty means the engine's default
  std::optional<std::uint16_t> port;  ///< as given by a flag or environment variable
  int tensor_parallel = 0;            ///< 1-1024 when given, else 0
  int pipeline_parallel = 0;          ///< 1-1024 when given, else 0
  int data_parallel = 0;              ///< 1-1024 when given, else 0
  /// Expert-parallel degree of the MoE layers as the engine sets it: vLLM `--enable-expert-parallel` gives
  /// TP x DP; SGLang `--ep-size`. 0 when not given (no EP).
  int expert_parallel = 0;
  /// Attention runs data-parallel across the DP ranks while the MoE layers span them all: vLLM with
  /// `--enable-expert-parallel` and DP > 1; SGLang `--enable-dp-attention`.
  bool dp_attention = false;
  std::int64_t max_model_len = 0;  ///< tokens, when given (vLLM --max-model-len, SGLang --context-length,
                                   ///< TGI --max-total-tokens)
  /// Token budget per engine step, when given: vLLM --max-num-batched-tokens, SGLang --chunked-prefill-size
  /// (-1, chunking off, leaves it 0), TGI --max-batch-prefill-tokens (env MAX_BATCH_PREFILL_TOKENS).
  std::int64_t max_batched_tokens = 0;
};

/// Recognises an engine in one process's arguments (`args[0]` is the program, possibly an interpreter) and
/// environment ("KEY=VALUE" entries; only TGI reads it). Returns engine None for anything else, such as a
/// plain training script. Malformed numbers leave their field unset.
[[nodiscard]] auto detect_engine(const std::vector<std::string>& args,
                                 const std::vector<std::string>& environ = {}) -> EngineLaunch;

}  // namespace solscope::workload
