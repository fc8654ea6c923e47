// The resource that limits a modelled step, shared by the ceiling model (ceiling::Ceiling::limiter) and the
// live samples that carry its attainable SOL (RawSample::attainable_limiter), so that every view and the API
// spell it the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/enum_table.hpp"

namespace solscope::core {

/// The resource a kernel's modelled time is attributed to: t = t0 + max(compute, memory) per kernel
/// (docs/design/ceiling-model.md 2.5), so t0 goes to Overhead and the larger of the two to Compute or Memory;
/// all-reduces and other collectives go to Interconnect. kCount doubles as "unknown" in a sample.
enum class Limiter : std::uint8_t { Compute, Memory, Overhead, Interconnect, kCount };
inline constexpr std::size_t kLimiterCount = static_cast<std::size_t>(Limiter::kCount);

/// The names of the limiters in JSON and reports; "unknown" for kCount or any other value.
inline constexpr EnumNames<Limiter> kLimiterNames({"compute", "memory", "kernel_overhead", "interconnect"},
                                                  "unknown");

/// What each limiter means, for people; "unknown" for kCount or any other value.
inline constexpr EnumNames<Limiter> kLimiterTexts({"compute (GEMM and attention math)", "memory bandwidth",
                                                   "kernel overhead (fixed time per kernel)",
                                                   "interconnect (TP all-reduce)"},
                                                  "unknown");

/// "compute", "memory", "kernel_overhead", "interconnect".
[[nodiscard]] constexpr auto to_string(Limiter limiter) -> std::string_view {
  return kLimiterNames(limiter);
}

/// "compute (GEMM and attention math)", "memory bandwidth", "kernel overhead (fixed time per kernel)",
/// "interconnect (TP all-reduce)".
[[nodiscard]] constexpr auto limiter_text(Limiter limiter) -> std::string_view {
  return kLimiterTexts(limiter);
}

/// Inverse of to_string (case-sensitive); nullopt for anything else ("unknown" included).
[[nodiscard]] constexpr auto limiter_from_string(std::string_view name) -> std::optional<Limiter> {
  for (std::size_t i = 0; i < kLimiterCount; ++i) {
    if (name == kLimiterNames(static_cast<Limiter>(i))) return static_cast<Limiter>(i);
  }
  return std::nullopt;
}

}  // namespace solscope::core
