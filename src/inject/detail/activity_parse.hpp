// Turning a CUPTI activity buffer into kernel-wire records: the pure part of the injection library, tested on
// synthetic buffers of real CUPTI record structs (tests/inject/activity_parse_test.cpp).
//
// Record layouts: CUpti_ActivityKernel10 (CUPTI_ACTIVITY_KIND_KERNEL and _CONCURRENT_KERNEL) and
// CUpti_ActivityDevice5 (CUPTI_ACTIVITY_KIND_DEVICE), cupti_activity.h of CUDA 13.0. The fields read here sit
// at the same offsets in CUDA 12's CUpti_ActivityKernel9 and CUpti_ActivityDevice4 (checked in the tests).
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

/// What one buffer held.
struct ParseCounts {
  std::size_t kernels = 0;  ///< kernel records passed on
  std::size_t devices = 0;  ///< device records passed on
  std::size_t untimed = 0;  ///< kernel records without timestamps (start and end 0), not passed on
  std::size_t other = 0;    ///< records of other kinds, ignored
  CUptiResult stop =
      CUPTI_ERROR_MAX_LIMIT_REACHED;  ///< the code that ended the walk (MAX_LIMIT_REACHED = clean)
};

/// Walks `valid_bytes` of `buffer` with `next` (cuptiActivityGetNextRecord or a fake) and hands a wire record
/// to `sink` for every timed kernel and every device. Never throws; a walk that ends on an error keeps what
/// it read.
auto parse_activity_buffer(std::uint8_t* buffer, std::size_t valid_bytes, NextRecordFn next, NameCache& names,
                           RecordSink& sink) -> ParseCounts;

}  // namespace solscope::inject
