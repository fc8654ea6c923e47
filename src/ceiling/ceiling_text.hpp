// Ceiling figures in words for people: the parallel layout and the limiting resource, as the `ceiling`
// command's report and the live views' attainable-SOL notes print them.
#pragma once

#include <string>
#include <string_view>

#include "ceiling/ceiling.hpp"

namespace solscope::ceiling {

/// The parallel layout for a headline: "TP 2", or with EP, attention DP and PP degrees where above 1
/// ("TP 1, EP 8, attention DP 8").
[[nodiscard]] auto layout_text(const Ceiling& c) -> std::string;

/// One dtype and where it came from, for people: "bf16 (config.json torch_dtype)", "fp8 (quantization_config:
/// fp8, block 128x128)", "fp8 (--kv-dtype)", "bf16 (fallback: A100-SXM4-80GB has no fp8 tensor rate)".
[[nodiscard]] auto dtype_choice_text(const DtypeChoice& choice) -> std::string;

/// The labelled dtype lines of the `ceiling` reports, each "  <label padded to 24>" + dtype_choice_text +
/// "\n": weights, activations, KV cache, GEMM math (the main GEMMs').
[[nodiscard]] auto dtype_lines(const DtypeChoices& dtypes) -> std::string;

/// The dtypes in brief, without their sources, for the live views' notes: "weights nvfp4, activations bf16,
/// KV cache fp8, GEMM math bf16".
[[nodiscard]] auto dtypes_brief(const DtypeChoices& dtypes) -> std::string;

/// What a limiting resource means, for people: "memory bandwidth", "kernel overhead (fixed time per kernel)"
/// (core/limiter.hpp, the same words the live views print).
using core::limiter_text;

}  // namespace solscope::ceiling
