// The join of a kernel log with the SOL samples: per GPU and kernel name, the calls, GPU time and the SOL
// measured while the kernel ran. Pure; streams the samples once.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
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
class KernelJoin {
 public:
  /// Indexes `kernels` (any order, any devices). O(k log k).
  explicit KernelJoin(std::span<const core::KernelRecord> kernels);

  /// Adds one sample. Each device's samples must come in nondecreasing t_start_ns (trace::Reader's order);
  /// a sample that starts before an earlier one of its device is joined only with the calls still open.
  void add(const core::SolSample& sample);

  /// Devices that have kernels, ascending.
  [[nodiscard]] auto devices() const -> std::vector<std::uint32_t>;

  /// Fills `gpu`'s kernel_calls, kernel_names, kernel_total_ns and top_kernels (at most `top` rows, by total
  /// time, longest first, ties by name).
  void fill(GpuReport& gpu, std::size_t top = kTopKernels) const;

 private:
  struct Group {  // one kernel name on one device
    std::string name;
    std::uint64_t calls = 0;
    std::int64_t total_ns = 0;
    std::uint64_t overlapped_calls = 0;
    std::int64_t sampled_ns = 0;
    core::WindowAccumulator figures;
  };
  struct Call {
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    std::size_t group = 0;
  };
  struct Lane {  // one device: its calls by start time, the next one to open, those open now
    std::vector<Call> calls;
    std::size_t next = 0;
    std::vector<std::size_t> open;
    std::vector<std::size_t> groups;
    std::int64_t total_ns = 0;
  };
  void mark_overlaps(Lane& lane);

  std::vector<Group> groups_;
  std::map<std::uint32_t, Lane> lanes_;
};

}  // namespace solscope::report
