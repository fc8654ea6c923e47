#include "server/detail/event_stream.hpp"

#include <algorithm>
#include <utility>

namespace solscope::server {

StreamClient::StreamClient(std::size_t capacity, std::optional<std::uint32_t> device)
    : capacity_(std::max<std::size_t>(capacity, 1)), device_(device) {}

void StreamClient::push(const std::shared_ptr<const StreamEvent>& event) {
  if (device_ && event->device != *device_) return;
  {
    const std::scoped_lock lock(mutex_);
    if (closed_) return;
    if (queue_.size() >= capacity_) {
      queue_.pop_front();
      ++dropped_;
      ++dropped_total_;
    }
    queue_.push_back(event);
  }
  ready_.notify_one();
}

auto StreamClient::take(std::chrono::milliseconds timeout) -> StreamBatch {
  std::unique_lock lock(mutex_);
  ready_.wait_for(lock, timeout, [this] { return closed_ || !queue_.empty() || dropped_ > 0; });
  StreamBatch batch;
  batch.closed = closed_;
  batch.dropped = std::exchange(dropped_, 0);
  batch.events.assign(queue_.begin(), queue_.end());
  queue_.clear();
  return batch;
}

void StreamClient::close() {
  {
    const std::scoped_lock lock(mutex_);
    closed_ = true;
  }
  ready_.notify_all();
}

auto StreamClient::dropped_total() const -> std::uint64_t {
  const std::scoped_lock lock(mutex_);
  return dropped_total_;
}

StreamHub::StreamHub(std::size_t max_clients, std::size_t queue_events)
    : max_clients_(std::max<std::size_t>(max_clients, 1)),
      queue_events_(std::max<std::size_t>(queue_events, 1)) {}

auto StreamHub::connect(std::optional<std::uint32_t> device) -> std::shared_ptr<StreamClient> {
  const std::scoped_lock lock(mutex_);
  if (closed_ || clients_.size() >= max_clients_) {
    ++stats_.rejected;
    return nullptr;
  }
  auto client = std::make_shared<StreamClient>(queue_events_, device);
  clients_.push_back(client);
  // The caller's handle: releasing it removes the client from the hub. The hub must outlive every handle
  // (the server stops its HTTP threads before destroying the hub).
  return {client.get(), [this, client](StreamClient*) { disconnect(client.get()); }};
}

auto StreamHub::has_clients() const -> bool {
  const std::scoped_lock lock(mutex_);
  return !clients_.empty();
}

void StreamHub::publish(const std::shared_ptr<const StreamEvent>& event) {
  const std::scoped_lock lock(mutex_);
  for (const auto& client : clients_) client->push(event);
}

void StreamHub::close() {
  const std::scoped_lock lock(mutex_);
  closed_ = true;
  for (const auto& client : clients_) client->close();
}

auto StreamHub::stats() const -> StreamStats {
  const std::scoped_lock lock(mutex_);
  StreamStats s = stats_;
  s.clients = clients_.size();
  for (const auto& client : clients_) s.dropped_events += client->dropped_total();
  return s;
}

void StreamHub::disconnect(const StreamClient* client) {
  const std::scoped_lock lock(mutex_);
  const auto it =
      std::find_if(clients_.begin(), clients_.end(), [client](const auto& c) { return c.get() == client; });
  if (it == clients_.end()) return;
  stats_.dropped_events += (*it)->dropped_total();
  clients_.erase(it);
}

}  // namespace solscope::server
