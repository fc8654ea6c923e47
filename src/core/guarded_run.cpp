#include "core/guarded_run.hpp"

#include <algorithm>

namespace solscope::core {

void ThreadFault::set(std::string text) {
  const std::scoped_lock lock(mutex_);
  if (text_.empty()) text_ = std::move(text);
}

auto ThreadFault::text() const -> std::string {
  const std::scoped_lock lock(mutex_);
  return text_;
}

auto ThreadFault::failed() const -> bool {
  const std::scoped_lock lock(mutex_);
  return !text_.empty();
}

void FaultLog::add(std::string text) {
  const std::scoped_lock lock(mutex_);
  ++count_;
  if (texts_.size() < kKept) texts_.push_back(std::move(text));
}

auto FaultLog::since(std::size_t& cursor) const -> std::vector<std::string> {
  const std::scoped_lock lock(mutex_);
  std::vector<std::string> out;
  for (std::size_t i = cursor; i < texts_.size(); ++i) out.push_back(texts_[i]);
  cursor = std::max(cursor, texts_.size());
  return out;
}

auto FaultLog::count() const -> std::size_t {
  const std::scoped_lock lock(mutex_);
  return count_;
}

auto thread_faults() -> FaultLog& {
  static FaultLog log;
  return log;
}

namespace detail {

void record_fault(std::string_view name, const char* what, ThreadFault* fault) noexcept {
  try {
    std::string text = std::string(name) + " stopped: " + (what != nullptr ? what : "");
    if (fault != nullptr) fault->set(text);
    thread_faults().add(std::move(text));
  } catch (...) {  // out of memory while booking: the thread still ends without terminating the process
  }
}

}  // namespace detail
}  // namespace solscope::core
