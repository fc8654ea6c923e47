// A small reader of the Prometheus text exposition format, for the few series of a serving engine's /metrics.
//
// Source: prometheus.io/docs/instrumenting/exposition_formats ("Text-based format"): one sample per line,
// `name{label="value",...} value [timestamp]`; `#` lines are HELP/TYPE comments; label values escape `\\`,
// `\"` and `\n`; values are Go floats including `NaN`, `+Inf` and `-Inf`. Metric names may hold colons
// (vLLM's `vllm:` prefix). Histograms appear as `<name>_bucket`, `<name>_sum` and `<name>_count` series, so
// "histogram sum/count" are plain samples here. Lines that do not parse are counted and skipped, never fatal.
// Label values must be UTF-8; one that is not (a scrape's damaged or foreign bytes) is repaired, not refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace solscope::net {

/// PromSample::timestamp_ms of a line without one.
inline constexpr std::int64_t kNoTimestamp = std::numeric_limits<std::int64_t>::min();

/// One sample line.
struct PromSample {
  std::string name;
  /// In line order, values unescaped and valid UTF-8 (ill-formed bytes become U+FFFD: core::valid_utf8).
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;  ///< may be NaN or +-infinity
  /// The optional timestamp after the value, in ms since the Unix epoch; kNoTimestamp when absent.
  std::int64_t timestamp_ms = kNoTimestamp;
  std::size_t line = 0;  ///< 1-based line number in the text (for messages)

  /// The value of label `key`, or nullptr when the sample has no such label.
  [[nodiscard]] auto label(std::string_view key) const -> const std::string*;
};

/// Samples of one exposition text.
struct PromText {
  std::vector<PromSample> samples;
  std::size_t bad_lines = 0;       ///< non-comment, non-blank lines that did not parse
  std::size_t first_bad_line = 0;  ///< 1-based line number of the first of them; 0 when none
};

/// Parses an exposition text. When `wanted` is not empty, only samples whose name is in it are kept (the
/// others are still checked for syntax). Locale-independent (std::from_chars). Never fails.
[[nodiscard]] auto parse_prometheus_text(std::string_view text, std::span<const std::string_view> wanted = {})
    -> PromText;

/// How to combine the series of one metric name (e.g. one per vLLM engine, SGLang rank or label set).
enum class Combine : std::uint8_t { Sum, Mean, Max };

/// Combines the finite values of every series named `name`; NaN when there is none. Series with a `tp_rank`
/// label other than "0" are skipped (SGLang labels its schedulers by rank; the ranks of one TP group report
/// the same batch, so counting them all would multiply it).
[[nodiscard]] auto combine_series(std::span<const PromSample> samples, std::string_view name, Combine how)
    -> double;

/// The first sample named `name`, or nullptr.
[[nodiscard]] auto find_series(std::span<const PromSample> samples, std::string_view name)
    -> const PromSample*;

}  // namespace solscope::net
