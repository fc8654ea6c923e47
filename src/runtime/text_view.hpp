// TextViewSink: a plain, line-per-window live view (like `nvidia-smi dmon`) that prints Compute and Memory
// SOL next to the classic utilization. Used when the terminal UI is not available (pipes, dumb terminals).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>

#include "core/window.hpp"
#include "runtime/engine.hpp"

namespace solscope::app {

/// Prints one line per device per window of `window_ns` (by sample time). Unknown figures print as "n/a";
/// percentages over 100 are clamped for display only. The "attain%" column after compute% and its pipe is the
/// window's attainable Compute SOL (SolSample::attainable_compute_sol_pct, from the ceiling model of the
/// workload). The last column is the window's source; while PM sampling is paused it reads "gpm (PM paused:
/// profiler)": the source that stands in, then the reason (SolSample::pm_pause of the window's latest
/// sample).
class TextViewSink : public SampleSink {
 public:
  /// `banner` is printed once before the header (e.g. which source, and SYNTHETIC for a synthetic trace).
  TextViewSink(std::ostream& out, std::int64_t window_ns, std::string banner);

  auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> override;
  auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> override;
  auto flush() -> core::Result<void> override;
  /// A live view: when its reader stalls it skips its oldest unread samples (counted by the engine).
  [[nodiscard]] auto delivery() const -> SinkDelivery override {
    return {.name = "the text view"};  // the default live-view delivery
  }

  /// Sets where a device's note comes from (the workload on it and its ceiling,
  /// AttainableSol::description_of). A note is printed as a "# gpu N: <note>" line before the device's next
  /// line whenever it changed; an empty note prints nothing. Called once per printed line, from the thread
  /// that feeds the sink.
  void set_device_notes(std::function<std::string(std::uint32_t device)> notes) { notes_ = std::move(notes); }

  /// The line printed for one window (no newline); exposed for tests.
  [[nodiscard]] static auto format_line(const core::SolSample& window) -> std::string;
  /// The column header (no newline).
  [[nodiscard]] static auto header() -> std::string;

 private:
  struct DeviceWindow {
    std::int64_t window_index = 0;
    core::WindowAccumulator acc;
    std::string note;  ///< the last note printed
  };
  void emit(DeviceWindow& w);

  std::ostream& out_;
  std::int64_t window_ns_;
  std::string banner_;
  std::map<std::uint32_t, DeviceWindow> windows_;
  std::function<std::string(std::uint32_t)> notes_;
};

}  // namespace solscope::app
