#include "core/result.hpp"

#include "core/enum_table.hpp"

namespace solscope::core {

constexpr EnumNames<ErrorCode, 11> kErrorCodeNames({"invalid argument", "not found", "permission denied",
                                                    "unavailable", "resource exhausted", "data loss",
                                                    "failed precondition", "aborted", "unimplemented",
                                                    "internal", "deadline exceeded"},
                                                   "unknown");

auto to_string(ErrorCode code) -> std::string_view {
  return kErrorCodeNames(code);
}

auto Error::describe() const -> std::string {
  if (hint.empty()) return message;
  return message + ". " + hint;
}

}  // namespace solscope::core
