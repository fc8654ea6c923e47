// BoundedQueue: a thread-safe FIFO of at most `capacity` items between one producer (the sampling thread) and
// one consumer (a sink's thread), with one of two overflow policies:
//   - DropOldest (live views): a push into a full queue drops the oldest unread item and counts it; the
//     producer never waits;
//   - Wait (recordings): a push into a full queue waits until the consumer makes room (back-pressure);
//   nothing
//     is dropped, and the pushes that had to wait are counted so that the owner can say so.
// close() ends the queue: waiting pushes return at once, and the consumer gets what is left, then the end.
// Pure: standard library only (mutex and condition variable), no clock and no I/O.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

namespace solscope::core {

/// What a full queue does with a new item.
enum class Overflow {
  DropOldest,  ///< drop the oldest unread item (counted in QueueCounters::dropped); never wait
  Wait,        ///< wait until the consumer makes room (counted in QueueCounters::waits); never drop
};

/// How a push went.
enum class PushResult {
  Queued,               ///< queued at once
  QueuedAfterWait,      ///< Wait policy: queued after the producer waited for room
  QueuedDroppedOldest,  ///< DropOldest policy: queued, and the oldest unread item was dropped to make room
  Closed,               ///< the queue is closed: the item was not queued
};

/// Totals since construction (items, not bytes).
struct QueueCounters {
  std::uint64_t pushed = 0;    ///< items queued
  std::uint64_t dropped = 0;   ///< items dropped unread (DropOldest only)
  std::uint64_t waits = 0;     ///< pushes that had to wait for room (Wait only)
  std::size_t high_water = 0;  ///< the most items queued at once (<= capacity)
};

/// A bounded FIFO for one producer and one consumer thread (more of each are safe, only the order between
/// producers is unspecified). Every member is thread-safe.
template <class T>
class BoundedQueue {
 public:
  /// `capacity` items at most (a capacity of 0 counts as 1).
  BoundedQueue(std::size_t capacity, Overflow overflow)
      : capacity_(std::max<std::size_t>(capacity, 1)), overflow_(overflow) {}
  BoundedQueue(const BoundedQueue&) = delete;
  auto operator=(const BoundedQueue&) -> BoundedQueue& = delete;

  /// Queues `item`. DropOldest never blocks; Wait blocks while the queue is full and not closed. Closed when
  /// close() was called (before or while waiting): `item` is not queued.
  auto push(T item) -> PushResult {
    std::unique_lock lock(mutex_);
    if (closed_) return PushResult::Closed;
    PushResult result = PushResult::Queued;
    if (items_.size() >= capacity_) {
      if (overflow_ == Overflow::DropOldest) {
        items_.pop_front();
        ++counters_.dropped;
        result = PushResult::QueuedDroppedOldest;
      } else {
        ++counters_.waits;
        room_.wait(lock, [this] { return closed_ || items_.size() < capacity_; });
        if (closed_) return PushResult::Closed;
        result = PushResult::QueuedAfterWait;
      }
    }
    items_.push_back(std::move(item));
    ++counters_.pushed;
    counters_.high_water = std::max(counters_.high_water, items_.size());
    lock.unlock();
    ready_.notify_one();
    return result;
  }

  /// Waits until at least one item is queued or the queue is closed, then moves every queued item, oldest
  /// first, into `out` (cleared first). False once the queue is closed and empty: the end.
  auto pop_all(std::vector<T>& out) -> bool {
    out.clear();
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return closed_ || !items_.empty(); });
    if (items_.empty()) return false;
    out.reserve(items_.size());
    for (auto& item : items_) out.push_back(std::move(item));
    items_.clear();
    lock.unlock();
    room_.notify_all();
    return true;
  }

  /// Ends the queue: later pushes return Closed, waiting ones return Closed at once, and pop_all() hands out
  /// what is left before it returns false. Idempotent.
  void close() {
    {
      const std::scoped_lock lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
    room_.notify_all();
  }

  /// Closes and discards every queued item unread (not counted as dropped: for a consumer that failed and
  /// reports its own error). Returns how many were discarded.
  auto abandon() -> std::size_t {
    std::size_t discarded = 0;
    {
      const std::scoped_lock lock(mutex_);
      discarded = items_.size();
      items_.clear();
      closed_ = true;
    }
    ready_.notify_all();
    room_.notify_all();
    return discarded;
  }

  [[nodiscard]] auto counters() const -> QueueCounters {
    const std::scoped_lock lock(mutex_);
    return counters_;
  }
  [[nodiscard]] auto size() const -> std::size_t {
    const std::scoped_lock lock(mutex_);
    return items_.size();
  }
  [[nodiscard]] auto capacity() const -> std::size_t { return capacity_; }
  [[nodiscard]] auto overflow() const -> Overflow { return overflow_; }

 private:
  const std::size_t capacity_;
  const Overflow overflow_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;  ///< an item was queued, or the queue closed
  std::condition_variable room_;   ///< the consumer made room, or the queue closed
  std::deque<T> items_;
  QueueCounters counters_;
  bool closed_ = false;
};

}  // namespace solscope::core
