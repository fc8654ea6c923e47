// `solscope run`: what the trace's meta table says about the job (docs/trace-format.md "Meta keys").
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "run/child_process.hpp"
#include "trace/writer.hpp"

namespace solscope::app {

/// Meta keys that `solscope run` writes (values TEXT; times are CLOCK_REALTIME ns since the epoch).
inline constexpr std::string_view kMetaRunCommand = "command";         ///< the command line, shell-quoted
inline constexpr std::string_view kMetaRunStartNs = "run_start_ns";    ///< just before CMD started
inline constexpr std::string_view kMetaRunEndNs = "run_end_ns";        ///< when CMD was seen ending
inline constexpr std::string_view kMetaRunExitStatus = "exit_status";  ///< "exit 3", "signal 15 (...)"
inline constexpr std::string_view kMetaRunExitCode = "exit_code";      ///< solscope's: 3, 143
inline constexpr std::string_view kMetaRunCudaVisible = "cuda_visible_devices";  ///< the value or "(unset)"
/// Where CMD's NVTX went: "injection" (recorded in the markers table) or "user NVTX_INJECTION64_PATH=..."
/// (the user's own, kept; no markers recorded); absent without a kernel log (run_inject.hpp nvtx_route()).
inline constexpr std::string_view kMetaRunNvtx = "nvtx";
/// NVML indices of the GPUs the job was seen using (process lists, kernels) or sampled: "0,2" or "".
inline constexpr std::string_view kMetaRunGpus = "gpus_used";

/// `argv` as one line a POSIX shell reads back to the same words: words with anything but
/// [A-Za-z0-9_./=:,+@%-] are single-quoted ('it'\''s').
[[nodiscard]] auto shell_quote(const std::vector<std::string>& argv) -> std::string;

/// "0,2": the indices in ascending order.
[[nodiscard]] auto join_indices(const std::set<std::uint32_t>& devices) -> std::string;

/// The CUDA_VISIBLE_DEVICES summary for the meta: its value, "(empty)" when set to "", "(unset)" when absent.
[[nodiscard]] auto cuda_visible_summary(const std::optional<std::string>& value) -> std::string;

/// CLOCK_REALTIME in ns since the epoch.
[[nodiscard]] auto realtime_now_ns() -> std::int64_t;

/// Writes the keys known when CMD starts (command, start, CUDA_VISIBLE_DEVICES).
[[nodiscard]] auto write_run_start(trace::Writer& writer, const std::vector<std::string>& argv,
                                   std::int64_t start_ns, const std::string& cuda_visible)
    -> core::Result<void>;

/// Writes the keys known when CMD ended (end, exit status and code, GPUs in the trace).
[[nodiscard]] auto write_run_end(trace::Writer& writer, std::int64_t end_ns, const ChildExit& exit,
                                 const std::set<std::uint32_t>& gpus) -> core::Result<void>;

}  // namespace solscope::app
