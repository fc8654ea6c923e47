// The kernel wire's streaming decoder: bytes in any chunking -> records; corrupt or foreign bytes are skipped
// up to the next frame magic and counted (layout: docs/kernel-wire.md).
#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

#include "inject/detail/kernel_wire_detail.hpp"
#include "inject/kernel_wire.hpp"

namespace solscope::inject {

namespace {

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  template <class T>
  auto get() -> T {
    static_assert(std::is_integral_v<T>);
    std::make_unsigned_t<T> bits = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      bits = static_cast<decltype(bits)>(bits | (static_cast<decltype(bits)>(bytes_[pos_ + i]) << (8U * i)));
    }
    pos_ += sizeof(T);
    return static_cast<T>(bits);
  }
  auto take(std::size_t n) -> std::span<const std::uint8_t> {
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

auto parse_kernel(Reader& r, std::size_t body_size) -> std::optional<Kernel> {
  Kernel k;
  k.start_cupti_ns = r.get<std::uint64_t>();
  k.end_cupti_ns = r.get<std::uint64_t>();
  k.correlation = r.get<std::uint64_t>();
  k.cuda_device = r.get<std::uint32_t>();
  k.stream = r.get<std::uint32_t>();
  for (auto& v : k.grid) {
    v = r.get<std::uint32_t>();
  }
  for (auto& v : k.block) {
    v = r.get<std::uint32_t>();
  }
  const auto name_size = r.get<std::uint16_t>();
  if (name_size > kKernelNameMaxBytes || detail::kKernelFixedBytes + name_size != body_size) {
    return std::nullopt;
  }
  auto name = r.take(name_size);
  k.name.assign(name.begin(), name.end());
  return k;
}

/// A Marker body (type 6); nullopt when its text lengths exceed the limit or do not add up to `body`.
auto parse_marker(std::span<const std::uint8_t> body) -> std::optional<Marker> {
  if (body.size() < detail::kMarkerFixedBytes) {
    return std::nullopt;
  }
  Reader r(body);
  Marker m;
  m.start_cupti_ns = r.get<std::uint64_t>();
  m.end_cupti_ns = r.get<std::uint64_t>();
  m.tid = r.get<std::uint32_t>();
  m.depth = r.get<std::uint32_t>();
  const auto domain_size = r.get<std::uint16_t>();
  const auto name_size = r.get<std::uint16_t>();
  if (domain_size > kKernelNameMaxBytes || name_size > kKernelNameMaxBytes ||
      detail::kMarkerFixedBytes + domain_size + name_size != body.size() ||
      m.end_cupti_ns < m.start_cupti_ns) {
    return std::nullopt;
  }
  auto domain = r.take(domain_size);
  auto name = r.take(name_size);
  m.domain.assign(domain.begin(), domain.end());
  m.name.assign(name.begin(), name.end());
  return m;
}

/// One record body of `type` (1..6); nullopt when its length does not match the type.
auto parse_body(std::uint8_t type, std::span<const std::uint8_t> body) -> std::optional<RecordBody> {
  Reader r(body);
  if (type == detail::kMarkerType) {
    auto m = parse_marker(body);
    return m ? std::optional<RecordBody>(std::move(*m)) : std::nullopt;
  }
  if (type == detail::kKernelType) {
    if (body.size() < detail::kKernelFixedBytes) {
      return std::nullopt;
    }
    auto k = parse_kernel(r, body.size());
    return k ? std::optional<RecordBody>(std::move(*k)) : std::nullopt;
  }
  if (type < 1 || type > detail::kFixedBodyBytes.size() ||
      body.size() != detail::kFixedBodyBytes[type - 1U]) {
    return std::nullopt;
  }
  switch (type) {
    case 1: {
      Hello h;
      h.cuda_driver_version = r.get<std::int32_t>();
      h.cupti_api_version = r.get<std::uint32_t>();
      return h;
    }
    case 2: {
      Device d;
      d.cuda_device = r.get<std::uint32_t>();
      auto uuid = r.take(d.uuid.size());
      std::copy(uuid.begin(), uuid.end(), d.uuid.begin());
      return d;
    }
    case 3: {
      Clock c;
      c.cupti_ns = r.get<std::uint64_t>();
      c.realtime_ns = r.get<std::int64_t>();
      return c;
    }
    default: {
      Dropped d;
      d.pipe_full = r.get<std::uint64_t>();
      d.by_cupti = r.get<std::uint64_t>();
      return d;
    }
  }
}

/// The records of a payload that checked out, or a reason why not.
auto parse_payload(std::span<const std::uint8_t> payload, std::size_t count, std::int32_t pid,
                   std::vector<WireRecord>& out) -> std::string {
  std::size_t pos = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (payload.size() - pos < kRecordHeaderBytes) {
      return "record " + std::to_string(i) + " is cut short";
    }
    Reader h(payload.subspan(pos, kRecordHeaderBytes));
    const auto type = h.get<std::uint8_t>();
    const auto reserved = h.get<std::uint8_t>();
    const auto size = h.get<std::uint16_t>();
    pos += kRecordHeaderBytes;
    if (reserved != 0 || size > payload.size() - pos) {
      return "record " + std::to_string(i) + " has a bad header";
    }
    auto body = parse_body(type, payload.subspan(pos, size));
    if (!body) {
      return "record " + std::to_string(i) + " (type " + std::to_string(type) + ", " + std::to_string(size) +
             " bytes) is malformed or of an unknown type";
    }
    out.push_back(WireRecord{pid, std::move(*body)});
    pos += size;
  }
  if (pos != payload.size()) {
    return std::to_string(payload.size() - pos) + " bytes follow the last record";
  }
  return {};
}

}  // namespace

void StreamDecoder::note(const std::string& why) {
  if (first_error_.empty()) {
    first_error_ = "kernel stream damaged at byte " + std::to_string(consumed_) + ": " + why;
  }
}

void StreamDecoder::skip(std::size_t n) {
  head_ += n;
  consumed_ += n;
  stats_.skipped_bytes += n;
}

auto StreamDecoder::step(std::vector<WireRecord>& out) -> Step {
  const std::span<const std::uint8_t> avail(pending_.data() + head_, pending_.size() - head_);
  // Bytes before the next possible magic are not ours.
  const std::size_t prefix = std::min<std::size_t>(avail.size(), 3);
  if (!std::equal(avail.begin(), avail.begin() + static_cast<std::ptrdiff_t>(prefix), kFrameMagic.begin())) {
    auto next = std::find(avail.begin() + 1, avail.end(), kFrameMagic[0]);
    note("not a solscope kernel frame (no \"SKW\" magic)");
    skip(static_cast<std::size_t>(next - avail.begin()));
    return Step::kSkipped;
  }
  if (avail.size() >= 4 && (avail[3] < kOldestWireVersion || avail[3] > kWireVersion)) {
    note("kernel wire version " + std::to_string(avail[3]) + ", this solscope reads versions " +
         std::to_string(kOldestWireVersion) + " to " + std::to_string(kWireVersion) +
         " (use the injection library built with this solscope)");
    ++stats_.bad_frames;
    skip(1);
    return Step::kSkipped;
  }
  if (avail.size() < kFrameHeaderBytes) {
    return Step::kNeedMore;
  }
  Reader h(avail.subspan(4, kFrameHeaderBytes - 4));
  const auto payload_size = h.get<std::uint16_t>();
  const auto count = h.get<std::uint16_t>();
  const auto pid = h.get<std::int32_t>();
  const auto sum = h.get<std::uint32_t>();
  if (kFrameHeaderBytes + payload_size > kFrameMaxBytes) {
    note("frame length " + std::to_string(payload_size) + " exceeds the frame limit");
    ++stats_.bad_frames;
    skip(1);
    return Step::kSkipped;
  }
  if (avail.size() < kFrameHeaderBytes + payload_size) {
    return Step::kNeedMore;
  }
  const auto payload = avail.subspan(kFrameHeaderBytes, payload_size);
  std::string why;
  if (detail::checksum(avail.subspan(4, 8), payload) != sum) {
    why = "frame checksum mismatch";
  } else {
    const std::size_t before = out.size();
    why = parse_payload(payload, count, pid, out);
    if (!why.empty()) {
      out.resize(before);
    }
  }
  if (!why.empty()) {
    note(why);
    ++stats_.bad_frames;
    skip(1);
    return Step::kSkipped;
  }
  stats_.records += count;
  ++stats_.frames;
  head_ += kFrameHeaderBytes + payload_size;
  consumed_ += kFrameHeaderBytes + payload_size;
  return Step::kFrame;
}

void StreamDecoder::compact() {
  if (head_ == pending_.size()) {
    pending_.clear();
    head_ = 0;
  } else if (head_ >= kFrameMaxBytes) {
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

void StreamDecoder::feed(std::span<const std::uint8_t> bytes, std::vector<WireRecord>& out) {
  pending_.insert(pending_.end(), bytes.begin(), bytes.end());
  while (head_ < pending_.size() && step(out) != Step::kNeedMore) {
  }
  compact();
}

auto StreamDecoder::finish(std::vector<WireRecord>& out) -> std::size_t {
  const std::uint64_t skipped_before = stats_.skipped_bytes;
  while (head_ < pending_.size()) {
    if (step(out) == Step::kNeedMore) {
      note("the stream ends inside a frame");
      ++stats_.bad_frames;
      skip(1);  // the frame header may be bogus: look for whole frames behind it
    }
  }
  compact();
  return static_cast<std::size_t>(stats_.skipped_bytes - skipped_before);
}

}  // namespace solscope::inject
