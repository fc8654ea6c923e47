// Keeps every ELF file that solscope ships within its glibc floor, GLIBC_2.34 (Ubuntu 22.04, RHEL 9, Debian
// 12, Amazon Linux 2023; docs/release.md section 2).
//
// The shipped binary and libsolscope_inject.so link the C++ runtime statically (the inject library is loaded
// into the user's own CUDA process, whatever libstdc++ it has). Debian 12's libstdc++.a and libgcc_eh.a were
// built against glibc 2.36 and reference two functions that older glibc lacks:
//  - arc4random (GLIBC_2.36), from libstdc++'s random.o (std::random_device's "arc4random" token);
//  - _dl_find_object (GLIBC_2.35), from libgcc's unwind-dw2-fde-dip.o (the unwinder's lookup of a PC's unwind
//    tables, used to throw and catch every C++ exception).
// The hidden definitions below satisfy those references inside the link, so no versioned reference to either
// reaches the dynamic symbol table. They follow the documented contracts of the glibc functions they stand
// for [glibc manual, "Unpredictable Bytes"; dlfcn.h, "_dl_find_object"], built on calls that glibc 2.25
// already has (getrandom, dl_iterate_phdr). tests/release/check_bundle.sh proves the floor on every ELF file
// of the bundle.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1  // NOLINT(bugprone-reserved-identifier): glibc's feature macro for dl_find_object
#endif
#include <dlfcn.h>
#include <link.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace {

/// What one dl_iterate_phdr walk looks for: the loaded object that holds `pc`.
struct FindRequest {
  std::uintptr_t pc = 0;
  dl_find_object* result = nullptr;
};

/// dl_iterate_phdr callback: 1 (stop) when `info` is the object whose PT_LOAD segments hold the PC; fills the
/// result's mapping bounds and its PT_GNU_EH_FRAME address (the .eh_frame_hdr, NULL when the object has
/// none).
auto visit_object(dl_phdr_info* info, std::size_t /*size*/, void* data) -> int {
  auto* request = static_cast<FindRequest*>(data);
  std::uintptr_t low = UINTPTR_MAX;
  std::uintptr_t high = 0;
  void* eh_frame_hdr = nullptr;
  bool holds_pc = false;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const std::uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD) {
      const std::uintptr_t end = start + segment.p_memsz;
      low = start < low ? start : low;
      high = end > high ? end : high;
      holds_pc = holds_pc || (request->pc >= start && request->pc < end);
    } else if (segment.p_type == PT_GNU_EH_FRAME) {
      eh_frame_hdr = reinterpret_cast<void*>(start);  // NOLINT(performance-no-int-to-ptr): a loaded address
    }
  }
  if (!holds_pc) {
    return 0;
  }
  *request->result = dl_find_object{};
  request->result->dlfo_map_start = reinterpret_cast<void*>(low);  // NOLINT(performance-no-int-to-ptr)
  request->result->dlfo_map_end = reinterpret_cast<void*>(high);   // NOLINT(performance-no-int-to-ptr)
  request->result->dlfo_eh_frame = eh_frame_hdr;
  return 1;
}

}  // namespace

extern "C" {

/// glibc's _dl_find_object contract: 0 and the object's mapping and unwind-table address when `pc` lies in a
/// loaded object, -1 otherwise. dlfo_link_map stays NULL (the unwinder reads only the mapping and eh_frame).
/// Takes the loader's lock through dl_iterate_phdr, as GCC's unwinder did before glibc 2.35.
__attribute__((visibility("hidden"))) auto _dl_find_object(void* pc, dl_find_object* result) -> int {
  FindRequest request{reinterpret_cast<std::uintptr_t>(pc), result};
  return dl_iterate_phdr(&visit_object, &request) == 1 ? 0 : -1;
}

/// glibc's arc4random contract: 32 uniformly random bits from the kernel's CSPRNG; never fails (aborts when
/// the kernel gives no randomness, as glibc's own does).
__attribute__((visibility("hidden"))) auto arc4random() -> std::uint32_t {
  std::uint32_t value = 0;
  for (;;) {
    const ssize_t got = getrandom(&value, sizeof value, 0);
    if (got == static_cast<ssize_t>(sizeof value)) {
      return value;
    }
    if (got < 0 && errno != EINTR) {
      std::abort();
    }
  }
}

}  // extern "C"
