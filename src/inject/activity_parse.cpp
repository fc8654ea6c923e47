// CUPTI activity buffer -> kernel-wire records (see activity_parse.hpp).
#include "inject/detail/activity_parse.hpp"

#include <cxxabi.h>

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

auto to_device(const CUpti_ActivityDevice5& r) -> Device {
  Device d;
  d.cuda_device = r.id;
  std::memcpy(d.uuid.data(), r.uuid.bytes, d.uuid.size());
  return d;
}

}  // namespace

auto parse_activity_buffer(std::uint8_t* buffer, std::size_t valid_bytes, NextRecordFn next, NameCache& names,
                           RecordSink& sink) -> ParseCounts {
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
