// The text of `solscope profile` (private to the command): the daemon's pause state, from the document of
// GET /api/v1/profiling (docs/http-api.md), for people.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace solscope::app {

/// What `solscope profile status` prints: who paused PM sampling, since and until when (with the time
/// left), on which GPUs, the policy, each GPU's state with its reason, and the profilers the daemon saw.
/// Fields absent from `status` read as unknown (an older or newer daemon); text from the daemon is shown
/// with control characters as '?'.
[[nodiscard]] auto render_profiling_status(const nlohmann::json& status) -> std::string;

/// Text from the daemon as a terminal may show it: control characters (escape sequences) as '?'.
[[nodiscard]] auto terminal_safe(std::string text) -> std::string;

/// A time span for people, to the second: "45s", "9m 58s", "2h 0m 5s"; "0s" for 0 or less.
[[nodiscard]] auto span_text(std::int64_t ns) -> std::string;

}  // namespace solscope::app
