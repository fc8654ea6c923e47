#include "trace/full_disk_vfs.hpp"

namespace solscope::trace::testing {
namespace {

std::atomic<bool> g_full{false};
std::atomic<int> g_refused{0};
sqlite3_vfs* g_unix = nullptr;
sqlite3_vfs g_shim{};
sqlite3_io_methods g_methods{};

/// The shim's file object: the unix VFS's own file object follows it in the same allocation.
struct ShimFile {
  sqlite3_file base;
  sqlite3_file* real;
};
static_assert(sizeof(ShimFile) % 8 == 0, "the wrapped file object must stay 8-byte aligned");

auto real(sqlite3_file* f) -> sqlite3_file* {
  return reinterpret_cast<ShimFile*>(f)->real;
}

auto shim_write(sqlite3_file* f, const void* buffer, int amount, sqlite3_int64 offset) -> int {
  if (g_full) {
    ++g_refused;
    return SQLITE_FULL;
  }
  return real(f)->pMethods->xWrite(real(f), buffer, amount, offset);
}

// Every other method forwards to the wrapped file.
auto shim_close(sqlite3_file* f) -> int {
  return real(f)->pMethods->xClose(real(f));
}
auto shim_read(sqlite3_file* f, void* b, int n, sqlite3_int64 o) -> int {
  return real(f)->pMethods->xRead(real(f), b, n, o);
}
auto shim_truncate(sqlite3_file* f, sqlite3_int64 size) -> int {
  return real(f)->pMethods->xTruncate(real(f), size);
}
auto shim_sync(sqlite3_file* f, int flags) -> int {
  return real(f)->pMethods->xSync(real(f), flags);
}
auto shim_file_size(sqlite3_file* f, sqlite3_int64* size) -> int {
  return real(f)->pMethods->xFileSize(real(f), size);
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
auto shim_characteristics(sqlite3_file* f) -> int {
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

auto shim_open(sqlite3_vfs* /*vfs*/, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags)
    -> int {
  auto* shim = reinterpret_cast<ShimFile*>(file);
  shim->base.pMethods = nullptr;
  shim->real = reinterpret_cast<sqlite3_file*>(shim + 1);
  const int rc = g_unix->xOpen(g_unix, name, shim->real, flags, out_flags);
  if (rc != SQLITE_OK || shim->real->pMethods == nullptr) return rc;
  shim->base.pMethods = &g_methods;
  return rc;
}

}  // namespace

FullDisk::FullDisk() {
  g_unix = sqlite3_vfs_find("unix");
  if (g_unix == nullptr) return;
  g_methods = {2,
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
               shim_characteristics,
               shim_shm_map,
               shim_shm_lock,
               shim_shm_barrier,
               shim_shm_unmap,
               nullptr,
               nullptr};
  g_shim = *g_unix;
  g_shim.pNext = nullptr;
  g_shim.zName = "solscope-test-full-disk";
  g_shim.szOsFile = static_cast<int>(sizeof(ShimFile)) + g_unix->szOsFile;
  g_shim.xOpen = shim_open;
  previous_ = sqlite3_vfs_find(nullptr);
  g_full = false;
  g_refused = 0;
  sqlite3_vfs_register(&g_shim, 1);
}

FullDisk::~FullDisk() {
  if (previous_ == nullptr) return;
  g_full = false;
  sqlite3_vfs_register(previous_, 1);
  sqlite3_vfs_unregister(&g_shim);
}

void FullDisk::set_full(bool full) {
  g_full = full;
}

auto FullDisk::refused_writes() const -> int {
  return g_refused;
}

}  // namespace solscope::trace::testing
