// Checks of an output path given on the command line: never write over an input, never replace a file
// without --force.
#pragma once

#include <span>
#include <string>

#include "core/result.hpp"

namespace solscope::app {

/// True when `a` and `b` name the same file (symbolic and hard links included), or the same path once
/// resolved (also when neither exists yet), or `a` is a -wal, -shm or -journal file of trace `b`.
[[nodiscard]] auto is_same_or_sidecar(const std::string& a, const std::string& b) -> bool;

/// Checks `output` before a command truncates it: refuses one of `inputs` (or a -wal/-shm/-journal file of
/// one), a directory, and an existing non-empty regular file unless `force`. Devices and FIFOs
/// (/dev/null, a named pipe) are allowed: writing to them replaces nothing. Errors: InvalidArgument naming
/// the path and what to do (a command-line mistake: exit code 2).
[[nodiscard]] auto check_output_path(const std::string& output, std::span<const std::string> inputs,
                                     bool force) -> core::Result<void>;

}  // namespace solscope::app
