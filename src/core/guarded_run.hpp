// guarded_run: the exception barrier of every thread solscope starts. An exception that leaves a thread's
// body would call std::terminate and end the whole process (a live view, a daemon) without a word;
// guarded_run catches it, records "<name> stopped: <what>" for the thread's owner (ThreadFault) and in the
// process-wide fault log (thread_faults()), and returns. Pure: no I/O; owners print or show what was caught.
#pragma once

#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace solscope::core {

/// Why one guarded thread stopped early: empty while it runs or after it returned normally. Keeps the first
/// fault. Thread-safe.
class ThreadFault {
 public:
  /// Records `text` unless a fault is already recorded.
  void set(std::string text);
  /// "<name> stopped: <what>", or "" when the thread did not fail.
  [[nodiscard]] auto text() const -> std::string;
  [[nodiscard]] auto failed() const -> bool;

 private:
  mutable std::mutex mutex_;
  std::string text_;
};

/// Every fault guarded_run caught in this process, oldest first (the first 64 are kept; later ones are
/// counted). Thread-safe.
class FaultLog {
 public:
  void add(std::string text);
  /// The faults recorded from position `cursor` on; advances `cursor` past them (start with 0).
  [[nodiscard]] auto since(std::size_t& cursor) const -> std::vector<std::string>;
  /// Faults caught in all (including those not kept).
  [[nodiscard]] auto count() const -> std::size_t;

 private:
  static constexpr std::size_t kKept = 64;
  mutable std::mutex mutex_;
  std::vector<std::string> texts_;
  std::size_t count_ = 0;
};

/// The process-wide fault log of guarded_run.
[[nodiscard]] auto thread_faults() -> FaultLog&;

namespace detail {
/// Books "<name> stopped: <what>" in `fault` (when not null) and in thread_faults(). Never throws.
void record_fault(std::string_view name, const char* what, ThreadFault* fault) noexcept;
}  // namespace detail

/// Runs `body()` (a thread's whole body) and returns true when it returned. When it throws, catches the
/// exception (std::exception: its what(); anything else: "an exception that is not a std::exception"),
/// records "<name> stopped: <what>" in `fault` (may be null) and in thread_faults(), and returns false.
/// Never throws, so std::terminate is never reached from the thread. `name` is a lowercase phrase naming the
/// thread's job ("process refresh", "the sampling thread").
template <class Body>
auto guarded_run(std::string_view name, Body&& body, ThreadFault* fault = nullptr) noexcept -> bool {
  try {
    std::forward<Body>(body)();
    return true;
  } catch (const std::exception& e) {
    detail::record_fault(name, e.what(), fault);
  } catch (...) {
    detail::record_fault(name, "an exception that is not a std::exception", fault);
  }
  return false;
}

}  // namespace solscope::core
