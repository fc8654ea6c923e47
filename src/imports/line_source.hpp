// Where the text importers of `solscope import` read their input: one line at a time, so that no importer
// holds a whole input (a scrape log of many GB imports in bounded memory: docs/import.md, "Memory").
#pragma once

#include <cstddef>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace solscope::imports {

/// The longest line a text importer reads, in bytes: 1 MiB, far above any line of the formats read (a
/// dcgm-exporter sample line with every label is under 1 KiB).
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

/// A source of lines. Lines are split at '\n', with a '\r' before it removed; text after the last '\n' is
/// a last line.
class LineSource {
 public:
  LineSource() = default;
  LineSource(const LineSource&) = delete;
  auto operator=(const LineSource&) -> LineSource& = delete;
  LineSource(LineSource&&) = delete;
  auto operator=(LineSource&&) -> LineSource& = delete;
  virtual ~LineSource() = default;

  /// The next line; nullopt at the end. The view stays valid until the next call only. Errors: the source's
  /// (a line longer than kMaxLineBytes: DataLoss "line N: longer than 1 MiB ..."; a read error: Unavailable).
  [[nodiscard]] virtual auto next() -> core::Result<std::optional<std::string_view>> = 0;
  /// 1-based number of the line next() returned last; 0 before the first.
  [[nodiscard]] auto line_number() const -> std::size_t { return number_; }

 protected:
  std::size_t number_ = 0;  ///< lines returned so far
};

/// The lines of a text in memory (it must outlive the source).
class TextLines final : public LineSource {
 public:
  explicit TextLines(std::string_view text) : rest_(text) {}
  [[nodiscard]] auto next() -> core::Result<std::optional<std::string_view>> override;

 private:
  std::string_view rest_;
  bool done_ = false;
};

/// The lines of a stream (an opened file), read in blocks of kReadBlockBytes: it holds one block and one
/// line, whatever the stream's length. Bytes of a line that are not valid UTF-8 become U+FFFD
/// (core::valid_utf8), so every name and label an importer takes from it is valid text. The stream must
/// outlive the source.
class StreamLines final : public LineSource {
 public:
  static constexpr std::size_t kReadBlockBytes = std::size_t{64} * 1024;
  explicit StreamLines(std::istream& in) : in_(in), block_(kReadBlockBytes) {}
  [[nodiscard]] auto next() -> core::Result<std::optional<std::string_view>> override;

 private:
  /// Reads the next block; false at the end of the stream. Errors: Unavailable on a read error.
  auto refill() -> core::Result<bool>;

  std::istream& in_;
  std::vector<char> block_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::string line_;
};

}  // namespace solscope::imports
