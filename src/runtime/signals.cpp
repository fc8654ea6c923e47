#include "runtime/signals.hpp"

#include <signal.h>

#include <csignal>

namespace solscope::app {
namespace {

std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;
std::atomic<int> g_forward_group{0};  // lock-free on Linux: safe to read in a handler
std::atomic<int> g_forwarded{0};      // signals forwarded to g_forward_group since it was set

extern "C" void on_stop_signal(int signo) {
  if (const int group = g_forward_group.load(); group > 0) {
    g_signal = signo;
    const bool force = g_forwarded.fetch_add(1) + 1 >= kForwardsBeforeKill;
    (void)kill(-group, force ? SIGKILL : signo);
    return;
  }
  if (g_stop.load()) {
    std::signal(signo, SIG_DFL);  // second request: let the next one terminate the process
  }
  g_signal = signo;
  g_stop.store(true);
}

}  // namespace

auto install_stop_signals() -> const std::atomic<bool>& {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: a write to a full pipe (`--json | less`) that the signal interrupts carries on instead of
  // failing with EINTR, which stdio would report as a write error (exit 1, half a line). The stop is seen by
  // the loops that poll the flag; waits with timeouts (poll, sleeps) return early either way.
  action.sa_flags = SA_RESTART;
  for (int signo : {SIGINT, SIGTERM, SIGHUP}) sigaction(signo, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  return g_stop;
}

auto stop_flag() -> const std::atomic<bool>& {
  return g_stop;
}

void forward_signals_to_group(int group) {
  g_forwarded.store(0);
  g_forward_group.store(group);
}

auto stop_signal() -> int {
  return g_signal;
}

}  // namespace solscope::app
