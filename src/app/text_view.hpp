// TextViewSink: a plain, line-per-window live view (like `nvidia-smi dmon`) that prints Compute and Memory SOL
// next to the classic utilization. Used when the terminal UI is not available (pipes, dumb terminals).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "app/engine.hpp"
#include "core/window.hpp"

namespace solscope::app {

/// Prints one line per device per window of `window_ns` (by sample time). Unknown figures print as "n/a";
/// percentages over 100 are clamped for display only.
class TextViewSink : public SampleSink {
 public:
  /// `banner` is printed once before the header (e.g. which source, and SYNTHETIC for a synthetic trace).
  TextViewSink(std::ostream& out, std::int64_t window_ns, std::string banner);

  auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> override;
  auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> override;
  auto flush() -> core::Result<void> override;

  /// The line printed for one window (no newline); exposed for tests.
  [[nodiscard]] static auto format_line(const core::SolSample& window) -> std::string;
  /// The column header (no newline).
  [[nodiscard]] static auto header() -> std::string;

 private:
  struct DeviceWindow {
    std::int64_t window_index = 0;
    core::WindowAccumulator acc;
  };
  void emit(DeviceWindow& w);

  std::ostream& out_;
  std::int64_t window_ns_;
  std::string banner_;
  std::map<std::uint32_t, DeviceWindow> windows_;
};

}  // namespace solscope::app
