// An SQLite VFS shim that shows a main database file as if it ended at its last whole page.
//
// Why: SQLite counts a partial last page (a file cut in the middle of a page) as a page and reads its missing
// tail as zeros (os_unix.c unixRead zero-fills short reads), so the cells stored in that tail decode as zero
// values without any error. Hiding the partial page makes SQLite report the damage (SQLITE_CORRUPT) at that
// page instead, and the reader keeps only the samples before it.
#pragma once

#include <string_view>

namespace solscope::trace::detail {

/// Name of the shim VFS, registered on first use (not as the default).
[[nodiscard]] auto whole_pages_vfs_name() -> const char*;

/// URI parameter carrying the page size the shim rounds the main file size down to.
inline constexpr std::string_view kWholePagesParam = "solscope_page_bytes";

}  // namespace solscope::trace::detail
