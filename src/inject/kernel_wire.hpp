// The kernel wire: how `solscope run`'s injection library (libsolscope_inject.so, loaded into the workload
// through CUDA_INJECTION64_PATH) streams what CUPTI saw to the recorder over a pipe. Pure: bytes in, records
// out; no I/O.
//
// The recorder creates a pipe and passes its write end to the workload, named by the environment variable
// kKernelFdEnv. Every process of the job (workers inherit the fd) writes whole frames of at most
// kFrameMaxBytes, so that each write(2) is atomic (POSIX PIPE_BUF) and frames from many processes interleave
// but never mix. Each frame carries the writing process's pid and holds whole records. The byte layout is in
// docs/kernel-wire.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/kernel_record.hpp"

namespace solscope::inject {

/// The environment variable that holds the decimal number of the pipe's write end in the workload. One name,
/// used by the recorder (which sets it) and the injection library (which reads it).
inline constexpr const char* kKernelFdEnv = "SOLSCOPE_KERNEL_FD";
/// Optional: the full path of the libcupti the injection library should dlopen (the recorder sets it to the
/// one it found); unset, the library tries an already loaded libcupti, then libcupti.so.13 / .so.12 by
/// soname.
inline constexpr const char* kCuptiLibraryEnv = "SOLSCOPE_INJECT_CUPTI";
/// The injection library's file name; the build puts it next to the solscope binary, `install` in
/// kInjectInstallDir relative to the binary's folder.
inline constexpr const char* kInjectLibraryName = "libsolscope_inject.so";
inline constexpr const char* kInjectInstallDir = "../lib/solscope";

/// Version of the wire layout; the fourth byte of every frame's magic. Version 2 added the Marker record
/// (type 6). A record type a decoder does not know rejects its whole frame, so adding one raises the version:
/// a recorder of version 1 meeting a version-2 library then says "kernel wire version 2, this solscope reads
/// version 1" once instead of rejecting each frame that holds a marker as malformed. The recorder and the
/// library ship together (docs/kernel-wire.md "Versions").
inline constexpr std::uint8_t kWireVersion = 2;
/// The oldest version a decoder still reads: version 1 is version 2 without markers.
inline constexpr std::uint8_t kOldestWireVersion = 1;
/// The four bytes that open every frame: "SKW" and kWireVersion.
inline constexpr std::array<std::uint8_t, 4> kFrameMagic{'S', 'K', 'W', kWireVersion};
/// Largest frame in bytes, header included: POSIX PIPE_BUF on Linux, the largest write a pipe keeps atomic.
inline constexpr std::size_t kFrameMaxBytes = 4096;
/// Frame header: magic (4), payload bytes (u16), record count (u16), pid (i32), checksum of the
/// payload (u32).
inline constexpr std::size_t kFrameHeaderBytes = 16;
/// Record header: type (u8), reserved zero (u8), body bytes (u16).
inline constexpr std::size_t kRecordHeaderBytes = 4;
/// Longest kernel name on the wire, in bytes (names are cut there, on a UTF-8 character boundary); also the
/// longest NVTX marker name and domain.
inline constexpr std::size_t kKernelNameMaxBytes = 512;

/// First record a process sends: which CUDA it runs. 0 means unknown.
struct Hello {
  std::int32_t cuda_driver_version = 0;  ///< cuDriverGetVersion(), e.g. 13000 for CUDA 13.0
  std::uint32_t cupti_api_version = 0;   ///< cuptiGetVersion(), e.g. 130000
  friend auto operator==(const Hello&, const Hello&) -> bool = default;
};

/// One CUDA device the process sees: its CUDA device id (after CUDA_VISIBLE_DEVICES) and its GPU UUID, so
/// that the recorder maps the id to an NVML index (NVML names the same UUID).
struct Device {
  std::uint32_t cuda_device = 0;
  std::array<std::uint8_t, 16> uuid{};  ///< CUuuid bytes, as CUpti_ActivityDevice5::uuid holds them
  friend auto operator==(const Device&, const Device&) -> bool = default;
};

/// A clock pair read back to back in the workload: cuptiGetTimestamp() and CLOCK_REALTIME, both ns. The
/// recorder turns kernel times into sample time with `realtime_ns - cupti_ns`. Sent at start and
/// periodically.
struct Clock {
  std::uint64_t cupti_ns = 0;
  std::int64_t realtime_ns = 0;  ///< ns since the Unix epoch
  friend auto operator==(const Clock&, const Clock&) -> bool = default;
};

/// One kernel execution as CUPTI reported it: the fields of core::KernelRecord, times raw (CUPTI ns) and the
/// device as the process's CUDA device id. The pid is the frame's.
struct Kernel {
  std::uint64_t start_cupti_ns = 0;
  std::uint64_t end_cupti_ns = 0;
  std::uint64_t correlation = 0;
  std::uint32_t cuda_device = 0;
  std::uint32_t stream = 0;
  std::array<std::uint32_t, 3> grid{};
  std::array<std::uint32_t, 3> block{};
  std::string name;  ///< demangled; at most kKernelNameMaxBytes (the encoder cuts longer names)
  friend auto operator==(const Kernel&, const Kernel&) -> bool = default;
};

/// Running totals of kernel records the process lost (totals since it started, so a later record supersedes
/// an earlier one and a lost Dropped record loses nothing).
struct Dropped {
  std::uint64_t pipe_full = 0;  ///< records the injection library dropped because the pipe was full
  std::uint64_t by_cupti = 0;   ///< records CUPTI dropped (no buffer), from cuptiActivityGetNumDroppedRecords
  friend auto operator==(const Dropped&, const Dropped&) -> bool = default;
};

/// One NVTX range or mark of one thread (CUPTI_ACTIVITY_KIND_MARKER, paired by the injection library): the
/// fields of core::MarkerRecord, times raw (CUPTI ns, CPU timestamps on the same clock as the kernels'). The
/// pid is the frame's. Wire version 2.
struct Marker {
  std::uint64_t start_cupti_ns = 0;
  std::uint64_t end_cupti_ns = 0;  ///< == start_cupti_ns for a mark
  std::uint32_t tid = 0;           ///< the thread that pushed it (CUPTI objectId.pt.threadId)
  std::uint32_t depth = 0;         ///< nesting level within the thread, 0 = outermost
  std::string domain;  ///< NVTX domain name; empty = the default domain; at most kKernelNameMaxBytes
  std::string name;    ///< the message; at most kKernelNameMaxBytes (the encoder cuts longer ones)
  friend auto operator==(const Marker&, const Marker&) -> bool = default;
};

/// A record's type on the wire is its alternative's index + 1 (Hello 1 ... Marker 6).
using RecordBody = std::variant<Hello, Device, Clock, Kernel, Dropped, Marker>;

/// A decoded record with the pid of the process that sent it (from its frame).
struct WireRecord {
  std::int32_t pid = 0;
  RecordBody body;
  friend auto operator==(const WireRecord&, const WireRecord&) -> bool = default;
};

/// Bytes `body` takes in a frame, record header included (a Kernel's or Marker's texts counted after the
/// cut).
[[nodiscard]] auto encoded_bytes(const RecordBody& body) -> std::size_t;

/// `name` cut to at most `max_bytes`, never inside a UTF-8 multi-byte character.
[[nodiscard]] auto cut_utf8(std::string_view name, std::size_t max_bytes) -> std::string_view;

/// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lowercase hex), the spelling NVML's nvmlDeviceGetUUID uses.
[[nodiscard]] auto gpu_uuid_string(const std::array<std::uint8_t, 16>& uuid) -> std::string;

/// The record in sample time: `offset_ns` is Clock::realtime_ns - Clock::cupti_ns, `nvml_index` the device
/// the recorder matched by UUID.
[[nodiscard]] auto to_kernel_record(const Kernel& kernel, std::int32_t pid, std::uint32_t nvml_index,
                                    std::int64_t offset_ns) -> core::KernelRecord;

/// The marker in sample time: `offset_ns` is Clock::realtime_ns - Clock::cupti_ns of the same process.
[[nodiscard]] auto to_marker_record(const Marker& marker, std::int32_t pid, std::int64_t offset_ns)
    -> core::MarkerRecord;

/// Builds one frame at a time in a fixed buffer (no allocation). Use: `if (!enc.add(r)) { send(enc.finish());
/// enc.clear(); enc.add(r); }`; finish() the last partial frame too.
class FrameEncoder {
 public:
  explicit FrameEncoder(std::int32_t pid) : pid_(pid) {}
  /// Appends `body`; false (and nothing appended) when it does not fit in this frame.
  [[nodiscard]] auto add(const RecordBody& body) -> bool;
  /// Writes the header and returns the whole frame (empty when no record was added). Valid until
  /// clear()/add().
  [[nodiscard]] auto finish() -> std::span<const std::uint8_t>;
  /// Starts a new, empty frame.
  void clear();
  [[nodiscard]] auto record_count() const -> std::size_t { return count_; }
  [[nodiscard]] auto empty() const -> bool { return count_ == 0; }

 private:
  std::int32_t pid_;
  std::size_t used_ = kFrameHeaderBytes;
  std::size_t count_ = 0;
  std::array<std::uint8_t, kFrameMaxBytes> buf_{};
};

/// What a decoder has seen so far.
struct DecoderStats {
  std::uint64_t frames = 0;         ///< good frames
  std::uint64_t records = 0;        ///< records decoded from them
  std::uint64_t bad_frames = 0;     ///< frames rejected (checksum, lengths, unknown record, other version)
  std::uint64_t skipped_bytes = 0;  ///< bytes passed over to find the next frame
};

/// Turns a byte stream, in any chunking, into records. A corrupt frame or foreign bytes are skipped up to the
/// next frame magic (counted in stats(), described by first_error()); good frames after them still decode.
class StreamDecoder {
 public:
  /// Consumes `bytes` and appends every record of each completed good frame to `out`.
  void feed(std::span<const std::uint8_t> bytes, std::vector<WireRecord>& out);
  /// Call at end of stream: a trailing partial frame is bad; any good frames behind its bogus length still
  /// decode into `out`. Returns the bytes that were passed over at the end.
  auto finish(std::vector<WireRecord>& out) -> std::size_t;
  [[nodiscard]] auto stats() const -> const DecoderStats& { return stats_; }
  /// The first problem seen, as a message naming the byte offset ("" when the stream was clean so far).
  [[nodiscard]] auto first_error() const -> const std::string& { return first_error_; }

 private:
  enum class Step { kFrame, kNeedMore, kSkipped };
  void note(const std::string& why);
  void skip(std::size_t n);
  auto step(std::vector<WireRecord>& out) -> Step;
  void compact();
  std::vector<std::uint8_t> pending_;
  std::size_t head_ = 0;        ///< first unconsumed byte of pending_
  std::uint64_t consumed_ = 0;  ///< stream offset of pending_[head_]
  DecoderStats stats_;
  std::string first_error_;
};

}  // namespace solscope::inject
