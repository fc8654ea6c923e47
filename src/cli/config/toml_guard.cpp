#include "cli/config/toml_guard.hpp"

#include <cstddef>

namespace solscope::app::config {
namespace {

enum class Span { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral };

/// True when `quote` starts three times at `i`.
auto triple(std::string_view text, std::size_t i, char quote) -> bool {
  return text.substr(i, 3) == std::string_view(quote == '"' ? "\"\"\"" : "'''");
}

/// Where a multi-line string that closes at `i` ends: after its three quotes and up to two more, which TOML
/// reads as part of the string.
auto after_close(std::string_view text, std::size_t i, char quote) -> std::size_t {
  std::size_t end = i + 3;
  for (int extra = 0; extra < 2 && end < text.size() && text[end] == quote; ++extra) ++end;
  return end;
}

auto is_key_start(char c) -> bool {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '"' || c == '\'';
}

/// True when the '[' at `i` opens a table header (only blanks before it on its line) whose name does not
/// start with a key: "[" or "[[", blanks, then a bare-key character or a quote.
auto bad_table_header(std::string_view text, std::size_t i) -> bool {
  std::size_t start = i;
  while (start > 0 && (text[start - 1] == ' ' || text[start - 1] == '\t')) --start;
  if (start > 0 && text[start - 1] != '\n') return false;  // an array value, not a header
  std::size_t j = i + 1;
  if (j < text.size() && text[j] == '[') ++j;
  while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
  return j >= text.size() || !is_key_start(text[j]);
}

}  // namespace

auto refuse_unsafe_toml(std::string_view text) -> std::optional<TomlGuardRefusal> {
  Span span = Span::Code;
  int line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      if (span != Span::MultiBasic && span != Span::MultiLiteral) span = Span::Code;
      ++i;
      continue;
    }
    switch (span) {
      case Span::Code:
        if (static_cast<unsigned char>(c) >= 0x80) {
          return TomlGuardRefusal{
              line,
              "a character outside ASCII stands outside a string or comment (TOML allows it "
              "only in \"quoted\" values and after #)"};
        }
        if (c == '[' && bad_table_header(text, i)) {
          return TomlGuardRefusal{line, "a table header must name a table: [serve], [record], ..."};
        }
        if (c == '#') span = Span::Comment;
        if (c == '"' || c == '\'') {
          const bool multi = triple(text, i, c);
          span = c == '"' ? (multi ? Span::MultiBasic : Span::Basic)
                          : (multi ? Span::MultiLiteral : Span::Literal);
          i += multi ? 3 : 1;
          continue;
        }
        break;
      case Span::Comment:
        break;
      case Span::Basic:
      case Span::MultiBasic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') {
          i += 2;  // an escaped character, a quote among them
          continue;
        }
        if (c == '"' && span == Span::Basic) span = Span::Code;
        if (c == '"' && span == Span::MultiBasic && triple(text, i, '"')) {
          span = Span::Code;
          i = after_close(text, i, '"');
          continue;
        }
        break;
      case Span::Literal:
        if (c == '\'') span = Span::Code;
        break;
      case Span::MultiLiteral:
        if (c == '\'' && triple(text, i, '\'')) {
          span = Span::Code;
          i = after_close(text, i, '\'');
          continue;
        }
        break;
    }
    ++i;
  }
  return std::nullopt;
}

}  // namespace solscope::app::config
