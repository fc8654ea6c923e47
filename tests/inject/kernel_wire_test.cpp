// The kernel wire: round trips, any chunking, frame limits, damage and resynchronisation
// (docs/kernel-wire.md).
#include "inject/kernel_wire.hpp"

#include "inject/detail/kernel_wire_detail.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace solscope::inject {
namespace {

using Bytes = std::vector<std::uint8_t>;

auto kernel(std::string name, std::uint64_t start = 1000) -> Kernel {
  Kernel k;
  k.start_cupti_ns = start;
  k.end_cupti_ns = start + 250;
  k.correlation = 0x1'0000'0007ULL;
  k.cuda_device = 1;
  k.stream = 13;
  k.grid = {128, 2, 1};
  k.block = {256, 1, 1};
  k.name = std::move(name);
  return k;
}

auto sample_records() -> std::vector<RecordBody> {
  Device d;
  d.cuda_device = 1;
  for (std::size_t i = 0; i < d.uuid.size(); ++i) {
    d.uuid[i] = static_cast<std::uint8_t>(0xA0 + i);
  }
  return {Hello{13000, 130000},
          d,
          Clock{123456789ULL, 1'700'000'000'000'000'000LL},
          kernel("void gemm<float>(float const*, float*, int)"),
          kernel("", 5000),
          Dropped{7, 3}};
}

/// Encodes `bodies` from process `pid` into as many frames as needed.
auto encode(const std::vector<RecordBody>& bodies, std::int32_t pid) -> Bytes {
  Bytes out;
  FrameEncoder enc(pid);
  for (const auto& body : bodies) {
    if (!enc.add(body)) {
      auto frame = enc.finish();
      out.insert(out.end(), frame.begin(), frame.end());
      enc.clear();
      EXPECT_TRUE(enc.add(body));
    }
  }
  auto frame = enc.finish();
  out.insert(out.end(), frame.begin(), frame.end());
  return out;
}

/// Rewrites a single frame's checksum after a test edited it, so that only the structural checks can object.
void reseal(Bytes& frame) {
  const std::span<const std::uint8_t> all(frame);
  const auto sum = detail::checksum(all.subspan(4, 8), all.subspan(kFrameHeaderBytes));
  for (std::size_t i = 0; i < 4; ++i) {
    frame[12 + i] = static_cast<std::uint8_t>(sum >> (8U * i));
  }
}

/// Feeds `bytes` in chunks of `chunk`, then finish(), which must pass over `skipped_at_end` bytes.
auto decode(const Bytes& bytes, std::size_t chunk, StreamDecoder& dec, std::size_t skipped_at_end = 0)
    -> std::vector<WireRecord> {
  std::vector<WireRecord> out;
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    const std::size_t n = std::min(chunk, bytes.size() - at);
    dec.feed(std::span<const std::uint8_t>(bytes.data() + at, n), out);
  }
  EXPECT_EQ(dec.finish(out), skipped_at_end);
  return out;
}

auto with_pid(const std::vector<RecordBody>& bodies, std::int32_t pid) -> std::vector<WireRecord> {
  std::vector<WireRecord> out;
  for (const auto& b : bodies) {
    out.push_back(WireRecord{pid, b});
  }
  return out;
}

TEST(KernelWire, RoundTripKeepsEveryField) {
  const auto bodies = sample_records();
  const auto bytes = encode(bodies, 4242);
  // 16-byte header + records: hello 12, device 24, clock 20, kernels 62+43 and 62, dropped 20.
  EXPECT_EQ(bytes.size(), 16U + 12 + 24 + 20 + (62 + 43) + 62 + 20);
  StreamDecoder dec;
  EXPECT_EQ(decode(bytes, bytes.size(), dec), with_pid(bodies, 4242));
  EXPECT_EQ(dec.stats().frames, 1U);
  EXPECT_EQ(dec.stats().records, 6U);
  EXPECT_EQ(dec.stats().bad_frames, 0U);
  EXPECT_EQ(dec.first_error(), "");
}

TEST(KernelWire, ByteByByteFeedingDecodesTheSame) {
  std::vector<RecordBody> bodies;
  for (int i = 0; i < 200; ++i) {  // several frames
    bodies.emplace_back(kernel("kernel_" + std::to_string(i), static_cast<std::uint64_t>(i) * 1000));
  }
  const auto bytes = encode(bodies, -7);
  StreamDecoder whole;
  StreamDecoder bytewise;
  const auto expected = with_pid(bodies, -7);
  EXPECT_EQ(decode(bytes, bytes.size(), whole), expected);
  EXPECT_EQ(decode(bytes, 1, bytewise), expected);
  EXPECT_EQ(bytewise.stats().frames, whole.stats().frames);
  EXPECT_GT(whole.stats().frames, 1U);
}

TEST(KernelWire, LittleEndianHeaderLayout) {
  const auto bytes = encode({Dropped{0x0102, 0}}, 0x11223344);
  ASSERT_EQ(bytes.size(), 16U + 20U);
  EXPECT_EQ(Bytes(bytes.begin(), bytes.begin() + 4), (Bytes{'S', 'K', 'W', 2}));
  EXPECT_EQ(bytes[4], 20);  // payload bytes, u16 LE
  EXPECT_EQ(bytes[5], 0);
  EXPECT_EQ(bytes[6], 1);     // record count
  EXPECT_EQ(bytes[8], 0x44);  // pid, i32 LE
  EXPECT_EQ(bytes[11], 0x11);
  EXPECT_EQ(bytes[16], 5);   // record type Dropped
  EXPECT_EQ(bytes[18], 16);  // body bytes
  EXPECT_EQ(bytes[20], 0x02);
  EXPECT_EQ(bytes[21], 0x01);
}

TEST(KernelWire, FrameOfExactly4096Bytes) {
  // 4080 payload bytes: 64 kernels with empty names fill 64 * 62 = 3968; one with a 50-byte name takes 112
  // more.
  FrameEncoder enc(1);
  for (int i = 0; i < 64; ++i) {
    ASSERT_TRUE(enc.add(kernel("")));
  }
  ASSERT_TRUE(enc.add(kernel(std::string(50, 'k'))));
  EXPECT_FALSE(enc.add(Hello{}));  // full: a 12-byte record no longer fits
  const auto frame = enc.finish();
  ASSERT_EQ(frame.size(), kFrameMaxBytes);
  StreamDecoder dec;
  const auto records = decode(Bytes(frame.begin(), frame.end()), 1, dec);
  ASSERT_EQ(records.size(), 65U);
  EXPECT_EQ(std::get<Kernel>(records.back().body).name, std::string(50, 'k'));
}

TEST(KernelWire, LongNamesAreCutTo512BytesOnACharacterBoundary) {
  std::string name(511, 'a');
  name += "\xC3\xA9";  // U+00E9 straddles byte 512
  name += std::string(600, 'b');
  const auto bytes = encode({kernel(name)}, 1);
  EXPECT_EQ(bytes.size(), 16U + 62U + 511U);
  StreamDecoder dec;
  const auto records = decode(bytes, bytes.size(), dec);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(std::get<Kernel>(records[0].body).name, std::string(511, 'a'));
  EXPECT_EQ(cut_utf8(std::string(700, 'x'), kKernelNameMaxBytes).size(), 512U);
  EXPECT_EQ(encoded_bytes(kernel(std::string(700, 'x'))), 4U + 58U + 512U);
}

TEST(KernelWire, TruncatedStreamIsReportedAtFinish) {
  auto bytes = encode(sample_records(), 9);
  bytes.resize(bytes.size() - 5);
  StreamDecoder dec;
  std::vector<WireRecord> out;
  dec.feed(bytes, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(dec.finish(out), bytes.size());
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(dec.stats().frames, 0U);
  EXPECT_NE(dec.first_error().find("ends inside a frame"), std::string::npos) << dec.first_error();
}

TEST(KernelWire, CorruptFrameIsSkippedAndTheNextOneDecodes) {
  auto first = encode({kernel("first")}, 1);
  const auto second = encode({kernel("second")}, 2);
  first[30] ^= 0xFF;  // a payload byte: checksum mismatch
  Bytes stream = first;
  stream.insert(stream.end(), second.begin(), second.end());
  StreamDecoder dec;
  const auto records = decode(stream, 3, dec);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].pid, 2);
  EXPECT_EQ(std::get<Kernel>(records[0].body).name, "second");
  EXPECT_EQ(dec.stats().bad_frames, 1U);
  EXPECT_EQ(dec.stats().skipped_bytes, first.size());
  EXPECT_EQ(dec.first_error(), "kernel stream damaged at byte 0: frame checksum mismatch");
}

TEST(KernelWire, BogusLengthDoesNotHideFramesBehindIt) {
  auto bad = encode({Hello{1, 2}}, 1);
  bad[4] = 0xF0;  // payload length 4080: claims bytes that belong to the next frames
  bad[5] = 0x0F;
  const auto good = encode({Dropped{1, 2}}, 5);
  Bytes stream = bad;
  stream.insert(stream.end(), good.begin(), good.end());
  StreamDecoder dec;
  // finish() gives up on the bogus frame and rescans behind its header: its 28 bytes are passed over.
  const auto records = decode(stream, stream.size(), dec, bad.size());
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0], (WireRecord{5, Dropped{1, 2}}));
  EXPECT_EQ(dec.stats().bad_frames, 1U);
}

TEST(KernelWire, ForeignBytesAndOtherVersionsAreNamed) {
  const std::string text = "Segmentation fault (core dumped)\n";
  Bytes stream(text.begin(), text.end());
  const auto good = encode({Clock{1, 2}}, 3);
  stream.insert(stream.end(), good.begin(), good.end());
  StreamDecoder dec;
  const auto records = decode(stream, 4, dec);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(dec.stats().skipped_bytes, text.size());
  EXPECT_EQ(dec.first_error(),
            "kernel stream damaged at byte 0: not a solscope kernel frame (no \"SKW\" magic)");

  auto v3 = encode({Clock{1, 2}}, 3);
  v3[3] = 3;
  StreamDecoder dec2;
  EXPECT_TRUE(decode(v3, 1, dec2).empty());
  EXPECT_EQ(dec2.stats().bad_frames, 1U);
  EXPECT_NE(dec2.first_error().find("kernel wire version 3, this solscope reads versions 1 to 2"),
            std::string::npos);
}

TEST(KernelWire, Version1FramesOfAnOlderLibraryStillDecode) {
  auto v1 = encode({Clock{1, 2}}, 3);
  v1[3] = 1;  // the version byte is not under the checksum
  StreamDecoder dec;
  EXPECT_EQ(decode(v1, 1, dec), with_pid({Clock{1, 2}}, 3));
  EXPECT_EQ(dec.first_error(), "");
}

auto marker(std::string domain, std::string name, std::uint64_t start, std::uint64_t end) -> Marker {
  return Marker{.start_cupti_ns = start,
                .end_cupti_ns = end,
                .tid = 0x7001,
                .depth = 2,
                .domain = std::move(domain),
                .name = std::move(name)};
}

TEST(KernelWire, MarkersRoundTripWithKernelsInOneFrame) {
  const std::vector<RecordBody> bodies = {marker("", "step 7", 1000, 9000), kernel("k"),
                                          marker("PyTorch", "checkpoint", 4000, 4000)};
  const auto bytes = encode(bodies, 31);
  // Marker bodies: 28 fixed bytes + domain + name; records add 4. 16 + (32 + 6) + (62 + 1) + (32 + 17).
  EXPECT_EQ(bytes.size(), 16U + 38 + 63 + 49);
  EXPECT_EQ(bytes[16], 6) << "record type Marker";
  EXPECT_EQ(bytes[18], 34) << "body bytes, u16 LE";
  StreamDecoder dec;
  EXPECT_EQ(decode(bytes, 3, dec), with_pid(bodies, 31));
  EXPECT_EQ(dec.stats().records, 3U);
  EXPECT_EQ(dec.first_error(), "");
}

TEST(KernelWire, MarkerTextsAreCutTo512BytesOnACharacterBoundary) {
  // 510 ASCII bytes and a 3-byte character that would end at byte 513: cut before it, at 510.
  const std::string name = std::string(510, 'n') + "\xe2\x82\xac" + "tail";
  const auto bytes = encode({marker(std::string(700, 'd'), name, 1, 2)}, 1);
  StreamDecoder dec;
  const auto out = decode(bytes, bytes.size(), dec);
  ASSERT_EQ(out.size(), 1U);
  const auto& m = std::get<Marker>(out[0].body);
  EXPECT_EQ(m.name, std::string(510, 'n'));
  EXPECT_EQ(m.domain, std::string(512, 'd'));
  EXPECT_EQ(encoded_bytes(marker(std::string(700, 'd'), name, 1, 2)), 4U + 28 + 512 + 510);
}

TEST(KernelWire, MalformedMarkersRejectTheWholeFrame) {
  // Name length declared one byte longer than the body holds.
  auto bytes = encode({marker("d", "abc", 1, 2), Clock{3, 4}}, 1);
  bytes[16 + 4 + 26] = 4;  // the name length, after start, end, tid, depth and the domain length
  reseal(bytes);
  StreamDecoder dec;
  std::vector<WireRecord> out;
  dec.feed(bytes, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(
      dec.first_error(),
      "kernel stream damaged at byte 0: record 0 (type 6, 32 bytes) is malformed or of an unknown type");

  // A range that ends before it starts (end is bytes 8-15 of the body).
  auto backwards = encode({marker("", "r", 100, 200)}, 1);
  backwards[16 + 4 + 8] = 50;  // end = 50 < start = 100
  backwards[16 + 4 + 9] = 0;
  reseal(backwards);
  StreamDecoder dec2;
  dec2.feed(backwards, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(dec2.stats().bad_frames, 1U);

  // A marker body shorter than its fixed part.
  auto short_body = encode({marker("", "", 1, 2)}, 1);
  short_body[18] = 27;
  reseal(short_body);
  StreamDecoder dec3;
  dec3.feed(short_body, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(dec3.stats().bad_frames, 1U);
}

TEST(KernelWire, MarkerInSampleTime) {
  const auto r = to_marker_record(marker("NCCL", "allreduce", 1000, 4000), 77, -500);
  EXPECT_EQ(r.pid, 77);
  EXPECT_EQ(r.tid, 0x7001U);
  EXPECT_EQ(r.start_ns, 500);
  EXPECT_EQ(r.end_ns, 3500);
  EXPECT_EQ(r.depth, 2U);
  EXPECT_EQ(r.domain, "NCCL");
  EXPECT_EQ(r.name, "allreduce");
  EXPECT_FALSE(r.is_mark());
}

TEST(KernelWire, MalformedRecordsRejectTheWholeFrame) {
  auto bytes = encode({Hello{1, 2}, Clock{3, 4}}, 1);
  bytes[16] = 9;  // unknown record type; fix the checksum so that only the record check can catch it
  reseal(bytes);
  StreamDecoder dec;
  std::vector<WireRecord> out;
  dec.feed(bytes, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(dec.stats().bad_frames, 1U);
  EXPECT_EQ(dec.first_error(),
            "kernel stream damaged at byte 0: record 0 (type 9, 8 bytes) is malformed or of an unknown type");

  auto wrong_size = encode({Hello{1, 2}}, 1);
  wrong_size[18] = 7;  // Hello body declared 7 bytes
  reseal(wrong_size);
  StreamDecoder dec2;
  dec2.feed(wrong_size, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(dec2.stats().bad_frames, 1U);

  auto extra_count = encode({Hello{1, 2}}, 1);
  extra_count[6] = 2;  // claims two records, holds one
  reseal(extra_count);
  StreamDecoder dec3;
  dec3.feed(extra_count, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(dec3.first_error(), "kernel stream damaged at byte 0: record 1 is cut short");
}

TEST(KernelWire, UuidAndSampleTime) {
  std::array<std::uint8_t, 16> uuid{};
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    uuid[i] = static_cast<std::uint8_t>(i * 17);
  }
  EXPECT_EQ(gpu_uuid_string(uuid), "GPU-00112233-4455-6677-8899-aabbccddeeff");
  const auto r = to_kernel_record(kernel("k", 1000), 77, 3, 1'000'000);
  EXPECT_EQ(r.device, 3U);
  EXPECT_EQ(r.pid, 77);
  EXPECT_EQ(r.start_ns, 1'001'000);
  EXPECT_EQ(r.duration_ns(), 250);
  EXPECT_EQ(r.correlation, 0x1'0000'0007ULL);
}

}  // namespace
}  // namespace solscope::inject
