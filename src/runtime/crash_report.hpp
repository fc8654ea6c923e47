// A crash report on stderr: when solscope dies of a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT),
// one line names the signal and the thread, then the return addresses of its stack as FILE+0xOFFSET, which
// `addr2line -f -C -e FILE OFFSET` turns into functions and lines with the unstripped build of the same
// release. The process then dies of the same signal (exit status 128 + N, a core dump where enabled), as
// without it.
#pragma once

namespace solscope::app {

/// Installs the report for the fatal signals, on an alternate stack (a stack overflow still reports). Call
/// once, early in main. Uses only async-signal-safe calls after installation, except glibc's backtrace() and
/// dladdr(), which are loaded and warmed up here.
void install_crash_report();

}  // namespace solscope::app
