// Bounded pool of CUPTI activity buffers: at most `max_buffers` of `buffer_bytes` each exist at once,
// recycled after CUPTI hands them back. When all are out, acquire() gives null and CUPTI drops records (and
// counts them), so the injection library's memory stays bounded whatever the kernel rate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace solscope::inject {

class BufferPool {
 public:
  /// `buffer_bytes` is rounded up to a multiple of 8 (CUPTI's ACTIVITY_RECORD_ALIGNMENT).
  BufferPool(std::size_t buffer_bytes, std::size_t max_buffers);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  auto operator=(const BufferPool&) -> BufferPool& = delete;

  /// An 8-byte aligned buffer of buffer_bytes(), or null when max_buffers are out (or memory ran out).
  [[nodiscard]] auto acquire() -> std::uint8_t*;
  /// Returns a buffer from acquire() to the pool.
  void release(std::uint8_t* buffer);
  [[nodiscard]] auto buffer_bytes() const -> std::size_t { return buffer_bytes_; }
  [[nodiscard]] auto outstanding() const -> std::size_t;

 private:
  std::size_t buffer_bytes_;
  std::size_t max_buffers_;
  mutable std::mutex mutex_;
  std::vector<std::uint8_t*> free_;
  std::size_t allocated_ = 0;
};

}  // namespace solscope::inject
