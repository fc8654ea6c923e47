// `solscope report TRACE --phases FILE`: a trace held against phases whose times and expected figures a
// workload declared (docs/report.md, "Declared phases"; the GPU proof kit's workload writes such a file).
// Pure: the caller reads the files; this parses the phase file's text, takes the trace's samples and kernels,
// and judges.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_record.hpp"
#include "core/result.hpp"
#include "core/sol_sample.hpp"
#include "core/sol_terms.hpp"
#include "core/window.hpp"
#include "report/report.hpp"

namespace solscope::report {

/// The phase file's format tag (key "format").
inline constexpr std::string_view kPhaseFileFormat = "solscope-phases-1";
/// Default tolerance of an achieved-rate comparison, percent of the achieved figure.
inline constexpr double kDefaultRateTolerancePct = 15.0;

/// A figure a phase can bound from below or above (expect keys min_/max_ + its name).
enum class PhaseFigure : std::uint8_t { ComputeSol, MemorySol, GpuUtil, SmActive, kCount };
/// "compute_sol_pct", "memory_sol_pct", "gpu_util_pct", "sm_active_pct".
[[nodiscard]] auto to_string(PhaseFigure figure) -> std::string_view;

/// One min_/max_ expectation: the phase's mean of `figure` must be >= (is_min) or <= `limit_pct` (0-100).
struct FigureLimit {
  PhaseFigure figure = PhaseFigure::ComputeSol;
  bool is_min = true;
  double limit_pct = 0.0;
};

/// What a workload measured itself during a phase, compared with solscope's figure of the same rate.
struct AchievedRates {
  double flop_per_s = core::kUnknown;  ///< dense BF16 FLOP/s (vs tensor pipe % x BF16 peak at the clock)
  double dram_bytes_per_s = core::kUnknown;  ///< bytes read + written per second (vs solscope's DRAM bytes/s)
  double tolerance_pct = kDefaultRateTolerancePct;  ///< allowed |solscope / achieved - 1| x 100
};

/// One declared phase: [start_ns, end_ns) on CLOCK_REALTIME (the samples' clock) and what it must show.
struct DeclaredPhase {
  std::string name;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::optional<core::Bound> bound;  ///< the bound class holding most of the phase's sampled time
  std::optional<core::Pipe> compute_pipe;
  std::optional<core::MemPath> memory_path;
  std::vector<FigureLimit> limits;
  AchievedRates achieved;
};

/// A parsed phase file.
struct DeclaredPhases {
  std::string gpu_uuid;  ///< the GPU the workload ran on ("GPU-..."); empty when the file does not say
  std::string gpu_name;
  std::vector<DeclaredPhase> phases;
};

/// Most phases one file may declare (each sample is held against every phase that could hold it).
inline constexpr std::size_t kMaxDeclaredPhases = 1000;

/// Parses a phase file (format kPhaseFileFormat; docs/report.md lists every key). Errors: InvalidArgument
/// naming the phase and key: not JSON, another format, no phases or more than kMaxDeclaredPhases, a phase
/// without a name or with end <= start, an unknown bound/pipe/path name, an unknown expect key, a limit or
/// tolerance outside 0-1000.
[[nodiscard]] auto parse_declared_phases(std::string_view json_text) -> core::Result<DeclaredPhases>;

/// The outcome of one comparison, or of a phase or a whole file (the worst of its parts).
enum class Verdict : std::uint8_t { Pass, Info, Skip, NoData, Fail };
/// "PASS", "INFO", "SKIP", "NO DATA", "FAIL".
[[nodiscard]] auto to_string(Verdict verdict) -> std::string_view;

/// One comparison: what was checked, the expected and the measured figure as text, and the verdict.
struct PhaseCheck {
  std::string what;
  std::string expected;
  std::string measured;
  Verdict result = Verdict::NoData;
};

/// The kernel that ran longest inside a phase (from the trace's kernel log).
struct PhaseKernel {
  std::string name;
  std::uint64_t calls = 0;  ///< calls that started inside the phase
  double busy_pct = 0.0;    ///< its calls' time inside the phase / the phase's length x 100 (sums overlaps)
  double compute_sol_pct = core::kUnknown;  ///< its whole-trace SOL (report's kernel rows), when known
  core::Pipe compute_pipe = core::Pipe::kCount;
  double memory_sol_pct = core::kUnknown;
  core::MemPath memory_path = core::MemPath::kCount;
};

/// One phase judged.
struct PhaseOutcome {
  DeclaredPhase phase;
  std::size_t samples = 0;                     ///< samples wholly inside the phase less its ramp edges
  core::SolSample means;                       ///< their duration-weighted means (core::WindowAccumulator)
  core::Bound bound = core::Bound::Unknown;    ///< the class holding most of their time
  double implied_flop_per_s = core::kUnknown;  ///< tensor pipe % x BF16 peak at the phase's mean SM clock
  std::optional<PhaseKernel> kernel;
  std::vector<PhaseCheck> checks;
  Verdict result = Verdict::Info;
};

/// Every phase of a file judged on one GPU.
struct DeclaredPhaseReport {
  std::string file;
  std::uint32_t device = 0;
  std::vector<PhaseOutcome> phases;
  Verdict result = Verdict::Pass;  ///< Fail when a phase failed or had no data, else Pass
};

/// Dense BF16 FLOP/s of the judged GPU at an SM clock in MHz (NaN when unknown): the ceiling's
/// peak_flops_per_s, handed in so that this layer stays on core.
using TensorPeak = std::function<double(double sm_clock_mhz)>;

/// Judges declared phases on one GPU. Feed it the trace's samples (any order, any device: others are ignored)
/// and its kernel records, then finish(). Memory: one accumulator per phase and one entry per kernel name per
/// phase. Not thread-safe.
class PhaseJudge {
 public:
  PhaseJudge(DeclaredPhases declared, std::uint32_t device, TensorPeak tensor_peak,
             std::int64_t edge_ns = core::kPhaseRampEdgeNs);
  void add(const core::SolSample& sample);
  void add(const core::KernelRecord& kernel);
  /// The verdicts; `file` names the phase file in the report.
  [[nodiscard]] auto finish(std::string file) const -> DeclaredPhaseReport;

 private:
  struct KernelTime {
    std::uint64_t calls = 0;
    std::int64_t inside_ns = 0;
  };
  struct Lane {
    core::WindowAccumulator means;
    BoundTimes bound_ns{};
    std::map<std::string, KernelTime, std::less<>> kernels;
  };
  [[nodiscard]] auto judge(const DeclaredPhase& phase, const Lane& lane) const -> PhaseOutcome;

  DeclaredPhases declared_;
  std::uint32_t device_ = 0;
  TensorPeak tensor_peak_;
  std::int64_t edge_ns_ = 0;
  std::vector<Lane> lanes_;
};

}  // namespace solscope::report
