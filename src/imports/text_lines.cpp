#include "imports/detail/text_lines.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace solscope::imports {

auto split_words(std::string_view line) -> std::vector<std::string_view> {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

auto parse_finite(std::string_view word) -> std::optional<double> {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
  if (word.empty() || ec != std::errc() || end != word.data() + word.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

auto is_blank_value(std::string_view word) -> bool {
  if (word.size() >= 2 && (word[0] == 'N' || word[0] == 'n') && word[1] == '/') return true;
  return word == "-" || word == "--" || word == "\xe2\x80\x93";
}

auto quoted(std::string_view word) -> std::string {
  std::string out = "'";
  for (const char c : word.substr(0, 40)) out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
  if (word.size() > 40) out += "...";
  return out + "'";
}

}  // namespace solscope::imports
