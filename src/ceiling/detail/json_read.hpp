// JSON helpers shared by the GPU spec and model config parsers: parsing with a located error, and typed field
// reads that name the file and the field when a value has the wrong type or range.
//
// Internal to src/ceiling; nlohmann::json is included here and never from a public header.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.hpp"

namespace solscope::ceiling::detail {

using Json = nlohmann::json;

/// `value` as compact JSON text for a message; a string that is not valid UTF-8 is written with U+FFFD (as
/// wire::json_text does), never thrown.
[[nodiscard]] auto value_text(const Json& value) -> std::string;

/// Parses `text` as JSON. Errors: InvalidArgument "<context>: invalid JSON at line L, column C: <reason>",
/// where `context` names the object and file ("model config /m/config.json").
[[nodiscard]] auto parse_json(std::string_view text, std::string_view context) -> core::Result<Json>;

/// Typed, optional reads of the fields of one JSON object. Each read takes a list of key spellings (aliases)
/// and uses the first key present whose value is not null. A value of the wrong type is an InvalidArgument
/// error naming `context` and the key; an absent key (or an explicit null) is nullopt.
class FieldReader {
 public:
  /// `object` must outlive the reader; `context` prefixes every message ("model config /m/config.json").
  FieldReader(const Json& object, std::string context);

  /// A number (integer or floating point).
  [[nodiscard]] auto number(std::initializer_list<std::string_view> keys) const
      -> core::Result<std::optional<double>>;
  /// An integer; a floating-point value must be integral (4096.0 is accepted).
  [[nodiscard]] auto integer(std::initializer_list<std::string_view> keys) const
      -> core::Result<std::optional<std::int64_t>>;
  /// A boolean.
  [[nodiscard]] auto boolean(std::initializer_list<std::string_view> keys) const
      -> core::Result<std::optional<bool>>;
  /// A string.
  [[nodiscard]] auto string(std::initializer_list<std::string_view> keys) const
      -> core::Result<std::optional<std::string>>;
  /// An integer in [min, max]; absent is an error that lists every spelling tried.
  [[nodiscard]] auto required_integer(std::initializer_list<std::string_view> keys, std::int64_t min,
                                      std::int64_t max) const -> core::Result<std::int64_t>;
  /// An optional integer in [min, max].
  [[nodiscard]] auto ranged_integer(std::initializer_list<std::string_view> keys, std::int64_t min,
                                    std::int64_t max) const -> core::Result<std::optional<std::int64_t>>;
  /// A number in [min, max]; absent is an error.
  [[nodiscard]] auto required_number(std::initializer_list<std::string_view> keys, double min,
                                     double max) const -> core::Result<double>;
  /// The first present, non-null value among `keys`, or nullptr.
  [[nodiscard]] auto find(std::initializer_list<std::string_view> keys) const -> const Json*;
  /// The context given at construction.
  [[nodiscard]] auto context() const -> const std::string& { return context_; }

 private:
  [[nodiscard]] auto key_of(std::initializer_list<std::string_view> keys) const -> std::string_view;
  [[nodiscard]] auto type_error(std::string_view key, std::string_view wanted) const -> core::Error;

  const Json& object_;
  std::string context_;
};

}  // namespace solscope::ceiling::detail
