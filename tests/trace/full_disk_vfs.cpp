#include "trace/full_disk_vfs.hpp"

#include "trace/detail/forwarding_vfs.hpp"

namespace solscope::trace::testing {
namespace {

std::atomic<bool> g_full{false};
std::atomic<int> g_refused{0};
sqlite3_vfs* g_unix = nullptr;
sqlite3_vfs g_shim{};
sqlite3_io_methods g_methods{};

// Only xWrite differs from the wrapped unix file; every other method forwards (detail/forwarding_vfs.hpp).
auto shim_write(sqlite3_file* f, const void* buffer, int amount, sqlite3_int64 offset) -> int {
  if (g_full) {
    ++g_refused;
    return SQLITE_FULL;
  }
  auto* file = detail::real(f);
  return file->pMethods->xWrite(file, buffer, amount, offset);
}

auto shim_open(sqlite3_vfs* /*vfs*/, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags)
    -> int {
  return detail::open_forwarding(g_unix, &g_methods, name, file, flags, out_flags);
}

}  // namespace

FullDisk::FullDisk() {
  g_unix = sqlite3_vfs_find("unix");
  if (g_unix == nullptr) return;
  g_methods = detail::forwarding_io_methods();
  g_methods.xWrite = shim_write;
  g_shim = detail::make_forwarding_vfs(*g_unix, "solscope-test-full-disk", shim_open);
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
