#include "trace/detail/forwarding_vfs.hpp"

namespace solscope::trace::detail {
namespace {

auto fwd_close(sqlite3_file* f) -> int {
  return real(f)->pMethods->xClose(real(f));
}
auto fwd_read(sqlite3_file* f, void* buffer, int amount, sqlite3_int64 offset) -> int {
  return real(f)->pMethods->xRead(real(f), buffer, amount, offset);
}
auto fwd_write(sqlite3_file* f, const void* buffer, int amount, sqlite3_int64 offset) -> int {
  return real(f)->pMethods->xWrite(real(f), buffer, amount, offset);
}
auto fwd_truncate(sqlite3_file* f, sqlite3_int64 size) -> int {
  return real(f)->pMethods->xTruncate(real(f), size);
}
auto fwd_sync(sqlite3_file* f, int flags) -> int {
  return real(f)->pMethods->xSync(real(f), flags);
}
auto fwd_file_size(sqlite3_file* f, sqlite3_int64* size) -> int {
  return real(f)->pMethods->xFileSize(real(f), size);
}
auto fwd_lock(sqlite3_file* f, int level) -> int {
  return real(f)->pMethods->xLock(real(f), level);
}
auto fwd_unlock(sqlite3_file* f, int level) -> int {
  return real(f)->pMethods->xUnlock(real(f), level);
}
auto fwd_check_reserved(sqlite3_file* f, int* out) -> int {
  return real(f)->pMethods->xCheckReservedLock(real(f), out);
}
auto fwd_file_control(sqlite3_file* f, int op, void* arg) -> int {
  return real(f)->pMethods->xFileControl(real(f), op, arg);
}
auto fwd_sector_size(sqlite3_file* f) -> int {
  return real(f)->pMethods->xSectorSize(real(f));
}
auto fwd_device_characteristics(sqlite3_file* f) -> int {
  return real(f)->pMethods->xDeviceCharacteristics(real(f));
}
auto fwd_shm_map(sqlite3_file* f, int region, int size, int extend, void volatile** out) -> int {
  return real(f)->pMethods->xShmMap(real(f), region, size, extend, out);
}
auto fwd_shm_lock(sqlite3_file* f, int offset, int n, int flags) -> int {
  return real(f)->pMethods->xShmLock(real(f), offset, n, flags);
}
void fwd_shm_barrier(sqlite3_file* f) {
  real(f)->pMethods->xShmBarrier(real(f));
}
auto fwd_shm_unmap(sqlite3_file* f, int delete_flag) -> int {
  return real(f)->pMethods->xShmUnmap(real(f), delete_flag);
}
auto fwd_fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) -> int {
  return real(f)->pMethods->xFetch(real(f), offset, amount, out);
}
auto fwd_unfetch(sqlite3_file* f, sqlite3_int64 offset, void* p) -> int {
  return real(f)->pMethods->xUnfetch(real(f), offset, p);
}

}  // namespace

auto forwarding_io_methods() -> sqlite3_io_methods {
  return {3,
          fwd_close,
          fwd_read,
          fwd_write,
          fwd_truncate,
          fwd_sync,
          fwd_file_size,
          fwd_lock,
          fwd_unlock,
          fwd_check_reserved,
          fwd_file_control,
          fwd_sector_size,
          fwd_device_characteristics,
          fwd_shm_map,
          fwd_shm_lock,
          fwd_shm_barrier,
          fwd_shm_unmap,
          fwd_fetch,
          fwd_unfetch};
}

auto open_forwarding(sqlite3_vfs* real_vfs, const sqlite3_io_methods* methods, sqlite3_filename name,
                     sqlite3_file* file, int flags, int* out_flags) -> int {
  auto* shim = reinterpret_cast<ShimFile*>(file);
  shim->base.pMethods = nullptr;
  shim->real = reinterpret_cast<sqlite3_file*>(shim + 1);
  shim->user = 0;
  const int rc = real_vfs->xOpen(real_vfs, name, shim->real, flags, out_flags);
  if (rc != SQLITE_OK || shim->real->pMethods == nullptr) return rc;
  shim->base.pMethods = methods;
  return rc;
}

auto make_forwarding_vfs(const sqlite3_vfs& real_vfs, const char* name, decltype(sqlite3_vfs::xOpen) open)
    -> sqlite3_vfs {
  sqlite3_vfs shim = real_vfs;
  shim.pNext = nullptr;
  shim.zName = name;
  shim.szOsFile = static_cast<int>(sizeof(ShimFile)) + real_vfs.szOsFile;
  shim.xOpen = open;
  return shim;
}

}  // namespace solscope::trace::detail
