#include "trace/detail/whole_pages_vfs.hpp"

#include <sqlite3.h>

#include <mutex>
#include <string>

namespace solscope::trace::detail {
namespace {

constexpr const char* kVfsName = "solscope-whole-pages";

/// The shim's file object; the wrapped VFS's own file object follows it in the same allocation (szOsFile).
struct ShimFile {
  sqlite3_file base;
  sqlite3_file* real;
  sqlite3_int64 page_bytes;  ///< > 0 for the main database: sizes round down to a multiple of it
};
static_assert(sizeof(ShimFile) % 8 == 0, "the wrapped file object must stay 8-byte aligned");

sqlite3_vfs* g_real_vfs = nullptr;

auto real(sqlite3_file* f) -> sqlite3_file* {
  return reinterpret_cast<ShimFile*>(f)->real;
}

auto shim_close(sqlite3_file* f) -> int {
  return real(f)->pMethods->xClose(real(f));
}
auto shim_read(sqlite3_file* f, void* buffer, int amount, sqlite3_int64 offset) -> int {
  return real(f)->pMethods->xRead(real(f), buffer, amount, offset);
}
auto shim_write(sqlite3_file* f, const void* buffer, int amount, sqlite3_int64 offset) -> int {
  return real(f)->pMethods->xWrite(real(f), buffer, amount, offset);
}
auto shim_truncate(sqlite3_file* f, sqlite3_int64 size) -> int {
  return real(f)->pMethods->xTruncate(real(f), size);
}
auto shim_sync(sqlite3_file* f, int flags) -> int {
  return real(f)->pMethods->xSync(real(f), flags);
}
auto shim_file_size(sqlite3_file* f, sqlite3_int64* size) -> int {
  const int rc = real(f)->pMethods->xFileSize(real(f), size);
  const sqlite3_int64 page = reinterpret_cast<ShimFile*>(f)->page_bytes;
  if (rc == SQLITE_OK && page > 0) *size -= *size % page;
  return rc;
}
auto shim_lock(sqlite3_file* f, int level) -> int {
  return real(f)->pMethods->xLock(real(f), level);
}
auto shim_unlock(sqlite3_file* f, int level) -> int {
  return real(f)->pMethods->xUnlock(real(f), level);
}
auto shim_check_reserved(sqlite3_file* f, int* out) -> int {
  return real(f)->pMethods->xCheckReservedLock(real(f), out);
}
auto shim_file_control(sqlite3_file* f, int op, void* arg) -> int {
  return real(f)->pMethods->xFileControl(real(f), op, arg);
}
auto shim_sector_size(sqlite3_file* f) -> int {
  return real(f)->pMethods->xSectorSize(real(f));
}
auto shim_device_characteristics(sqlite3_file* f) -> int {
  return real(f)->pMethods->xDeviceCharacteristics(real(f));
}
auto shim_shm_map(sqlite3_file* f, int region, int size, int extend, void volatile** out) -> int {
  return real(f)->pMethods->xShmMap(real(f), region, size, extend, out);
}
auto shim_shm_lock(sqlite3_file* f, int offset, int n, int flags) -> int {
  return real(f)->pMethods->xShmLock(real(f), offset, n, flags);
}
void shim_shm_barrier(sqlite3_file* f) {
  real(f)->pMethods->xShmBarrier(real(f));
}
auto shim_shm_unmap(sqlite3_file* f, int delete_flag) -> int {
  return real(f)->pMethods->xShmUnmap(real(f), delete_flag);
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

constexpr sqlite3_io_methods kMethods = {
    3,
    shim_close,
    shim_read,
    shim_write,
    shim_truncate,
    shim_sync,
    shim_file_size,
    shim_lock,
    shim_unlock,
    shim_check_reserved,
    shim_file_control,
    shim_sector_size,
    shim_device_characteristics,
    shim_shm_map,
    shim_shm_lock,
    shim_shm_barrier,
    shim_shm_unmap,
    shim_fetch,
    shim_unfetch,
};

auto shim_open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags)
    -> int {
  (void)vfs;
  auto* shim = reinterpret_cast<ShimFile*>(file);
  shim->base.pMethods = nullptr;
  shim->real = reinterpret_cast<sqlite3_file*>(shim + 1);
  shim->page_bytes = 0;
  const int rc = g_real_vfs->xOpen(g_real_vfs, name, shim->real, flags, out_flags);
  if (rc != SQLITE_OK || shim->real->pMethods == nullptr) return rc;
  if ((flags & SQLITE_OPEN_MAIN_DB) != 0 && name != nullptr) {
    const std::string param(kWholePagesParam);
    shim->page_bytes = sqlite3_uri_int64(name, param.c_str(), 0);
  }
  shim->base.pMethods = &kMethods;
  return rc;
}

sqlite3_vfs g_shim{};

void register_shim() {
  g_real_vfs = sqlite3_vfs_find(nullptr);
  if (g_real_vfs == nullptr) return;
  g_shim = *g_real_vfs;
  g_shim.pNext = nullptr;
  g_shim.zName = kVfsName;
  g_shim.szOsFile = static_cast<int>(sizeof(ShimFile)) + g_real_vfs->szOsFile;
  g_shim.xOpen = shim_open;  // every other method (and pAppData) stays the wrapped VFS's own
  sqlite3_vfs_register(&g_shim, 0);
}

}  // namespace

auto whole_pages_vfs_name() -> const char* {
  static std::once_flag once;
  std::call_once(once, register_shim);
  return kVfsName;
}

}  // namespace solscope::trace::detail
