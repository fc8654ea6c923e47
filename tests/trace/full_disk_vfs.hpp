// A test SQLite VFS that makes the disk look full: while it is on, every write answers SQLITE_FULL, which is
// what SQLite's unix VFS answers when write(2) fails with ENOSPC (os_unix.c unixWrite). Installed as the
// default VFS for the life of a FullDisk object, so that trace::Writer uses it without a test seam.
#pragma once

#include <sqlite3.h>

#include <atomic>

namespace solscope::trace::testing {

/// Installs the full-disk VFS as SQLite's default while alive (one at a time) and restores the previous
/// default on destruction. set_full(true) makes every later write fail with SQLITE_FULL.
class FullDisk {
 public:
  FullDisk();
  ~FullDisk();
  FullDisk(const FullDisk&) = delete;
  auto operator=(const FullDisk&) -> FullDisk& = delete;
  /// Turns the full disk on or off (writes already done stay).
  void set_full(bool full);
  /// Writes refused since construction.
  [[nodiscard]] auto refused_writes() const -> int;
  /// True when construction found SQLite's unix VFS and installed the shim.
  [[nodiscard]] auto installed() const -> bool { return previous_ != nullptr; }

 private:
  sqlite3_vfs* previous_ = nullptr;
};

}  // namespace solscope::trace::testing
