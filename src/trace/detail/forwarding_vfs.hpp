// A forwarding SQLite VFS shim: a file object that wraps the real VFS's file object and an io-methods table
// whose every method forwards to it. A shim copies forwarding_io_methods(), replaces only the methods it
// changes (whole_pages_vfs.cpp: xFileSize, xFetch, xUnfetch; the test full-disk VFS: xWrite), and opens its
// files with open_forwarding().
#pragma once

#include <sqlite3.h>

namespace solscope::trace::detail {

/// The shim's file object; the wrapped VFS's own file object follows it in the same allocation, so a shim
/// VFS sets szOsFile to sizeof(ShimFile) + the wrapped VFS's szOsFile (make_forwarding_vfs does).
struct ShimFile {
  sqlite3_file base;
  sqlite3_file* real;  ///< the wrapped file object, right after this struct
  sqlite3_int64 user;  ///< free for the shim's own per-file value; 0 after open_forwarding
};
static_assert(sizeof(ShimFile) % 8 == 0, "the wrapped file object must stay 8-byte aligned");

/// The wrapped file object of a shim file.
[[nodiscard]] inline auto real(sqlite3_file* f) -> sqlite3_file* {
  return reinterpret_cast<ShimFile*>(f)->real;
}

/// An io-methods table (version 3) whose every method forwards to real(f).
[[nodiscard]] auto forwarding_io_methods() -> sqlite3_io_methods;

/// Opens `name` with `real_vfs` into the wrapped file object of `file` and, when that succeeds, gives
/// `file` the io methods `methods` (which must outlive the file). Returns real_vfs->xOpen's SQLite code.
[[nodiscard]] auto open_forwarding(sqlite3_vfs* real_vfs, const sqlite3_io_methods* methods,
                                   sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags)
    -> int;

/// A copy of `real_vfs` named `name` (a string that outlives the VFS) whose xOpen is `open` and whose file
/// objects have room for a ShimFile; every other method, and pAppData, stays the wrapped VFS's own.
[[nodiscard]] auto make_forwarding_vfs(const sqlite3_vfs& real_vfs, const char* name,
                                       decltype(sqlite3_vfs::xOpen) open) -> sqlite3_vfs;

}  // namespace solscope::trace::detail
