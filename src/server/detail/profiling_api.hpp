// The PM pause endpoints of `solscope serve` (docs/http-api.md "/api/v1/profiling"): the strict reading of
// the bodies of POST /api/v1/profiling/pause and /resume, and the status document of GET /api/v1/profiling.
// Pure functions of a core::PmYieldBoard and the times they are given; no HTTP here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/pm_yield.hpp"
#include "core/result.hpp"

namespace solscope::server {

/// Longest `by` text a pause accepts (bytes of UTF-8): a "user@host" or a ticket reference, not a letter.
inline constexpr std::size_t kMaxPauseByBytes = 200;
/// Most device indices one pause names.
inline constexpr std::size_t kMaxPauseDevices = 1024;

/// Reads the body of POST /api/v1/profiling/pause: a JSON object with the optional fields `for_s` (a number
/// of seconds, 1 to 86400 (core::kMaxPmPauseNs); default core::kDefaultPmPauseNs), `devices` (a non-empty
/// array of device indices, integers 0 to 2^32-1; default every device) and `by` (text of 1 to
/// kMaxPauseByBytes bytes; default `client`, the client's address). An empty body reads as {}. `known`: the
/// daemon's device indices; a device not among them is refused (unless `known` is empty: not checked).
/// Returns the pause from `now_ns` (Unix-epoch ns) to now_ns + for_s, its devices sorted without repeats.
/// Errors: InvalidArgument (HTTP 400) naming the field: "the body is not JSON: ...", "the body must be a
/// JSON object", "unknown field 'x'", "field for_s must be a number of seconds from 1 to 86400", "field
/// devices must be a non-empty array of device indices", "field devices: no GPU 7 here", "field by must be
/// text of 1 to 200 bytes".
[[nodiscard]] auto parse_pause_request(std::string_view body, std::string_view client, std::int64_t now_ns,
                                       const std::vector<std::uint32_t>& known)
    -> core::Result<core::ManualPause>;

/// Reads the body of POST /api/v1/profiling/resume: empty or an empty JSON object ({}). Errors:
/// InvalidArgument (HTTP 400) "the body is not JSON: ...", "the body must be a JSON object", "unknown field
/// 'x'".
[[nodiscard]] auto parse_resume_request(std::string_view body) -> core::Result<void>;

/// The body of GET /api/v1/profiling (and of the writes' answers): {"policy", "now" and "now_ns", "manual"
/// (null, or {"by", "since", "since_ns", "until", "until_ns", "devices"}: times as RFC 3339 UTC text and
/// Unix-epoch ns, devices [] = every device), "devices" (per index of `devices`: {"index", "paused",
/// "reason", "detail", "until", "until_ns"}, until null unless a manual pause ends then), "profilers" (the
/// watch's last scan: {"reason", "what", "devices"}), and "resumed" when `resumed` is given (the answer of
/// /resume: whether a pause was active)}. Compact JSON.
[[nodiscard]] auto profiling_status_json(const core::PmYieldBoard& board,
                                         const std::vector<std::uint32_t>& devices, std::int64_t now_ns,
                                         std::optional<bool> resumed = std::nullopt) -> std::string;

/// `unix_ns` as RFC 3339 UTC text to the second: "2026-11-27T03:40:00Z" (sub-second part dropped; before
/// 1970 or past year 9999: "").
[[nodiscard]] auto rfc3339_utc(std::int64_t unix_ns) -> std::string;

}  // namespace solscope::server
