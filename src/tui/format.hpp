// Number formatting of the terminal view: fixed widths, "n/a" for unknown (NaN) values, no locale.
#pragma once

#include <cstdint>
#include <string>

namespace solscope::tui {

/// "64.2%" (clamped to [0, 100] for display by core::clamp_pct: values slightly over 100 from counter skew
/// are kept raw in core; `decimals` after the point) or "n/a".
[[nodiscard]] auto format_pct(double pct, int decimals = 1) -> std::string;
/// `value` with `decimals` digits and a space and `unit` ("1755 MHz"), or "n/a".
[[nodiscard]] auto format_value(double value, int decimals, const char* unit) -> std::string;
/// `value` with `decimals` digits after the point ("512"), or "n/a".
[[nodiscard]] auto format_number(double value, int decimals) -> std::string;
/// Bytes as GiB with one decimal, without unit ("61.2"); "n/a" when NaN or 0 (unknown).
[[nodiscard]] auto format_gib(double bytes) -> std::string;
/// A rate in bytes/s with an SI prefix: "812 MB/s", "3.35 TB/s"; "n/a" when NaN.
[[nodiscard]] auto format_rate(double bytes_per_s) -> std::string;
/// A duration in seconds: "125.0 ms" below 1 s, "1.25 s" from 1 s on (negative values as they are); "n/a"
/// when NaN. For iteration periods and their jitter.
[[nodiscard]] auto format_seconds(double seconds) -> std::string;
/// Wall-clock time of day in UTC of a Unix-epoch time in ns: "22:13:31".
[[nodiscard]] auto format_utc_time(std::int64_t t_ns) -> std::string;
/// A span in ns as the largest whole unit that fits: "30s", "1m", "15m", "1h"; with a minus sign when < 0.
[[nodiscard]] auto format_span(std::int64_t span_ns) -> std::string;
/// A duration as "m:ss" or "h:mm:ss" (negative values count as 0).
[[nodiscard]] auto format_clock(std::int64_t duration_ns) -> std::string;
/// `text` cut to `width` code points, the last one replaced by "…" ("~" with `ascii`) when cut.
[[nodiscard]] auto fit(const std::string& text, int width, bool ascii = false) -> std::string;
/// `text` padded with spaces (or cut, see fit) to exactly `width` code points, left-aligned.
[[nodiscard]] auto pad_right(const std::string& text, int width, bool ascii = false) -> std::string;
/// `text` padded on the left to `width` code points (never cut).
[[nodiscard]] auto pad_left(const std::string& text, int width) -> std::string;
/// Number of code points in UTF-8 `text` (each is one cell in this view).
[[nodiscard]] auto text_width(const std::string& text) -> int;

}  // namespace solscope::tui
