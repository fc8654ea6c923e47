// Small, exception-free file helpers for procfs and the Hugging Face cache: whole-file reads with a size cap,
// symlink targets and numeric directory entries, and the text helpers their parsers share. Errors keep
// errno's meaning (NotFound, PermissionDenied).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace solscope::workload::detail {

/// Largest file read_file() returns by default: procfs files of interest (cmdline, status, cgroup, environ,
/// net/tcp) stay far below it; longer contents are cut at the cap.
inline constexpr std::size_t kMaxProcFileBytes = 4u << 20;

/// Reads a whole file (procfs files report size 0, so it reads until EOF), at most `max_bytes`.
/// Errors: NotFound (ENOENT, ENOTDIR), PermissionDenied (EACCES, EPERM), Unavailable (anything else, e.g.
/// EISDIR), each naming the path.
[[nodiscard]] auto read_file(const std::filesystem::path& path, std::size_t max_bytes = kMaxProcFileBytes)
    -> core::Result<std::string>;

/// read_file() into `text` (replaced), keeping its capacity: a loop over many files (a scan of every
/// /proc/PID/maps) then allocates once instead of once per file. Errors as read_file(); `text` is then empty.
[[nodiscard]] auto read_file_into(const std::filesystem::path& path, std::size_t max_bytes, std::string& text)
    -> core::Result<void>;

/// The target of a symbolic link (e.g. "socket:[12345]" for /proc/<pid>/fd/3). Errors as read_file().
[[nodiscard]] auto read_link(const std::filesystem::path& path) -> core::Result<std::string>;

/// Names of the entries of a directory that are decimal numbers (PIDs, fd numbers), unsorted. An unreadable
/// directory gives an empty list.
[[nodiscard]] auto numeric_entries(const std::filesystem::path& dir) -> std::vector<std::int64_t>;

/// True when `path` names an existing regular file (following symlinks); false on any error.
[[nodiscard]] auto is_regular_file(const std::filesystem::path& path) -> bool;

/// True when `path` names an existing directory (following symlinks); false on any error.
[[nodiscard]] auto is_directory(const std::filesystem::path& path) -> bool;

/// Parses a whole string as a decimal integer in [min, max]; false when it is not one.
[[nodiscard]] auto parse_int(std::string_view text, std::int64_t min, std::int64_t max, std::int64_t& out)
    -> bool;

/// `text` without leading and trailing ASCII whitespace.
[[nodiscard]] auto trim(std::string_view text) -> std::string_view;

/// Removes the first line from `text` and returns it without its '\n'; a last line without one is returned
/// whole and leaves `text` empty. Loop `while (!text.empty())` to visit every line.
[[nodiscard]] auto next_line(std::string_view& text) -> std::string_view;

}  // namespace solscope::workload::detail
