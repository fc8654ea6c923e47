#include "run/run_kernels.hpp"

#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <type_traits>
#include <variant>

namespace solscope::app {

auto KernelRecordMapper::map(const inject::WireRecord& record) -> std::optional<KernelLogRecord> {
  Process& p = per_pid_[record.pid];
  return std::visit(
      [&](const auto& body) -> std::optional<KernelLogRecord> {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, inject::Clock>) {
          p.offset_ns = body.realtime_ns - static_cast<std::int64_t>(body.cupti_ns);
          offset_ns_ = p.offset_ns;
        } else if constexpr (std::is_same_v<T, inject::Device>) {
          const auto it = uuids_.find(inject::gpu_uuid_string(body.uuid));
          if (it != uuids_.end()) {
            p.nvml_of_cuda[body.cuda_device] = it->second;
          } else {
            p.unknown_cuda.insert(body.cuda_device);
          }
        } else if constexpr (std::is_same_v<T, inject::Dropped>) {
          p.dropped = body;
        } else if constexpr (std::is_same_v<T, inject::Kernel>) {
          const auto device = p.nvml_of_cuda.find(body.cuda_device);
          if (!p.offset_ns || device == p.nvml_of_cuda.end()) {
            ++unmapped_;
            return std::nullopt;
          }
          return inject::to_kernel_record(body, record.pid, device->second, *p.offset_ns);
        } else if constexpr (std::is_same_v<T, inject::Marker>) {
          if (!p.offset_ns) {
            ++unmapped_markers_;
            return std::nullopt;
          }
          return inject::to_marker_record(body, record.pid, *p.offset_ns);
        }
        return std::nullopt;
      },
      record.body);
}

auto KernelRecordMapper::dropped_by_job() const -> std::uint64_t {
  std::uint64_t total = 0;
  for (const auto& [pid, p] : per_pid_) total += p.dropped.pipe_full + p.dropped.by_cupti;
  return total;
}

KernelLog::KernelLog(int read_fd, GpuUuidIndex uuids, SharedWriter& writer,
                     std::function<void(std::uint32_t)> on_device, std::size_t queue_records)
    : fd_(read_fd),
      mapper_(std::move(uuids)),
      writer_(writer),
      on_device_(std::move(on_device)),
      queue_(queue_records, core::Overflow::DropOldest) {}

KernelLog::~KernelLog() {
  (void)finish(0);
}

void KernelLog::start() {
  reader_ = std::thread([this] {
    if (core::guarded_run(
            "the kernel log's pipe reader", [this] { read_loop(); }, &reader_fault_))
      return;
    queue_.close();  // the writer still writes what was queued, then ends
  });
  // After a fault of the writer the reader goes on: its queue drops the oldest records (counted), never
  // blocking the pipe.
  writer_thread_ = std::thread([this] {
    (void)core::guarded_run(
        "the kernel log's trace writer", [this] { write_loop(); }, &writer_fault_);
  });
}

void KernelLog::read_loop() {
  std::array<std::uint8_t, 65536> buffer{};
  std::vector<inject::WireRecord> records;
  const auto queue_kernels = [&] {
    for (const inject::WireRecord& r : records) {
      if (auto mapped = mapper_.map(r)) (void)queue_.push(std::move(*mapped));
    }
    records.clear();
  };
  while (!stop_.load()) {
    pollfd pfd{fd_, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, 50);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t got = ::read(fd_, buffer.data(), buffer.size());
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) break;  // end of file: every process of the job closed the pipe
    decoder_.feed(std::span(buffer.data(), static_cast<std::size_t>(got)), records);
    queue_kernels();
  }
  (void)decoder_.finish(records);
  queue_kernels();
  eof_.store(true);
  queue_.close();
}

void KernelLog::write_loop() {
  std::vector<KernelLogRecord> batch;
  std::vector<core::KernelRecord> kernels;
  std::vector<core::MarkerRecord> markers;
  std::set<std::uint32_t> seen;
  while (queue_.pop_all(batch)) {
    if (error_) continue;  // drain and discard after a failed append
    kernels.clear();
    markers.clear();
    for (KernelLogRecord& r : batch) {
      if (auto* k = std::get_if<core::KernelRecord>(&r)) {
        kernels.push_back(std::move(*k));
      } else {
        markers.push_back(std::move(std::get<core::MarkerRecord>(r)));
      }
    }
    auto done = writer_.with([&](trace::Writer& w) {
      auto appended = w.append_kernels(kernels);
      if (appended && !markers.empty()) appended = w.append_markers(markers);
      return appended;
    });
    if (!done) {
      error_ = done.error();
      continue;
    }
    written_ += kernels.size();
    markers_written_ += markers.size();
    for (const core::KernelRecord& k : kernels) {
      if (seen.insert(k.device).second && on_device_) on_device_(k.device);
    }
  }
}

void KernelLog::keep_fault(const core::ThreadFault& fault) {
  if (!error_ && fault.failed()) {
    error_ = core::Error{core::ErrorCode::Internal, fault.text(),
                         "this is a bug in solscope: please report it with the command line"};
  }
}

auto KernelLog::finish(std::int64_t grace_ms) -> KernelLogCounts {
  if (!finished_ && reader_.joinable()) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
    while (!eof_.load() && !reader_fault_.failed() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    stop_.store(true);
    reader_.join();
    writer_thread_.join();
    keep_fault(reader_fault_);
    keep_fault(writer_fault_);
  }
  if (!finished_) {
    finished_ = true;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  KernelLogCounts counts;
  counts.written = written_;
  counts.markers_written = markers_written_;
  counts.unmapped_markers = mapper_.unmapped_markers();
  counts.dropped_by_job = mapper_.dropped_by_job();
  counts.dropped_here = queue_.counters().dropped;
  counts.unmapped = mapper_.unmapped();
  counts.clock_offset_ns = mapper_.clock_offset_ns();
  counts.processes = mapper_.processes();
  counts.wire_problem = decoder_.first_error();
  return counts;
}

}  // namespace solscope::app
