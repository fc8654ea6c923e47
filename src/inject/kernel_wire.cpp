// The kernel wire's encoder and shared helpers (layout: docs/kernel-wire.md).
#include "inject/kernel_wire.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

#include "inject/detail/kernel_wire_detail.hpp"

namespace solscope::inject {

namespace {

class Writer {
 public:
  explicit Writer(std::uint8_t* at) : at_(at) {}
  template <class T>
  void put(T value) {
    static_assert(std::is_integral_v<T>);
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(at_, &value, sizeof(T));
      at_ += sizeof(T);
    } else {
      using U = std::make_unsigned_t<T>;
      auto bits = static_cast<U>(value);
      for (std::size_t i = 0; i < sizeof(T); ++i) {
        *at_++ = static_cast<std::uint8_t>(bits >> (8U * i));
      }
    }
  }
  void put_bytes(const void* data, std::size_t size) {
    if (size != 0) {
      std::memcpy(at_, data, size);
    }
    at_ += size;
  }

 private:
  std::uint8_t* at_;
};

void write_body(Writer& w, const Hello& r) {
  w.put(r.cuda_driver_version);
  w.put(r.cupti_api_version);
}
void write_body(Writer& w, const Device& r) {
  w.put(r.cuda_device);
  w.put_bytes(r.uuid.data(), r.uuid.size());
}
void write_body(Writer& w, const Clock& r) {
  w.put(r.cupti_ns);
  w.put(r.realtime_ns);
}
void write_body(Writer& w, const Kernel& r) {
  w.put(r.start_cupti_ns);
  w.put(r.end_cupti_ns);
  w.put(r.correlation);
  w.put(r.cuda_device);
  w.put(r.stream);
  for (auto v : r.grid) {
    w.put(v);
  }
  for (auto v : r.block) {
    w.put(v);
  }
  auto name = cut_utf8(r.name, kKernelNameMaxBytes);
  w.put(static_cast<std::uint16_t>(name.size()));
  w.put_bytes(name.data(), name.size());
}
void write_body(Writer& w, const Dropped& r) {
  w.put(r.pipe_full);
  w.put(r.by_cupti);
}
void write_body(Writer& w, const Marker& r) {
  w.put(r.start_cupti_ns);
  w.put(r.end_cupti_ns);
  w.put(r.tid);
  w.put(r.depth);
  const auto domain = cut_utf8(r.domain, kKernelNameMaxBytes);
  const auto name = cut_utf8(r.name, kKernelNameMaxBytes);
  w.put(static_cast<std::uint16_t>(domain.size()));
  w.put(static_cast<std::uint16_t>(name.size()));
  w.put_bytes(domain.data(), domain.size());
  w.put_bytes(name.data(), name.size());
}

auto body_bytes(const RecordBody& body) -> std::size_t {
  if (const auto* k = std::get_if<Kernel>(&body)) {
    return detail::kKernelFixedBytes + cut_utf8(k->name, kKernelNameMaxBytes).size();
  }
  if (const auto* m = std::get_if<Marker>(&body)) {
    return detail::kMarkerFixedBytes + cut_utf8(m->domain, kKernelNameMaxBytes).size() +
           cut_utf8(m->name, kKernelNameMaxBytes).size();
  }
  return detail::kFixedBodyBytes[body.index()];
}

}  // namespace

namespace {

/// The little-endian u64 at `at`, zero-padded past the end of `bytes`.
inline auto word_at(std::span<const std::uint8_t> bytes, std::size_t at) -> std::uint64_t {
  std::uint64_t w = 0;
  if (at >= bytes.size()) {
    return 0;
  }
  if (std::endian::native == std::endian::little && bytes.size() - at >= 8) {
    std::memcpy(&w, bytes.data() + at, 8);
    return w;
  }
  for (std::size_t i = 0; i < bytes.size() - at; ++i) {
    w |= static_cast<std::uint64_t>(bytes[at + i]) << (8U * i);
  }
  return w;
}

}  // namespace

auto detail::checksum(std::span<const std::uint8_t> header_fields, std::span<const std::uint8_t> payload)
    -> std::uint32_t {
  // Four independent multiply-xor lanes over 8-byte words, so that the multiplications overlap. Word j of the
  // stream (header word first) goes to lane j mod 4; a missing word past the end leaves its lane alone.
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;  // the 64-bit FNV prime
  std::uint64_t l0 = (0xcbf29ce484222325ULL ^ word_at(header_fields, 0)) * kPrime;
  std::uint64_t l1 = 1;
  std::uint64_t l2 = 2;
  std::uint64_t l3 = 3;
  const std::size_t words = (payload.size() + 7) / 8;
  std::size_t i = 0;  // payload word i is stream word i + 1
  for (; i + 4 <= words; i += 4) {
    l1 = (l1 ^ word_at(payload, 8 * i)) * kPrime;
    l2 = (l2 ^ word_at(payload, 8 * i + 8)) * kPrime;
    l3 = (l3 ^ word_at(payload, 8 * i + 16)) * kPrime;
    l0 = (l0 ^ word_at(payload, 8 * i + 24)) * kPrime;
  }
  for (; i < words; ++i) {
    std::uint64_t& lane = (i % 4 == 0) ? l1 : (i % 4 == 1) ? l2 : (i % 4 == 2) ? l3 : l0;
    lane = (lane ^ word_at(payload, 8 * i)) * kPrime;
  }
  std::uint64_t h = l0;
  h = (h ^ l1) * kPrime;
  h = (h ^ l2) * kPrime;
  h = (h ^ l3) * kPrime;
  return static_cast<std::uint32_t>(h ^ (h >> 32U));
}

auto encoded_bytes(const RecordBody& body) -> std::size_t {
  return kRecordHeaderBytes + body_bytes(body);
}

auto cut_utf8(std::string_view name, std::size_t max_bytes) -> std::string_view {
  if (name.size() <= max_bytes) {
    return name;
  }
  std::size_t end = max_bytes;
  // Back off continuation bytes (10xxxxxx) so that the cut falls before a character's lead byte.
  while (end > 0 && (static_cast<unsigned char>(name[end]) & 0xC0U) == 0x80U) {
    --end;
  }
  return name.substr(0, end);
}

auto gpu_uuid_string(const std::array<std::uint8_t, 16>& uuid) -> std::string {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string out = "GPU-";
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      out += '-';
    }
    out += kHex[uuid[i] >> 4U];
    out += kHex[uuid[i] & 0xFU];
  }
  return out;
}

auto to_kernel_record(const Kernel& kernel, std::int32_t pid, std::uint32_t nvml_index,
                      std::int64_t offset_ns) -> core::KernelRecord {
  core::KernelRecord r;
  r.device = nvml_index;
  r.start_ns = static_cast<std::int64_t>(kernel.start_cupti_ns) + offset_ns;
  r.end_ns = static_cast<std::int64_t>(kernel.end_cupti_ns) + offset_ns;
  r.pid = pid;
  r.stream = kernel.stream;
  r.correlation = kernel.correlation;
  r.grid = kernel.grid;
  r.block = kernel.block;
  r.name = kernel.name;
  return r;
}

auto to_marker_record(const Marker& marker, std::int32_t pid, std::int64_t offset_ns) -> core::MarkerRecord {
  core::MarkerRecord r;
  r.pid = pid;
  r.tid = marker.tid;
  r.start_ns = static_cast<std::int64_t>(marker.start_cupti_ns) + offset_ns;
  r.end_ns = static_cast<std::int64_t>(marker.end_cupti_ns) + offset_ns;
  r.depth = marker.depth;
  r.domain = marker.domain;
  r.name = marker.name;
  return r;
}

auto FrameEncoder::add(const RecordBody& body) -> bool {
  const std::size_t size = body_bytes(body);
  if (used_ + kRecordHeaderBytes + size > kFrameMaxBytes) {
    return false;
  }
  Writer w(buf_.data() + used_);
  w.put(static_cast<std::uint8_t>(body.index() + 1));  // record types start at 1 (docs/kernel-wire.md)
  w.put(std::uint8_t{0});
  w.put(static_cast<std::uint16_t>(size));
  std::visit([&w](const auto& r) { write_body(w, r); }, body);
  used_ += kRecordHeaderBytes + size;
  ++count_;
  return true;
}

auto FrameEncoder::finish() -> std::span<const std::uint8_t> {
  if (count_ == 0) {
    return {};
  }
  Writer w(buf_.data());
  w.put_bytes(kFrameMagic.data(), kFrameMagic.size());
  w.put(static_cast<std::uint16_t>(used_ - kFrameHeaderBytes));
  w.put(static_cast<std::uint16_t>(count_));
  w.put(pid_);
  const std::span<const std::uint8_t> frame(buf_.data(), used_);
  w.put(detail::checksum(frame.subspan(4, 8), frame.subspan(kFrameHeaderBytes)));
  return frame;
}

void FrameEncoder::clear() {
  used_ = kFrameHeaderBytes;
  count_ = 0;
}

}  // namespace solscope::inject
