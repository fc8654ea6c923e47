#include "ceiling/detail/json_read.hpp"

#include <cmath>
#include <utility>

namespace solscope::ceiling::detail {
namespace {

/// The reason part of an nlohmann parse error ("syntax error while parsing value - unexpected '}'; ...").
auto reason_of(std::string_view what) -> std::string_view {
  const auto column = what.find("column ");
  if (column == std::string_view::npos) return what;
  const auto colon = what.find(": ", column);
  if (colon == std::string_view::npos) return what;
  return what.substr(colon + 2);
}

/// A 1-based line and column in a text.
struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};

/// Line and column of the byte at `byte_offset` (0-based; clamped to the text's end).
auto position_of(std::string_view text, std::size_t byte_offset) -> TextPosition {
  TextPosition pos;
  const std::size_t end = byte_offset < text.size() ? byte_offset : text.size();
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

/// "a, b or c" from a list of keys, for messages.
auto join_keys(std::initializer_list<std::string_view> keys) -> std::string {
  std::string out;
  std::size_t i = 0;
  for (std::string_view key : keys) {
    if (i > 0) out += (i + 1 == keys.size()) ? " or " : ", ";
    out.append(1, '\'').append(key).append(1, '\'');
    ++i;
  }
  return out;
}

}  // namespace

auto value_text(const Json& value) -> std::string {
  // The ceiling room may not include wire/json_text.hpp; this is the same call, with the same replacing
  // handler.
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

namespace {

auto short_value(const Json& value) -> std::string {
  std::string text = value_text(value);
  constexpr std::size_t kMaxChars = 40;
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars) + "...";
  return text;
}

}  // namespace

auto parse_json(std::string_view text, std::string_view context) -> core::Result<Json> {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // nlohmann's `byte` is 1-based: the position of the last character read.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    const TextPosition pos = position_of(text, offset);
    return core::fail(core::ErrorCode::InvalidArgument,
                      std::string(context) + ": invalid JSON at line " + std::to_string(pos.line) +
                          ", column " + std::to_string(pos.column) + ": " + std::string(reason_of(e.what())),
                      "fix the file or point at another one");
  } catch (const Json::exception& e) {
    // Not a syntax error, e.g. out_of_range 406 for a number past a double's range (1e400): found by fuzzing,
    // it escaped as an exception and ended the process.
    std::string_view what = e.what();
    if (const auto id_end = what.find("] "); id_end != std::string_view::npos) what.remove_prefix(id_end + 2);
    return core::fail(core::ErrorCode::InvalidArgument,
                      std::string(context) + ": invalid JSON: " + std::string(what),
                      "fix the file or point at another one");
  }
}

FieldReader::FieldReader(const Json& object, std::string context)
    : object_(object), context_(std::move(context)) {}

auto FieldReader::find(std::initializer_list<std::string_view> keys) const -> const Json* {
  if (!object_.is_object()) return nullptr;
  for (std::string_view key : keys) {
    const auto it = object_.find(key);
    if (it != object_.end() && !it->is_null()) return &*it;
  }
  return nullptr;
}

auto FieldReader::key_of(std::initializer_list<std::string_view> keys) const -> std::string_view {
  for (std::string_view key : keys) {
    const auto it = object_.find(key);
    if (it != object_.end() && !it->is_null()) return key;
  }
  return keys.size() > 0 ? *keys.begin() : std::string_view{};
}

auto FieldReader::type_error(std::string_view key, std::string_view wanted) const -> core::Error {
  const Json* value = find({key});
  return core::Error{core::ErrorCode::InvalidArgument,
                     context_ + ": field '" + std::string(key) + "' must be " + std::string(wanted) +
                         ", not " + (value != nullptr ? short_value(*value) : std::string("null")),
                     "fix the value in the file"};
}

auto FieldReader::number(std::initializer_list<std::string_view> keys) const
    -> core::Result<std::optional<double>> {
  const Json* value = find(keys);
  if (value == nullptr) return std::optional<double>{};
  if (!value->is_number()) return core::fail(type_error(key_of(keys), "a number"));
  const double v = value->get<double>();
  if (!std::isfinite(v)) return core::fail(type_error(key_of(keys), "a finite number"));
  return std::optional<double>{v};
}

auto FieldReader::integer(std::initializer_list<std::string_view> keys) const
    -> core::Result<std::optional<std::int64_t>> {
  const Json* value = find(keys);
  if (value == nullptr) return std::optional<std::int64_t>{};
  if (value->is_number_integer()) return std::optional<std::int64_t>{value->get<std::int64_t>()};
  if (value->is_number_float()) {
    const double v = value->get<double>();
    constexpr double kLimit = 9.0e15;  // integers above 2^53 are not exact in a double
    if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < kLimit) {
      return std::optional<std::int64_t>{static_cast<std::int64_t>(v)};
    }
  }
  return core::fail(type_error(key_of(keys), "an integer"));
}

auto FieldReader::boolean(std::initializer_list<std::string_view> keys) const
    -> core::Result<std::optional<bool>> {
  const Json* value = find(keys);
  if (value == nullptr) return std::optional<bool>{};
  if (!value->is_boolean()) return core::fail(type_error(key_of(keys), "true or false"));
  return std::optional<bool>{value->get<bool>()};
}

auto FieldReader::string(std::initializer_list<std::string_view> keys) const
    -> core::Result<std::optional<std::string>> {
  const Json* value = find(keys);
  if (value == nullptr) return std::optional<std::string>{};
  if (!value->is_string()) return core::fail(type_error(key_of(keys), "a string"));
  return std::optional<std::string>{value->get<std::string>()};
}

auto FieldReader::ranged_integer(std::initializer_list<std::string_view> keys, std::int64_t min,
                                 std::int64_t max) const -> core::Result<std::optional<std::int64_t>> {
  auto value = integer(keys);
  if (!value || !value->has_value()) return value;
  if (**value < min || **value > max) {
    return core::fail(
        type_error(key_of(keys), "an integer from " + std::to_string(min) + " to " + std::to_string(max)));
  }
  return value;
}

auto FieldReader::required_integer(std::initializer_list<std::string_view> keys, std::int64_t min,
                                   std::int64_t max) const -> core::Result<std::int64_t> {
  auto value = ranged_integer(keys, min, max);
  if (!value) return core::propagate(value);
  if (!value->has_value()) {
    return core::fail(core::ErrorCode::InvalidArgument, context_ + ": missing field " + join_keys(keys),
                      "is this a Hugging Face transformer config.json? add the field by hand if it is");
  }
  return **value;
}

auto FieldReader::required_number(std::initializer_list<std::string_view> keys, double min, double max) const
    -> core::Result<double> {
  auto value = number(keys);
  if (!value) return core::propagate(value);
  if (!value->has_value()) {
    return core::fail(core::ErrorCode::InvalidArgument, context_ + ": missing field " + join_keys(keys),
                      "add the field");
  }
  if (**value < min || **value > max) {
    return core::fail(
        type_error(key_of(keys), "a number from " + value_text(Json(min)) + " to " + value_text(Json(max))));
  }
  return **value;
}

}  // namespace solscope::ceiling::detail
