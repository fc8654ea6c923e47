// `solscope run`: the trace of one job. The samples of a GPU reach the trace once the job is seen using that
// GPU (its earlier samples wait in a bounded backlog), and the writer is shared with the kernel log's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "runtime/engine.hpp"
#include "trace/writer.hpp"

namespace solscope::app {

/// A trace::Writer used from several threads (the sink's, the kernel log's, the command's): every call goes
/// through with() under one mutex.
class SharedWriter {
 public:
  explicit SharedWriter(trace::Writer& writer) : writer_(writer) {}
  template <class Fn>
  auto with(Fn&& fn) -> decltype(fn(std::declval<trace::Writer&>())) {
    const std::lock_guard lock(mutex_);
    return fn(writer_);
  }

 private:
  std::mutex mutex_;
  trace::Writer& writer_;
};

/// Samples of a GPU that the job has not been seen using yet, kept per GPU (about 1 KiB each): 60 s at 10 ms.
inline constexpr std::size_t kRunBacklogSamples = 6000;

/// The engine's sink for `solscope run`. Thread-safe: use_device() may be called from any thread while the
/// engine delivers on the sink's thread.
class RunTraceSink : public SampleSink {
 public:
  /// `filter` off: every sampled GPU is written from its first sample (`--devices`, or when the job's GPUs
  /// cannot be found).
  RunTraceSink(SharedWriter& writer, bool filter) : writer_(writer), filter_(filter) {}

  /// The job uses `device`: its backlog and later samples go to the trace, with its devices row.
  void use_device(std::uint32_t device);
  /// Writes every sampled GPU from now on (the filter could not work).
  void stop_filtering();
  /// After the engine stopped (no more on_sample()): writes the backlog of every GPU found in use since its
  /// last sample (e.g. by a kernel that arrived at the end). Errors: the writer's.
  [[nodiscard]] auto write_late_backlogs() -> core::Result<void>;
  /// Devices written to the trace so far.
  [[nodiscard]] auto written_devices() const -> std::set<std::uint32_t>;
  /// Devices the job was seen using (NVML process lists, kernels) or whose samples were written.
  [[nodiscard]] auto used_devices() const -> std::set<std::uint32_t>;
  /// Samples left out: of GPUs the job never used, and the oldest ones beyond kRunBacklogSamples.
  [[nodiscard]] auto left_out_samples() const -> std::uint64_t;

  auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> override;
  auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> override;
  auto flush() -> core::Result<void> override;
  [[nodiscard]] auto delivery() const -> SinkDelivery override {
    return {.overflow = core::Overflow::Wait, .capacity = 8192, .name = "the trace file"};
  }

 private:
  using Pending = std::pair<core::RawSample, core::SolSample>;
  enum class Claim { Held, First, Written };
  /// With mutex_ held: Held while the device's samples wait for the job to use it; First when this call
  /// marks it written (its backlog is due); Written after that.
  [[nodiscard]] auto claim_locked(std::uint32_t device) -> Claim;
  [[nodiscard]] auto write_backlog(std::uint32_t device) -> core::Result<void>;

  SharedWriter& writer_;
  mutable std::mutex mutex_;  ///< guards the members below (use_device() comes from other threads)
  bool filter_;
  std::set<std::uint32_t> used_;
  std::set<std::uint32_t> written_;
  std::uint64_t left_out_ = 0;
  std::map<std::uint32_t, std::deque<Pending>> backlog_;
  std::map<std::uint32_t, core::DeviceInfo> devices_;  ///< set by begin(), then read only
};

}  // namespace solscope::app
