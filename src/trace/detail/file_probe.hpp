// Looks at a would-be trace file before SQLite does, to give precise messages: missing, a directory, empty,
// not SQLite, cut short against its own header.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace solscope::trace::detail {

/// What the first 100 bytes (the SQLite database header) and the file system say about a file.
struct FileProbe {
  std::uintmax_t size_bytes = 0;
  std::uint32_t page_size_bytes = 0;
  /// Pages the header declares (offset 28), 0 when the header's count is not valid (offsets 24 and 92
  /// differ).
  std::uint32_t header_pages = 0;
  bool has_wal = false;  ///< a non-empty <path>-wal exists beside the file
};

/// InvalidArgument "not a solscope trace: <path> <why>", with a hint to give a file `solscope record` wrote.
[[nodiscard]] auto not_a_trace(const std::filesystem::path& path, std::string_view why) -> core::Error;

/// Probes `path`. Errors: NotFound "no such trace: <path>"; InvalidArgument "not a solscope trace: <path> is
/// a directory" / "is empty" / "is not an SQLite database"; DataLoss when the header itself is cut short.
/// Source of the header layout: https://www.sqlite.org/fileformat2.html section 1.3.
[[nodiscard]] auto probe_trace_file(const std::filesystem::path& path) -> core::Result<FileProbe>;

/// True when the file is shorter than its header declares and no -wal could supply the missing pages.
[[nodiscard]] auto cut_short(const FileProbe& probe) -> bool;

/// The big-endian 32-bit word at `p` (4 readable bytes): how SQLite stores the integers of its database and
/// -wal headers (fileformat2.html sections 1.3 and 4.1).
[[nodiscard]] auto big_endian_u32(const unsigned char* p) -> std::uint32_t;

/// "N bytes" as "12.3 KiB" / "4.0 MiB" for messages.
[[nodiscard]] auto human_bytes(std::uintmax_t bytes) -> std::string;

}  // namespace solscope::trace::detail
