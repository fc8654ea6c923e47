// install_crash_report (crash_report.hpp).
#include "runtime/crash_report.hpp"

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>

namespace solscope::app {
namespace {

constexpr std::size_t kMaxFrames = 64;
constexpr std::size_t kAltStackBytes = 64 * 1024;
constexpr std::array<int, 5> kFatalSignals = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
alignas(16) std::array<char, kAltStackBytes> g_alt_stack;

void put(const char* text) {
  const std::size_t n = std::strlen(text);
  ssize_t rc = ::write(STDERR_FILENO, text, n);
  (void)rc;
}

void put_hex(std::uintptr_t value) {
  std::array<char, 2 + 2 * sizeof(value) + 1> buf{};
  std::size_t i = buf.size() - 1;
  do {
    buf[--i] = "0123456789abcdef"[value & 0xFU];
    value >>= 4U;
  } while (value != 0 && i > 2);
  buf[--i] = 'x';
  buf[--i] = '0';
  put(&buf[i]);
}

/// "FILE+0xOFFSET (symbol)" of a code address, or the bare address outside every loaded object.
void put_location(const void* address) {
  Dl_info info{};
  const auto value = reinterpret_cast<std::uintptr_t>(address);
  if (dladdr(address, &info) != 0 && info.dli_fname != nullptr) {
    put(info.dli_fname);
    put("+");
    put_hex(value - reinterpret_cast<std::uintptr_t>(info.dli_fbase));
    if (info.dli_sname != nullptr) {
      put(" (");
      put(info.dli_sname);
      put(")");
    }
  } else {
    put_hex(value);
    put(" (in no loaded object)");
  }
}

/// The interrupted program counter, from the signal's machine context (x86-64 and AArch64 Linux).
auto interrupted_pc(const void* context) -> const void* {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<const void*>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return nullptr;
#endif
}

void on_fatal_signal(int signo, siginfo_t* info, void* context) {
  std::array<char, 32> thread{};
  if (pthread_getname_np(pthread_self(), thread.data(), thread.size()) != 0) thread[0] = '\0';
  put("solscope: fatal signal ");
  put(sigabbrev_np(signo) != nullptr ? sigabbrev_np(signo) : "?");
  put(" in thread '");
  put(thread.data());
  put("'; please report it with these lines (addr2line -f -C -e FILE OFFSET):\n  at ");
  if (const void* pc = context != nullptr ? interrupted_pc(context) : nullptr; pc != nullptr)
    put_location(pc);
  if (info != nullptr && (signo == SIGSEGV || signo == SIGBUS)) {
    put(", fault address ");
    put_hex(reinterpret_cast<std::uintptr_t>(info->si_addr));
  }
  put("\n");
  // The stack last: unwinding from code that is gone can fault again, which then ends the process.
  std::array<void*, kMaxFrames> frames{};
  const int count = backtrace(frames.data(), static_cast<int>(frames.size()));
  for (int i = 0; i < count; ++i) {
    put("  ");
    put_location(frames[static_cast<std::size_t>(i)]);
    put("\n");
  }
  // SA_RESETHAND restored the default action: the process now dies of the signal, as it would have.
  ::raise(signo);
}

}  // namespace

void install_crash_report() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return;  // the sanitizers' own reports are better; theirs stay installed
#endif
  std::array<void*, 1> warm{};
  (void)backtrace(warm.data(), 1);  // loads the unwinder now, not inside the handler
  stack_t alt{};
  alt.ss_sp = g_alt_stack.data();
  alt.ss_size = g_alt_stack.size();
  (void)sigaltstack(&alt, nullptr);
  struct sigaction action {};
  action.sa_sigaction = on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (const int signo : kFatalSignals) (void)sigaction(signo, &action, nullptr);
}

}  // namespace solscope::app
