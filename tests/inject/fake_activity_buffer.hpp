// A synthetic CUPTI activity buffer built from the real record structs of cupti_activity.h, and a fake
// cuptiActivityGetNextRecord that walks it as the header documents: records back to back from the buffer's
// start, CUPTI_SUCCESS for each, CUPTI_ERROR_MAX_LIMIT_REACHED after the last valid byte,
// CUPTI_ERROR_INVALID_KIND for a record of an unknown kind or one cut short by the valid size. SYNTHETIC: no
// GPU produced these records.
#pragma once

#include <cupti_activity.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace solscope::inject::test {

/// Size of the record struct of `kind`, 0 for kinds the fake does not know.
inline auto record_bytes(CUpti_ActivityKind kind) -> std::size_t {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_DEVICE:
      return sizeof(CUpti_ActivityDevice5);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MARKER:
      return sizeof(CUpti_ActivityMarker2);
    default:
      return 0;
  }
}

/// The fake cuptiActivityGetNextRecord (same signature).
inline auto fake_next_record(std::uint8_t* buffer, std::size_t valid_bytes, CUpti_Activity** record)
    -> CUptiResult {
  if (buffer == nullptr || record == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  std::size_t offset = 0;
  if (*record != nullptr) {
    offset = static_cast<std::size_t>(reinterpret_cast<std::uint8_t*>(*record) - buffer) +
             record_bytes((*record)->kind);
  }
  if (offset >= valid_bytes) {
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  }
  auto* next = reinterpret_cast<CUpti_Activity*>(buffer + offset);
  const std::size_t size = record_bytes(next->kind);
  if (size == 0 || offset + size > valid_bytes) {
    return CUPTI_ERROR_INVALID_KIND;
  }
  *record = next;
  return CUPTI_SUCCESS;
}

/// An 8-byte aligned buffer (ACTIVITY_RECORD_ALIGNMENT) that records are appended to.
class ActivityBuffer {
 public:
  template <class Record>
  void add(const Record& r) {
    const std::size_t at = used_;
    used_ += sizeof(Record);
    storage_.resize((used_ + 7) / 8);
    std::memcpy(bytes() + at, &r, sizeof(Record));
  }
  [[nodiscard]] auto bytes() -> std::uint8_t* { return reinterpret_cast<std::uint8_t*>(storage_.data()); }
  [[nodiscard]] auto size() const -> std::size_t { return used_; }

 private:
  std::vector<std::uint64_t> storage_;
  std::size_t used_ = 0;
};

/// A concurrent-kernel record with every field solscope reads set; `name` must outlive the buffer's use.
inline auto kernel_record(const char* name, std::uint64_t start, std::uint64_t end, std::uint32_t device = 0)
    -> CUpti_ActivityKernel10 {
  CUpti_ActivityKernel10 r{};
  r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  r.start = start;
  r.end = end;
  r.deviceId = device;
  r.contextId = 1;
  r.streamId = 7;
  r.gridX = 1024;
  r.gridY = 4;
  r.gridZ = 1;
  r.blockX = 128;
  r.blockY = 2;
  r.blockZ = 1;
  r.correlationId = 99;
  r.name = name;
  return r;
}

/// A device record for CUDA device `id` whose UUID bytes are `first`, first + 1, ...
inline auto device_record(std::uint32_t id, std::uint8_t first) -> CUpti_ActivityDevice5 {
  CUpti_ActivityDevice5 r{};
  r.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  r.id = id;
  for (std::size_t i = 0; i < sizeof(r.uuid.bytes); ++i) {
    r.uuid.bytes[i] = static_cast<char>(first + i);
  }
  r.name = "NVIDIA H100 80GB HBM3";
  return r;
}

/// One CUPTI_ACTIVITY_KIND_MARKER record of thread `tid` (objectKind THREAD, as CUPTI gives NVTX markers of
/// a thread); `name` and `domain` (NULL = the default domain) must outlive the buffer's use.
inline auto marker_record(CUpti_ActivityFlag flags, std::uint32_t id, std::uint64_t timestamp,
                          std::uint32_t tid, const char* name, const char* domain = nullptr)
    -> CUpti_ActivityMarker2 {
  CUpti_ActivityMarker2 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MARKER;
  r.flags = flags;
  r.timestamp = timestamp;
  r.id = id;
  r.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  r.objectId.pt.processId = 4242;
  r.objectId.pt.threadId = tid;
  r.name = name;
  r.domain = domain;
  return r;
}

/// What CUPTI records for nvtxRangePush at `start` (or nvtxDomainRangePushEx in `domain`): a START record
/// carrying the name and domain.
inline auto push_record(std::uint32_t id, std::uint64_t start, std::uint32_t tid, const char* name,
                        const char* domain = nullptr) -> CUpti_ActivityMarker2 {
  return marker_record(CUPTI_ACTIVITY_FLAG_MARKER_START, id, start, tid, name, domain);
}

/// ... and for its nvtxRangePop at `end`: an END record with the same id, its name NULL (cupti_activity.h:
/// "The marker name for an instantaneous or start marker. This will be NULL for an end marker"); the domain
/// stays.
inline auto pop_record(std::uint32_t id, std::uint64_t end, std::uint32_t tid, const char* domain = nullptr)
    -> CUpti_ActivityMarker2 {
  return marker_record(CUPTI_ACTIVITY_FLAG_MARKER_END, id, end, tid, nullptr, domain);
}

/// What CUPTI records for nvtxMarkA / nvtxDomainMarkEx: one INSTANTANEOUS record.
inline auto mark_record(std::uint32_t id, std::uint64_t at, std::uint32_t tid, const char* name,
                        const char* domain = nullptr) -> CUpti_ActivityMarker2 {
  return marker_record(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, id, at, tid, name, domain);
}

}  // namespace solscope::inject::test
