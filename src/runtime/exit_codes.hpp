// Documented process exit codes of the solscope command (README "Exit codes").
#pragma once

#include "core/result.hpp"

namespace solscope::app {

/// Exit codes. Stable: scripts depend on them.
enum ExitCode : int {
  kExitOk = 0,          ///< success (also: `record` or the live view stopped by SIGINT, SIGTERM or q)
  kExitFailure = 1,     ///< a run-time failure not covered below (I/O error, internal error)
  kExitUsage = 2,       ///< bad command line: unknown command or flag, bad value
  kExitNoGpu = 3,       ///< no NVIDIA driver, no GPU, or none of the selected devices exists
  kExitPermission = 4,  ///< GPU counters not permitted and no device could be sampled at all
  kExitBadTrace = 5,    ///< a trace file is missing, not a solscope trace, too new, or damaged beyond reading
  kExitCheckFailed =
      6,  ///< `solscope check`: a figure fell outside its tolerance, a phase faulted, or no data
};

/// An error together with the exit code it means for the command that met it.
struct Failure {
  core::Error error;
  int exit_code = kExitFailure;
};

/// A value, or the Failure that ends the command.
template <class T>
using Outcome = core::Expected<T, Failure>;

/// The exit code for a sampling error from a live source: NotFound/Unavailable → kExitNoGpu,
/// PermissionDenied → kExitPermission, InvalidArgument → kExitUsage, anything else → kExitFailure.
[[nodiscard]] auto exit_code_for_source_error(const core::Error& error) -> int;

}  // namespace solscope::app
