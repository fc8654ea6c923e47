// Errors as values: `Result<T>` is an expected value or an `Error` with a code, a message and a hint.
//
// The codes follow abseil's canonical set (absl/status/status.h) so that each failure maps to one meaning:
// InvalidArgument for bad user input, NotFound for a missing library or file, PermissionDenied for missing
// profiling privilege, Unavailable for a device or counter unit that is busy or gone, DataLoss for a damaged
// trace, FailedPrecondition for a call made in the wrong state, Unimplemented for an unsupported chip,
// Internal for a bug, and DeadlineExceeded for a call to another service that did not answer in time.
// `tl::expected` (Debian libexpected-dev) stands in for std::expected, which g++ 12 lacks in C++20; switching
// is a change to this file alone.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <tl/expected.hpp>

namespace solscope::core {

/// Canonical error codes (abseil's set, trimmed to those solscope uses).
enum class ErrorCode {
  InvalidArgument,     ///< the caller's input is wrong (flag, file contents, query)
  NotFound,            ///< a library, device, file or symbol does not exist
  PermissionDenied,    ///< the process lacks a privilege (profiling counters, file mode)
  Unavailable,         ///< a resource exists but cannot be used now (busy, lost, no driver)
  ResourceExhausted,   ///< a buffer or quota is full (counter-data image, client queue)
  DataLoss,            ///< stored data is damaged or cut short
  FailedPrecondition,  ///< the object is in the wrong state for the call
  Aborted,             ///< an operation was cut short and its work lost (a kernel fault); others may go on
  Unimplemented,       ///< the chip, version or feature is not supported
  Internal,            ///< an invariant broke: a bug in solscope
  DeadlineExceeded,    ///< a call to another service did not finish within its deadline (a kubelet socket)
};

/// Short lowercase name of an error code, e.g. "permission denied".
[[nodiscard]] auto to_string(ErrorCode code) -> std::string_view;

/// A failure for the user: what failed and why (`message`), and what to do about it (`hint`, may be empty).
/// Messages are lowercase phrases without a trailing period that name the object (device index, file, flag).
struct Error {
  ErrorCode code = ErrorCode::Internal;
  std::string message;
  std::string hint;

  /// "<message>. <hint>" (or just the message), ready for "solscope: error: ".
  [[nodiscard]] auto describe() const -> std::string;
};

/// The failed side of an Expected: the project's spelling of tl::unexpected (std::unexpected in C++23).
template <class E>
using Unexpected = tl::unexpected<E>;

/// A value of type T or an error of type E. The project's spelling of tl::expected (std::expected in C++23),
/// so that no other file names the library; [[nodiscard]], so a result can never be dropped unread.
/// Conversions to and from tl::expected<T, E> are implicit, so its monadic calls (and_then, map) keep
/// working.
template <class T, class E>
class [[nodiscard]] Expected : public tl::expected<T, E> {
 public:
  using Base = tl::expected<T, E>;
  using Base::Base;
  Expected() = default;
  Expected(const Base& other) : Base(other) {}  // NOLINT(google-explicit-constructor): a spelling
  Expected(Base&& other) noexcept
      : Base(std::move(other)) {}  // NOLINT(google-explicit-constructor): a spelling
};

/// Result of an operation that can fail with an Error.
template <class T>
using Result = Expected<T, Error>;

/// Builds the unexpected value of a Result: `return fail(ErrorCode::NotFound, "no such file", "check the
/// path");`
[[nodiscard]] inline auto fail(ErrorCode code, std::string message, std::string hint = {})
    -> Unexpected<Error> {
  return Unexpected<Error>(Error{code, std::move(message), std::move(hint)});
}

/// Wraps an error value (an Error, or an app-level failure type) as the failed side of an Expected:
/// `return fail(sqlite_error(db, rc, "cannot write"));`
template <class E>
[[nodiscard]] auto fail(E error) -> Unexpected<E> {
  return Unexpected<E>(std::move(error));
}

/// Forwards the error of a failed Expected to the caller: `if (!opened) return propagate(opened);`.
/// Precondition: `!failed` (calling it on a value is a bug, as reading .error() of a value is).
template <class T, class E>
[[nodiscard]] auto propagate(const tl::expected<T, E>& failed) -> Unexpected<E> {
  return Unexpected<E>(failed.error());
}

/// As above, moving the error out of a failed Expected that is no longer needed.
template <class T, class E>
[[nodiscard]] auto propagate(tl::expected<T, E>&& failed) -> Unexpected<E> {
  return Unexpected<E>(std::move(failed).error());
}

/// Success value for Result<void>.
[[nodiscard]] inline auto ok() -> Result<void> {
  return {};
}

}  // namespace solscope::core
