// Checks of an output path given on the command line, once and before any work: never write over an input,
// never replace a file without --force, only a regular file in a writable directory.
#pragma once

#include <span>
#include <string>

#include "core/result.hpp"

namespace solscope::app {

/// True when `a` and `b` name the same file (symbolic and hard links included), or the same path once
/// resolved (also when neither exists yet), or `a` is a -wal, -shm or -journal file of trace `b`.
[[nodiscard]] auto is_same_or_sidecar(const std::string& a, const std::string& b) -> bool;

/// The one check of every output path of every command (`record -o`, `run -o` and `--html`, `import -o`,
/// `export -o`, `report --html`), made before the command reads, samples or starts anything. Refuses:
/// one of `inputs` (or a -wal/-shm/-journal file of one); a directory; anything else that is not a regular
/// file (a device such as /dev/null, a FIFO, a socket: a FIFO would block, a device keeps nothing); an
/// existing regular file, empty or not, unless `force`; a path whose directory does not exist, is not a
/// directory, or is not writable. Errors: InvalidArgument naming the path and what to do (a command-line
/// mistake: exit code 2).
[[nodiscard]] auto check_output_path(const std::string& output, std::span<const std::string> inputs,
                                     bool force) -> core::Result<void>;

}  // namespace solscope::app
