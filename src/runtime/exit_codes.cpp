#include "runtime/exit_codes.hpp"

namespace solscope::app {

auto exit_code_for_source_error(const core::Error& error) -> int {
  switch (error.code) {
    case core::ErrorCode::NotFound:
    case core::ErrorCode::Unavailable:
    case core::ErrorCode::Unimplemented:
      return kExitNoGpu;
    case core::ErrorCode::PermissionDenied:
      return kExitPermission;
    case core::ErrorCode::InvalidArgument:
      return kExitUsage;
    default:
      return kExitFailure;
  }
}

}  // namespace solscope::app
