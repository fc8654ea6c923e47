// CUPTI activity buffer -> kernel-wire records (see activity_parse.hpp).
#include "inject/detail/activity_parse.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace solscope::inject {

auto demangle(const char* name) -> std::string {
  if (name == nullptr) {
    return {};
  }
  if (std::strncmp(name, "_Z", 2) != 0) {
    return name;
  }
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string result = (status == 0 && out != nullptr) ? std::string(out) : std::string(name);
  std::free(out);  // NOLINT(cppcoreguidelines-no-malloc): __cxa_demangle's buffer is malloc'ed
  return result;
}

auto NameCache::demangled(const char* name) -> const std::string& {
  auto it = names_.find(name);
  if (it != names_.end()) {
    return it->second;
  }
  if (names_.size() >= max_entries_) {
    names_.clear();
  }
  return names_.emplace(name, demangle(name)).first->second;
}

namespace {

void fill_kernel(const CUpti_ActivityKernel10& r, const std::string& name, Kernel& k) {
  k.start_cupti_ns = r.start;
  k.end_cupti_ns = r.end;
  k.correlation = r.correlationId;
  k.cuda_device = r.deviceId;
  k.stream = r.streamId;
  k.grid = {static_cast<std::uint32_t>(r.gridX), static_cast<std::uint32_t>(r.gridY),
            static_cast<std::uint32_t>(r.gridZ)};
  k.block = {static_cast<std::uint32_t>(r.blockX), static_cast<std::uint32_t>(r.blockY),
             static_cast<std::uint32_t>(r.blockZ)};
  k.name.assign(name, 0, std::min(name.size(), kKernelNameMaxBytes + 4));  // the encoder cuts on a boundary
}

/// `text` (NULL = "") copied up to kKernelNameMaxBytes + 4 bytes: the encoder cuts on a character boundary.
void copy_text(const char* text, std::string& out) {
  out.assign(text != nullptr ? text : "", text != nullptr ? ::strnlen(text, kKernelNameMaxBytes + 4) : 0);
}

auto thread_of(const CUpti_ActivityMarker2& r) -> std::uint32_t {
  return r.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? r.objectId.pt.threadId : 0;
}

auto to_device(const CUpti_ActivityDevice5& r) -> Device {
  Device d;
  d.cuda_device = r.id;
  std::memcpy(d.uuid.data(), r.uuid.bytes, d.uuid.size());
  return d;
}

}  // namespace

auto MarkerPairs::depth_of(std::uint32_t tid) const -> std::uint32_t {
  const auto it = depth_.find(tid);
  return it != depth_.end() ? it->second : 0;
}

void MarkerPairs::start(const CUpti_ActivityMarker2& r, std::uint32_t tid) {
  const std::uint32_t depth = depth_of(tid);
  if (open_.contains(r.id)) {  // an id CUPTI reused while open: not a range of its own
    ++dropped_;
    return;
  }
  // A range dropped at the cap still nests: the thread's depth counts it until its END, so that the ranges
  // inside it keep their true depth.
  ++depth_[tid];
  if (open_.size() >= max_open_) {
    ++dropped_;
    return;
  }
  Open& o = open_[r.id];
  o.start_ns = r.timestamp;
  o.tid = tid;
  o.depth = depth;
  copy_text(r.domain, o.domain);
  copy_text(r.name, o.name);
}

void MarkerPairs::leave(std::uint32_t tid) {
  if (auto d = depth_.find(tid); d != depth_.end() && --d->second == 0) {
    depth_.erase(d);
  }
}

auto MarkerPairs::end(const CUpti_ActivityMarker2& r, RecordSink& sink) -> std::size_t {
  const auto it = open_.find(r.id);
  if (it == open_.end()) {
    ++unmatched_;
    leave(thread_of(r));  // a push/pop range ends on the thread that started it
    return 0;
  }
  Open& o = it->second;
  leave(o.tid);
  auto& m = std::get<Marker>(body_);
  m.start_cupti_ns = o.start_ns;
  m.end_cupti_ns = std::max(o.start_ns, r.timestamp);  // a clock read out of order never makes end < start
  m.tid = o.tid;
  m.depth = o.depth;
  m.domain.swap(o.domain);
  m.name.swap(o.name);
  open_.erase(it);
  sink.on_record(body_);
  return 1;
}

auto MarkerPairs::take(const CUpti_ActivityMarker2& r, RecordSink& sink) -> std::size_t {
  if (r.timestamp == 0) {
    ++untimed_;
    return 0;
  }
  const std::uint32_t tid = thread_of(r);
  if ((r.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0) {
    start(r, tid);
    return 0;
  }
  if ((r.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) != 0) {
    return end(r, sink);
  }
  if ((r.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) == 0) {
    return 0;  // a synchronisation marker (SYNC_ACQUIRE ...): not a range or a mark
  }
  auto& m = std::get<Marker>(body_);
  m.start_cupti_ns = r.timestamp;
  m.end_cupti_ns = r.timestamp;
  m.tid = tid;
  m.depth = depth_of(tid);
  copy_text(r.domain, m.domain);
  copy_text(r.name, m.name);
  sink.on_record(body_);
  return 1;
}

auto parse_activity_buffer(std::uint8_t* buffer, std::size_t valid_bytes, NextRecordFn next, NameCache& names,
                           RecordSink& sink, MarkerPairs* markers) -> ParseCounts {
  ParseCounts counts;
  if (buffer == nullptr || valid_bytes == 0 || next == nullptr) {
    return counts;
  }
  RecordBody body{Kernel{}};  // reused: the name's storage survives from record to record
  CUpti_Activity* record = nullptr;
  for (;;) {
    const CUptiResult rc = next(buffer, valid_bytes, &record);
    if (rc != CUPTI_SUCCESS || record == nullptr) {
      counts.stop = rc;
      return counts;
    }
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto& r = *reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        if (r.start == 0 && r.end == 0) {
          ++counts.untimed;
          break;
        }
        if (!std::holds_alternative<Kernel>(body)) {
          body = Kernel{};
        }
        fill_kernel(r, names.demangled(r.name), std::get<Kernel>(body));
        sink.on_record(body);
        ++counts.kernels;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MARKER:
        if (markers == nullptr) {
          ++counts.other;
          break;
        }
        counts.markers += markers->take(*reinterpret_cast<const CUpti_ActivityMarker2*>(record), sink);
        break;
      case CUPTI_ACTIVITY_KIND_DEVICE:
        body = to_device(*reinterpret_cast<const CUpti_ActivityDevice5*>(record));
        sink.on_record(body);
        ++counts.devices;
        break;
      default:
        ++counts.other;
        break;
    }
  }
}

}  // namespace solscope::inject
