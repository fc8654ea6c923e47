#include "net/prometheus_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/prometheus_names.hpp"
#include "core/text.hpp"

namespace solscope::net {
namespace {

using core::is_prometheus_name_char;
using core::is_prometheus_name_start;

/// A cursor over one line.
class LineReader {
 public:
  explicit LineReader(std::string_view line) : line_(line) {}

  void skip_spaces() {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
  }
  [[nodiscard]] auto at_end() const -> bool { return pos_ >= line_.size(); }
  [[nodiscard]] auto peek() const -> char { return at_end() ? '\0' : line_[pos_]; }
  auto consume(char c) -> bool {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  /// A metric name (colons allowed) or label name (no colons); empty when none starts here.
  auto name(bool allow_colon) -> std::string_view {
    const std::size_t start = pos_;
    if (at_end() || !is_prometheus_name_start(line_[pos_], allow_colon)) return {};
    while (!at_end() && is_prometheus_name_char(line_[pos_], allow_colon)) ++pos_;
    return line_.substr(start, pos_ - start);
  }
  /// A quoted label value with `\\`, `\"` and `\n` escapes, after the opening quote; false when unterminated.
  auto quoted(std::string& out) -> bool {
    while (!at_end()) {
      const char c = line_[pos_++];
      if (c == '"') return true;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end()) return false;
      const char e = line_[pos_++];
      out += e == 'n' ? '\n' : e;  // `\\` and `\"` stand for themselves; unknown escapes keep the character
    }
    return false;
  }
  /// The next run of non-space characters.
  auto token() -> std::string_view {
    const std::size_t start = pos_;
    while (!at_end() && line_[pos_] != ' ' && line_[pos_] != '\t') ++pos_;
    return line_.substr(start, pos_ - start);
  }

 private:
  std::string_view line_;
  std::size_t pos_ = 0;
};

auto parse_value(std::string_view text, double& out) -> bool {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

auto parse_labels(LineReader& in, PromSample& out) -> bool {
  while (true) {
    in.skip_spaces();
    if (in.consume('}')) return true;
    const std::string_view key = in.name(false);
    if (key.empty()) return false;
    in.skip_spaces();
    if (!in.consume('=')) return false;
    in.skip_spaces();
    if (!in.consume('"')) return false;
    std::string value;
    if (!in.quoted(value)) return false;
    // Label values are where foreign text enters from a scrape (a GPU's name, UUID, host, pod): made valid
    // UTF-8 here, ill-formed bytes as U+FFFD, as the format requires of them.
    if (!core::is_valid_utf8(value)) value = core::valid_utf8(value);
    out.labels.emplace_back(std::string(key), std::move(value));
    in.skip_spaces();
    if (in.consume(',')) continue;
    if (in.consume('}')) return true;
    return false;
  }
}

auto parse_line(std::string_view line, PromSample& out) -> bool {
  LineReader in(line);
  in.skip_spaces();
  const std::string_view name = in.name(true);
  if (name.empty()) return false;
  out.name = std::string(name);
  in.skip_spaces();
  if (in.consume('{') && !parse_labels(in, out)) return false;
  in.skip_spaces();
  if (!parse_value(in.token(), out.value)) return false;
  in.skip_spaces();
  if (!in.at_end()) {
    const std::string_view stamp = in.token();
    std::int64_t ms = 0;
    const auto [end, ec] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), ms);
    if (ec != std::errc{} || end != stamp.data() + stamp.size() || ms == kNoTimestamp) return false;
    out.timestamp_ms = ms;
  }
  in.skip_spaces();
  return in.at_end();
}

auto is_blank_or_comment(std::string_view line) -> bool {
  const auto first = line.find_first_not_of(" \t\r");
  return first == std::string_view::npos || line[first] == '#';
}

}  // namespace

auto PromSample::label(std::string_view key) const -> const std::string* {
  for (const auto& [k, v] : labels) {
    if (k == key) return &v;
  }
  return nullptr;
}

auto parse_prometheus_text(std::string_view text, std::span<const std::string_view> wanted) -> PromText {
  PromText out;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (is_blank_or_comment(line)) continue;
    PromSample sample;
    sample.line = line_number;
    if (!parse_line(line, sample)) {
      if (out.bad_lines++ == 0) out.first_bad_line = line_number;
      continue;
    }
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), sample.name) != wanted.end()) {
      out.samples.push_back(std::move(sample));
    }
  }
  return out;
}

auto combine_series(std::span<const PromSample> samples, std::string_view name, Combine how) -> double {
  double total = 0;
  double best = -std::numeric_limits<double>::infinity();
  std::size_t count = 0;
  for (const PromSample& s : samples) {
    if (s.name != name || !std::isfinite(s.value)) continue;
    if (const std::string* rank = s.label("tp_rank"); rank != nullptr && *rank != "0") continue;
    total += s.value;
    best = std::max(best, s.value);
    ++count;
  }
  if (count == 0) return std::numeric_limits<double>::quiet_NaN();
  switch (how) {
    case Combine::Sum:
      return total;
    case Combine::Mean:
      return total / static_cast<double>(count);
    case Combine::Max:
      return best;
  }
  return total;
}

auto find_series(std::span<const PromSample> samples, std::string_view name) -> const PromSample* {
  for (const PromSample& s : samples) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace solscope::net
