// Turning a CUPTI activity buffer into kernel-wire records: the pure part of the injection library, tested on
// synthetic buffers of real CUPTI record structs (tests/inject/activity_parse_test.cpp).
//
// Record layouts: CUpti_ActivityKernel10 (CUPTI_ACTIVITY_KIND_KERNEL and _CONCURRENT_KERNEL),
// CUpti_ActivityDevice5 (CUPTI_ACTIVITY_KIND_DEVICE) and CUpti_ActivityMarker2 (CUPTI_ACTIVITY_KIND_MARKER),
// cupti_activity.h of CUDA 13.0. The fields read here sit at the same offsets in CUDA 12's
// CUpti_ActivityKernel9 and CUpti_ActivityDevice4 (checked in the tests); CUDA 12 has CUpti_ActivityMarker2
// too.
#pragma once

#include <cupti_activity.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "inject/kernel_wire.hpp"

namespace solscope::inject {

/// cuptiActivityGetNextRecord's signature: CUPTI_SUCCESS with the next record, CUPTI_ERROR_MAX_LIMIT_REACHED
/// at the end of the valid bytes, another code (CUPTI_ERROR_INVALID_KIND, ...) when the buffer cannot be
/// walked further.
using NextRecordFn = CUptiResult (*)(std::uint8_t* buffer, std::size_t valid_bytes, CUpti_Activity** record);

/// The demangled form of a kernel name (abi::__cxa_demangle), or the name itself when it is not a mangled C++
/// name (C kernels, PTX entry points); "" for null.
[[nodiscard]] auto demangle(const char* name) -> std::string;

/// Demangled kernel names keyed by CUPTI's name pointer, which CUPTI shares across every record of a kernel.
/// Bounded: it starts over after `max_entries` names.
class NameCache {
 public:
  explicit NameCache(std::size_t max_entries = 4096) : max_entries_(max_entries) {}
  [[nodiscard]] auto demangled(const char* name) -> const std::string&;
  [[nodiscard]] auto size() const -> std::size_t { return names_.size(); }

 private:
  std::size_t max_entries_;
  std::unordered_map<const char*, std::string> names_;
};

/// Receives each record parse_activity_buffer makes.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void on_record(const RecordBody& body) = 0;
};

/// Most NVTX ranges one process keeps open (a START record whose END has not come yet); a START beyond them
/// is dropped and counted (MarkerPairs::dropped), so that a job that pushes without popping cannot grow the
/// library's memory (each open range holds its name and domain, at most 2 x 516 bytes).
inline constexpr std::size_t kMaxOpenMarkers = 4096;

/// Pairs CUPTI's marker records into ranges, across buffers. CUPTI reports an NVTX range as two
/// CUpti_ActivityMarker2 records with one `id`: CUPTI_ACTIVITY_FLAG_MARKER_START (with the name and domain)
/// and CUPTI_ACTIVITY_FLAG_MARKER_END (name NULL); a mark as one record with
/// CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS [cupti_activity.h of CUDA 13.0, CUpti_ActivityMarker2 and
/// CUpti_ActivityFlag]. The domain is NULL for the default domain. A range is passed on at its END, with the
/// START's time, thread, name and domain and its nesting depth: the ranges of its thread open when it started
/// (every domain counted). A mark gets the depth of the ranges open around it. The thread is
/// objectId.pt.threadId when objectKind is CUPTI_ACTIVITY_OBJECT_THREAD, else 0. Not thread-safe (the
/// library calls it under its lock).
class MarkerPairs {
 public:
  explicit MarkerPairs(std::size_t max_open = kMaxOpenMarkers) : max_open_(max_open) {}
  /// Takes one marker record; passes a Marker to `sink` for an END whose START it holds and for a mark.
  /// Returns the Markers passed on (0 or 1).
  auto take(const CUpti_ActivityMarker2& record, RecordSink& sink) -> std::size_t;
  /// Ranges started and not yet ended.
  [[nodiscard]] auto open() const -> std::size_t { return open_.size(); }
  /// START records dropped because kMaxOpenMarkers ranges were open, or whose id was open already (their
  /// END is then unmatched).
  [[nodiscard]] auto dropped() const -> std::uint64_t { return dropped_; }
  /// END records with no START held (dropped, or started before the library enabled markers); the END's
  /// thread leaves one level of nesting.
  [[nodiscard]] auto unmatched() const -> std::uint64_t { return unmatched_; }
  /// Records without a timestamp (0: CUPTI could not collect it), not passed on.
  [[nodiscard]] auto untimed() const -> std::uint64_t { return untimed_; }

 private:
  struct Open {
    std::uint64_t start_ns = 0;
    std::uint32_t tid = 0;
    std::uint32_t depth = 0;
    std::string domain;
    std::string name;
  };
  void start(const CUpti_ActivityMarker2& record, std::uint32_t tid);
  auto end(const CUpti_ActivityMarker2& record, RecordSink& sink) -> std::size_t;
  /// One range of `tid` ended (its depth drops).
  void leave(std::uint32_t tid);
  /// Open ranges of `tid` (0 when none).
  [[nodiscard]] auto depth_of(std::uint32_t tid) const -> std::uint32_t;

  std::size_t max_open_;
  std::unordered_map<std::uint32_t, Open> open_;            ///< by CUPTI marker id
  std::unordered_map<std::uint32_t, std::uint32_t> depth_;  ///< open ranges per thread (none: absent)
  std::uint64_t dropped_ = 0;
  std::uint64_t unmatched_ = 0;
  std::uint64_t untimed_ = 0;
  RecordBody body_{Marker{}};  ///< reused, so that the texts' storage survives from marker to marker
};

/// What one buffer held.
struct ParseCounts {
  std::size_t kernels = 0;  ///< kernel records passed on
  std::size_t devices = 0;  ///< device records passed on
  std::size_t markers = 0;  ///< NVTX ranges and marks passed on (MarkerPairs)
  std::size_t untimed = 0;  ///< kernel records without timestamps (start and end 0), not passed on
  std::size_t other = 0;    ///< records of other kinds, ignored
  CUptiResult stop =
      CUPTI_ERROR_MAX_LIMIT_REACHED;  ///< the code that ended the walk (MAX_LIMIT_REACHED = clean)
};

/// Walks `valid_bytes` of `buffer` with `next` (cuptiActivityGetNextRecord or a fake) and hands a wire record
/// to `sink` for every timed kernel and every device, and, given `markers`, each NVTX range and mark it
/// pairs (without it marker records count as other). Never throws but for out of memory; a walk that ends
/// on an error keeps what it read.
auto parse_activity_buffer(std::uint8_t* buffer, std::size_t valid_bytes, NextRecordFn next, NameCache& names,
                           RecordSink& sink, MarkerPairs* markers = nullptr) -> ParseCounts;

}  // namespace solscope::inject
