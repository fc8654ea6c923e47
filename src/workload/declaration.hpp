// Workloads declared by hand in the TOML config file, for GPUs where discovery cannot work (an engine
// solscope does not know, a training job, a server with an API key):
//
//   [[workload]]
//   gpus = [0, 1]                 # NVML indices, required, 0-1023 each
//   model = "meta-llama/Llama-3.1-8B-Instruct"   # local path or Hugging Face id, required
//   engine = "vllm"               # vllm | sglang | tgi; optional
//   tp = 2                        # tensor-parallel size, 1-1024; default: the number of GPUs
//   phase = "decode"              # prefill | decode | train; default decode
//   batch = 32                    # requests per step, 1-1,000,000; default 1
//   context = 2048                # cached tokens per request, 0-100,000,000; default 0
//   prompt = 512                  # new tokens per request, 0-100,000,000; >= 1 for prefill and train
//
// Other top-level tables and keys of the file are ignored, so the entries can live in solscope's main config.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "workload/detail/engine_cmdline.hpp"
#include "workload/detail/live_shape.hpp"

namespace solscope::workload {

/// One `[[workload]]` entry.
struct WorkloadDeclaration {
  std::vector<std::uint32_t> gpus;       ///< NVML indices, sorted, unique, not empty
  std::string model;                     ///< local path or Hugging Face id
  EngineKind engine = EngineKind::None;  ///< None when not given
  int tensor_parallel = 1;               ///< 1-1024
  WorkloadShape shape;
  int line = 0;  ///< line of the `[[workload]]` header, 1-based
};

/// Parses the `[[workload]]` entries of a TOML text (toml++). `source_name` names the text in messages (a
/// file path). Errors: InvalidArgument "<source>:<line>: <what is wrong>" for a TOML syntax error, a key of
/// the wrong type or out of range, an unknown key inside an entry (with the known keys in the hint), a
/// missing `gpus` or `model`, and a GPU declared by two entries.
[[nodiscard]] auto parse_workload_declarations(std::string_view toml_text, std::string_view source_name)
    -> core::Result<std::vector<WorkloadDeclaration>>;

/// The declaration that covers `gpu_index`, or nullptr.
[[nodiscard]] auto find_declaration(const std::vector<WorkloadDeclaration>& declarations,
                                    std::uint32_t gpu_index) -> const WorkloadDeclaration*;

}  // namespace solscope::workload
