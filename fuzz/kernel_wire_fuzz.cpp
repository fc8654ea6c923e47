// libFuzzer target: the kernel-wire decoder (inject/kernel_wire.hpp) that `solscope run`'s recorder feeds
// with the bytes of the workload's pipe.
//
// The first input byte sets the chunk size (1-256 bytes); the rest is the stream. It is decoded whole and in
// chunks: the two must give the same records and the same counts, since a pipe read returns any amount. Every
// kernel name must be within the wire's bound. A difference aborts (a finding).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <variant>
#include <vector>

#include "inject/kernel_wire.hpp"

namespace {

using solscope::inject::Kernel;
using solscope::inject::StreamDecoder;
using solscope::inject::WireRecord;

struct Decoded {
  std::vector<WireRecord> records;
  solscope::inject::DecoderStats stats;
  std::size_t left_over = 0;
};

auto decode(std::span<const std::uint8_t> stream, std::size_t chunk_bytes) -> Decoded {
  StreamDecoder decoder;
  Decoded out;
  for (std::size_t at = 0; at < stream.size(); at += chunk_bytes) {
    decoder.feed(stream.subspan(at, std::min(chunk_bytes, stream.size() - at)), out.records);
  }
  out.left_over = decoder.finish(out.records);
  out.stats = decoder.stats();
  return out;
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  if (size < 1) return 0;
  const std::size_t chunk_bytes = std::size_t{data[0]} + 1;
  const std::span<const std::uint8_t> stream(data + 1, size - 1);
  const Decoded whole = decode(stream, std::max<std::size_t>(stream.size(), 1));
  const Decoded chunked = decode(stream, chunk_bytes);
  for (const WireRecord& r : whole.records) {
    const auto* k = std::get_if<Kernel>(&r.body);
    if (k != nullptr && k->name.size() > solscope::inject::kKernelNameMaxBytes) std::abort();
    const auto* m = std::get_if<solscope::inject::Marker>(&r.body);
    if (m != nullptr &&
        (m->name.size() > solscope::inject::kKernelNameMaxBytes ||
         m->domain.size() > solscope::inject::kKernelNameMaxBytes || m->end_cupti_ns < m->start_cupti_ns)) {
      std::abort();
    }
  }
  if (whole.records != chunked.records || whole.stats.frames != chunked.stats.frames ||
      whole.stats.bad_frames != chunked.stats.bad_frames ||
      whole.stats.skipped_bytes != chunked.stats.skipped_bytes || whole.left_over != chunked.left_over) {
    std::abort();
  }
  return 0;
}
