// The join of a kernel log with the SOL samples: per GPU and kernel name, the calls, GPU time and the SOL
// measured while the kernel ran. Pure; takes the calls one by one, then streams the samples once.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/kernel_record.hpp"
#include "core/sol_sample.hpp"
#include "core/window.hpp"
#include "report/report.hpp"

namespace solscope::report {

/// Kernel figures of every GPU.
///
/// A kernel name's SOL is the sample-overlap-weighted mean: each sample of its GPU counts with the time it
/// overlaps each call, [start_ns, end_ns) against [t_start_ns, t_end_ns), through core::WindowAccumulator (so
/// unknown figures are skipped and the pipe and path named are those with the highest weighted mean, as in
/// every window solscope shows). A call overlaps another when some other kernel on the same GPU ran during it
/// (any stream or process); such calls are counted, since their SOL is shared. Calls of zero or negative
/// duration count as calls with no time.
///
/// Memory: kBytesPerCall per call (its start, end, process and the id of its interned name) plus one entry
/// per distinct name per GPU; the names are kept once each, never per call. The Training steps read the
/// same calls back (records()), so the report holds each call once.
class KernelJoin {
 public:
  /// Bytes kept per call (docs/report.md, "Cost").
  static constexpr std::size_t kBytesPerCall = 24;

  KernelJoin() = default;
  /// Adds every call of `kernels` (any order, any devices). O(k log k).
  explicit KernelJoin(std::span<const core::KernelRecord> kernels);

  /// Adds one call (any order, any devices). Only before the first sample; later calls are ignored.
  void add_call(const core::KernelRecord& kernel);

  /// Adds one sample. Each device's samples must come in nondecreasing t_start_ns (trace::Reader's order);
  /// a sample that starts before an earlier one of its device is joined only with the calls still open. The
  /// first sample sorts the calls (O(k log k)).
  void add(const core::SolSample& sample);

  /// Devices that have kernels, ascending.
  [[nodiscard]] auto devices() const -> std::vector<std::uint32_t>;

  /// Fills `gpu`'s kernel_calls, kernel_names, kernel_total_ns and top_kernels (at most `top` rows, by total
  /// time, longest first, ties by name). Call after the last sample (or seal() without samples).
  void fill(GpuReport& gpu, std::size_t top = kTopKernels) const;

  /// Sorts the calls and counts the overlapped ones; the first add(sample) does it. Idempotent.
  void seal();

  /// The first `max_calls` calls of `device` by start time (then end, then name) as kernel records (device,
  /// start, end, pid, name; no stream, grid or block), for core::kernel_steps; `left` gets how many more
  /// there are. Empty for a device without kernels. Call after seal().
  [[nodiscard]] auto records(std::uint32_t device, std::size_t max_calls, std::size_t& left) const
      -> std::vector<core::KernelRecord>;

 private:
  struct Group {  // one kernel name on one device
    std::string name;
    std::uint64_t calls = 0;
    std::int64_t total_ns = 0;
    std::uint64_t overlapped_calls = 0;
    std::int64_t sampled_ns = 0;
    core::WindowAccumulator figures;
  };
  struct Call {  // kBytesPerCall
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    std::uint32_t group = 0;
    std::int32_t pid = 0;  ///< in the padding: the size stays kBytesPerCall
  };
  static_assert(sizeof(Call) == kBytesPerCall, "docs/report.md promises 24 bytes per call");
  /// One device: its calls (by start time once sealed; a deque grows without copying them), the next one to
  /// open, those open now, its names.
  struct Lane {
    std::deque<Call> calls;
    std::size_t next = 0;
    std::vector<std::size_t> open;
    std::vector<std::uint32_t> groups;
    std::unordered_map<std::string, std::uint32_t> index;  ///< name -> group
    std::int64_t total_ns = 0;
  };
  void mark_overlaps(Lane& lane);

  std::vector<Group> groups_;
  std::map<std::uint32_t, Lane> lanes_;
  bool sealed_ = false;
};

}  // namespace solscope::report
