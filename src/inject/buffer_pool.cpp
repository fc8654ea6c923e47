// Bounded activity-buffer pool (see buffer_pool.hpp).
#include "inject/detail/buffer_pool.hpp"

#include <cstdlib>

namespace solscope::inject {

namespace {
constexpr std::size_t kAlignment = 8;  // ACTIVITY_RECORD_ALIGNMENT, cupti_common.h
}

BufferPool::BufferPool(std::size_t buffer_bytes, std::size_t max_buffers)
    : buffer_bytes_((buffer_bytes + kAlignment - 1) / kAlignment * kAlignment), max_buffers_(max_buffers) {
  free_.reserve(max_buffers);  // release() never allocates
}

BufferPool::~BufferPool() {
  for (auto* b : free_) {
    std::free(b);  // NOLINT(cppcoreguidelines-no-malloc): from std::aligned_alloc
  }
}

auto BufferPool::acquire() -> std::uint8_t* {
  const std::lock_guard lock(mutex_);
  if (!free_.empty()) {
    auto* b = free_.back();
    free_.pop_back();
    return b;
  }
  if (allocated_ >= max_buffers_) {
    return nullptr;
  }
  auto* b = static_cast<std::uint8_t*>(std::aligned_alloc(kAlignment, buffer_bytes_));
  if (b != nullptr) {
    ++allocated_;
  }
  return b;
}

void BufferPool::release(std::uint8_t* buffer) {
  if (buffer == nullptr) {
    return;
  }
  const std::lock_guard lock(mutex_);
  free_.push_back(buffer);
}

auto BufferPool::outstanding() const -> std::size_t {
  const std::lock_guard lock(mutex_);
  return allocated_ - free_.size();
}

}  // namespace solscope::inject
