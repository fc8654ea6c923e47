#include "server/detail/connection_pool.hpp"

#include <algorithm>

namespace solscope::server::detail {

ConnectionPool::ConnectionPool(std::size_t max_threads)
    : max_threads_(std::max<std::size_t>(max_threads, 1)) {}

ConnectionPool::~ConnectionPool() {
  shutdown();
}

void ConnectionPool::enqueue(std::function<void()> fn) {
  {
    const std::scoped_lock lock(mutex_);
    jobs_.push_back(std::move(fn));
    // A thread is started only when no idle one will take the job.
    if (idle_ < jobs_.size() && threads_.size() < max_threads_) {
      threads_.emplace_back([this] { work(); });
      return;
    }
  }
  ready_.notify_one();
}

void ConnectionPool::shutdown() {
  std::vector<std::thread> threads;
  {
    const std::scoped_lock lock(mutex_);
    shutdown_ = true;
    threads.swap(threads_);
  }
  ready_.notify_all();
  for (auto& t : threads) t.join();
}

void ConnectionPool::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++idle_;
    ready_.wait(lock, [this] { return !jobs_.empty() || shutdown_; });
    --idle_;
    if (jobs_.empty()) return;  // shut down with nothing left to run
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    job = nullptr;
    lock.lock();
  }
}

}  // namespace solscope::server::detail
