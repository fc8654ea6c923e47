#include "core/result.hpp"

namespace solscope::core {

auto to_string(ErrorCode code) -> std::string_view {
  switch (code) {
    case ErrorCode::InvalidArgument:
      return "invalid argument";
    case ErrorCode::NotFound:
      return "not found";
    case ErrorCode::PermissionDenied:
      return "permission denied";
    case ErrorCode::Unavailable:
      return "unavailable";
    case ErrorCode::ResourceExhausted:
      return "resource exhausted";
    case ErrorCode::DataLoss:
      return "data loss";
    case ErrorCode::FailedPrecondition:
      return "failed precondition";
    case ErrorCode::Aborted:
      return "aborted";
    case ErrorCode::Unimplemented:
      return "unimplemented";
    case ErrorCode::Internal:
      return "internal";
  }
  return "unknown";
}

auto Error::describe() const -> std::string {
  if (hint.empty()) return message;
  return message + ". " + hint;
}

}  // namespace solscope::core
