// The threads that serve connections (private to src/server): cpp-httplib holds one thread per open
// connection, so the pool grows on demand up to a bound instead of queueing a probe behind slow clients.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace solscope::server::detail {

/// A cpp-httplib task queue: a job runs at once on an idle thread, or on a new one while fewer than
/// `max_threads` exist; beyond that it waits for a thread. Threads, once started, stay until shutdown().
class ConnectionPool final : public httplib::TaskQueue {
 public:
  /// `max_threads` >= 1: the most connections served at once.
  explicit ConnectionPool(std::size_t max_threads);
  ConnectionPool(const ConnectionPool&) = delete;
  auto operator=(const ConnectionPool&) -> ConnectionPool& = delete;
  ~ConnectionPool() override;

  void enqueue(std::function<void()> fn) override;
  /// Runs the jobs still queued, then joins every thread. Idempotent.
  void shutdown() override;

 private:
  void work();

  const std::size_t max_threads_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool shutdown_ = false;
};

}  // namespace solscope::server::detail
