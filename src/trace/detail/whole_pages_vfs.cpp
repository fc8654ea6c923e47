#include "trace/detail/whole_pages_vfs.hpp"

#include <sqlite3.h>

#include <mutex>
#include <string>

#include "trace/detail/forwarding_vfs.hpp"

namespace solscope::trace::detail {
namespace {

constexpr const char* kVfsName = "solscope-whole-pages";

sqlite3_vfs* g_real_vfs = nullptr;
sqlite3_io_methods g_methods{};
sqlite3_vfs g_shim{};

/// ShimFile::user holds the page size (bytes) for the main database: sizes round down to a multiple of it.
auto page_bytes(sqlite3_file* f) -> sqlite3_int64& {
  return reinterpret_cast<ShimFile*>(f)->user;
}

auto shim_file_size(sqlite3_file* f, sqlite3_int64* size) -> int {
  const int rc = real(f)->pMethods->xFileSize(real(f), size);
  const sqlite3_int64 page = page_bytes(f);
  if (rc == SQLITE_OK && page > 0) *size -= *size % page;
  return rc;
}
auto shim_fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) -> int {
  // Memory-mapped reads would bypass the rounded size; the reader never enables mmap, and SQLite falls back
  // to xRead when a fetch yields no pointer.
  (void)f;
  (void)offset;
  (void)amount;
  *out = nullptr;
  return SQLITE_OK;
}
auto shim_unfetch(sqlite3_file* f, sqlite3_int64 offset, void* p) -> int {
  (void)f;
  (void)offset;
  (void)p;
  return SQLITE_OK;
}

auto shim_open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags)
    -> int {
  (void)vfs;
  const int rc = open_forwarding(g_real_vfs, &g_methods, name, file, flags, out_flags);
  if (rc != SQLITE_OK || file->pMethods == nullptr) return rc;
  if ((flags & SQLITE_OPEN_MAIN_DB) != 0 && name != nullptr) {
    const std::string param(kWholePagesParam);
    page_bytes(file) = sqlite3_uri_int64(name, param.c_str(), 0);
  }
  return rc;
}

void register_shim() {
  g_real_vfs = sqlite3_vfs_find(nullptr);
  if (g_real_vfs == nullptr) return;
  g_methods = forwarding_io_methods();
  g_methods.xFileSize = shim_file_size;
  g_methods.xFetch = shim_fetch;
  g_methods.xUnfetch = shim_unfetch;
  g_shim = make_forwarding_vfs(*g_real_vfs, kVfsName, shim_open);
  sqlite3_vfs_register(&g_shim, 0);
}

}  // namespace

auto whole_pages_vfs_name() -> const char* {
  static std::once_flag once;
  std::call_once(once, register_shim);
  return kVfsName;
}

}  // namespace solscope::trace::detail
