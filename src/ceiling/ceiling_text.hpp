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

/// What a limiting resource means, for people: "memory bandwidth", "kernel overhead (fixed time per kernel)"
/// (core/limiter.hpp, the same words the live views print).
using core::limiter_text;

}  // namespace solscope::ceiling
