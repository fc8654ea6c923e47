// The phase of a model step, shared by the ceiling model and workload discovery.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/enum_table.hpp"

namespace solscope::core {

/// What a step does: prefill prompts, decode one token per request, or one training step (forward +
/// backward).
enum class Phase : std::uint8_t { Prefill, Decode, Train };

/// The names of the phases, "unknown" for any other value.
inline constexpr EnumNames<Phase, 3> kPhaseNames({"prefill", "decode", "train"}, "unknown");

/// "prefill", "decode", "train".
[[nodiscard]] constexpr auto to_string(Phase phase) -> std::string_view {
  return kPhaseNames(phase);
}

/// Inverse of to_string (case-sensitive); nullopt for anything else.
[[nodiscard]] constexpr auto phase_from_string(std::string_view name) -> std::optional<Phase> {
  for (Phase p : {Phase::Prefill, Phase::Decode, Phase::Train}) {
    if (name == to_string(p)) return p;
  }
  return std::nullopt;
}

}  // namespace solscope::core
