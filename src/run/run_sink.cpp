#include "run/run_sink.hpp"

namespace solscope::app {

void RunTraceSink::use_device(std::uint32_t device) {
  const std::lock_guard lock(mutex_);
  used_.insert(device);
}

void RunTraceSink::stop_filtering() {
  const std::lock_guard lock(mutex_);
  filter_ = false;
}

auto RunTraceSink::written_devices() const -> std::set<std::uint32_t> {
  const std::lock_guard lock(mutex_);
  return written_;
}

auto RunTraceSink::used_devices() const -> std::set<std::uint32_t> {
  const std::lock_guard lock(mutex_);
  std::set<std::uint32_t> out = used_;
  out.insert(written_.begin(), written_.end());
  return out;
}

auto RunTraceSink::left_out_samples() const -> std::uint64_t {
  const std::lock_guard lock(mutex_);
  std::uint64_t waiting = 0;
  for (const auto& [device, queue] : backlog_) waiting += queue.size();
  return left_out_ + waiting;
}

auto RunTraceSink::begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> {
  for (const core::DeviceInfo& d : devices) devices_[d.index] = d;
  return core::ok();
}

auto RunTraceSink::claim_locked(std::uint32_t device) -> Claim {
  if (written_.contains(device)) return Claim::Written;
  if (filter_ && !used_.contains(device)) return Claim::Held;
  written_.insert(device);
  return Claim::First;
}

auto RunTraceSink::write_backlog(std::uint32_t device) -> core::Result<void> {
  std::vector<core::DeviceInfo> row;
  if (auto it = devices_.find(device); it != devices_.end()) row.push_back(it->second);
  // One writer lock for the whole backlog. mutex_ is taken inside it; no path takes them the other way round.
  return writer_.with([&](trace::Writer& w) -> core::Result<void> {
    if (auto done = w.write_devices(row); !done) return done;
    std::deque<Pending> queue;
    {
      const std::lock_guard lock(mutex_);
      auto it = backlog_.find(device);
      if (it == backlog_.end()) return core::ok();
      queue = std::move(it->second);
      backlog_.erase(it);
    }
    for (const auto& [raw, sol] : queue) {
      if (auto appended = w.append(raw, sol); !appended) return appended;
    }
    return core::ok();
  });
}

auto RunTraceSink::on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> {
  const std::uint32_t device = raw.device_index;
  bool first = false;
  {
    const std::lock_guard lock(mutex_);  // once per sample: the claim and, when held, the backlog
    const Claim claim = claim_locked(device);
    if (claim == Claim::Held) {
      std::deque<Pending>& queue = backlog_[device];
      if (queue.size() >= kRunBacklogSamples) {
        queue.pop_front();
        ++left_out_;
      }
      queue.emplace_back(raw, sol);
      return core::ok();
    }
    first = claim == Claim::First;
  }
  if (first) {
    if (auto done = write_backlog(device); !done) return done;
  }
  return writer_.with([&](trace::Writer& w) { return w.append(raw, sol); });
}

auto RunTraceSink::write_late_backlogs() -> core::Result<void> {
  std::vector<std::uint32_t> late;
  {
    const std::lock_guard lock(mutex_);
    for (const auto& [device, queue] : backlog_) {
      if (!queue.empty() && (!filter_ || used_.contains(device))) late.push_back(device);
    }
  }
  for (const std::uint32_t device : late) {
    {
      const std::lock_guard lock(mutex_);
      if (claim_locked(device) == Claim::Held) continue;
    }
    if (auto done = write_backlog(device); !done) return done;
  }
  return core::ok();
}

auto RunTraceSink::flush() -> core::Result<void> {
  return core::ok();  // the writer commits by its own batching; close() commits the rest
}

}  // namespace solscope::app
