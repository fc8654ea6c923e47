// Expected figures of each phase, from the work the PTX loops do and the time and clock measured around
// them, never from a counter (docs/accuracy.md, "Expected values").
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "check/detail/rates.hpp"
#include "check/kernels.hpp"
#include "core/chip.hpp"
#include "core/units.hpp"

namespace solscope::check {
namespace {

using core::MetricId;

constexpr std::uint64_t kCopyBytesPerElement = 16;  // 8 read from buffer_a + 8 written to buffer_b

constexpr const char* kPipeBasis =
    "work / (elapsed x SMs x per-SM rate x SM clock); work = launches x grid x block x iterations x "
    "instructions per iteration x work per instruction";
constexpr const char* kSplitBasis =
    "FFMA work as for the FMA pipe; the heavy and lite halves each take half of it (exact at peak)";
constexpr const char* kDramBasis =
    "bytes / (elapsed x peak DRAM bandwidth); bytes = launches x iterations x "
    "elements x 16 (8 read + 8 written)";
constexpr const char* kL2DramBasis = "the buffers stay in L2: DRAM near 0";
constexpr const char* kSmActiveBasis =
    "blocks run on min(grid, SMs) distinct SMs: 100 x min(grid, SMs) / SMs";
constexpr const char* kLaunchSmBasis =
    "one 32-thread block per launch, launches in one stream: at most 1 SM active at a time, 100 / SMs";
constexpr const char* kUtilBasis = "a kernel runs during the whole phase";
constexpr const char* kLaunchUtilBasis =
    "back-to-back tiny launches keep a kernel resident most of the time (the classic figure reads high)";
constexpr const char* kIdleBasis = "no kernel runs";

auto invalid(std::string message) -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument, std::move(message),
                    "this is a bug in solscope check: the phase must launch, time and clock its kernel");
}

auto no_rate(const KernelSpec& kernel, const DeviceFacts& device) -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::NotFound,
                    "no per-SM rate of the pipe that kernel '" + std::string(kernel.name) +
                        "' loads on GPU '" + std::string(device.name) + "' (chip " +
                        std::string(device.chip) + ")",
                    "add the GPU to data/gpu_specs.json");
}

/// The per-SM rate of the pipe `kernel` loads, in the unit of its work_per_instruction.
auto pipe_rate(const KernelSpec& kernel, const PerSmRates& rates) -> double {
  switch (kernel.phase) {
    case PhaseKind::TensorMma:
    case PhaseKind::TensorWgmma:
      return rates.bf16_flop_per_clock;
    case PhaseKind::Alu:
      return rates.lop3_per_clock;
    case PhaseKind::Fp64:
      return rates.dfma_per_clock;
    default:
      return rates.ffma_per_clock;
  }
}

auto pipe_metric(PhaseKind phase) -> MetricId {
  switch (phase) {
    case PhaseKind::TensorMma:
    case PhaseKind::TensorWgmma:
      return MetricId::TensorPipe;
    case PhaseKind::Alu:
      return MetricId::AluPipe;
    case PhaseKind::Fp64:
      return MetricId::Fp64Pipe;
    default:
      return MetricId::FmaPipe;
  }
}

/// Chips whose FMA pipe is split into heavy and lite halves in the counter set (docs/design/sol-metrics.md
/// section 2).
auto splits_fma(std::string_view chip) -> bool {
  const core::ChipFamily family = core::chip_family(chip);
  return family == core::ChipFamily::Ga10x || family == core::ChipFamily::Gb20x;
}

auto activity(const DeviceFacts& device, const PhaseMeasurement& measured) -> std::vector<ExpectedFigure> {
  const double sms = std::max<double>(1.0, device.sm_count);
  const double active = core::kPercent * std::min<double>(measured.shape.grid_blocks, sms) / sms;
  return {{.metric = MetricId::SmActive,
           .expected_pct = active,
           .tolerance_pct = kComputeTolerancePct,
           .basis = kSmActiveBasis},
          {.metric = MetricId::GpuUtil,
           .expected_pct = core::kPercent,
           .tolerance_pct = kUtilTolerancePct,
           .basis = kUtilBasis}};
}

auto idle_figures() -> std::vector<ExpectedFigure> {
  std::vector<ExpectedFigure> out;
  for (MetricId id : {MetricId::SmActive, MetricId::TensorPipe, MetricId::FmaPipe}) {
    out.push_back(
        {.metric = id, .expected_pct = 0.0, .tolerance_pct = kComputeTolerancePct, .basis = kIdleBasis});
  }
  out.push_back({.metric = MetricId::DramThroughput,
                 .expected_pct = 0.0,
                 .tolerance_pct = kMemoryTolerancePct,
                 .basis = kIdleBasis});
  out.push_back({.metric = MetricId::GpuUtil,
                 .expected_pct = 0.0,
                 .tolerance_pct = kUtilTolerancePct,
                 .basis = kIdleBasis});
  return out;
}

auto launch_bound_figures(const DeviceFacts& device, const PhaseMeasurement& measured)
    -> std::vector<ExpectedFigure> {
  const double sms = std::max<double>(1.0, device.sm_count);
  const double most =
      core::kPercent * std::min<double>(std::max<std::uint32_t>(1, measured.shape.grid_blocks), sms) / sms;
  return {{.metric = MetricId::SmActive,
           .expected_pct = most,
           .tolerance_pct = kComputeTolerancePct,
           .basis = kLaunchSmBasis,
           .bound = Bound::AtMost},
          {.metric = MetricId::GpuUtil,
           .expected_pct = core::kPercent / 2.0,
           .tolerance_pct = 0.0,
           .basis = kLaunchUtilBasis,
           .bound = Bound::AtLeast}};
}

auto seconds(const PhaseMeasurement& measured) -> double {
  return static_cast<double>(measured.gpu_elapsed_ns) * 1e-9;
}

auto copy_figures(const KernelSpec& kernel, const DeviceFacts& device, const PhaseMeasurement& measured)
    -> core::Result<std::vector<ExpectedFigure>> {
  std::vector<ExpectedFigure> out;
  if (kernel.phase == PhaseKind::L2Copy) {
    out.push_back({.metric = MetricId::DramThroughput,
                   .expected_pct = 0.0,
                   .tolerance_pct = kMemoryTolerancePct,
                   .basis = kL2DramBasis});
  } else {
    if (!(measured.dram_peak_bytes_per_s > 0)) {
      return core::fail(core::ErrorCode::NotFound,
                        "the peak DRAM bandwidth of GPU '" + std::string(device.name) +
                            "' is unknown, so the DRAM phase has no expected figure",
                        "NVML did not report the memory bus width or clock");
    }
    const double bytes = static_cast<double>(measured.launches) * measured.shape.iterations *
                         static_cast<double>(measured.shape.buffer_bytes / 8) * kCopyBytesPerElement;
    out.push_back(
        {.metric = MetricId::DramThroughput,
         .expected_pct = core::kPercent * bytes / (seconds(measured) * measured.dram_peak_bytes_per_s),
         .tolerance_pct = kMemoryTolerancePct,
         .basis = kDramBasis});
  }
  for (ExpectedFigure& f : activity(device, measured)) out.push_back(f);
  return out;
}

/// `formula`, then the per-SM rate used and its source: "...; per-SM rate 128 per clock (data/gpu_specs.json
/// H100-SXM5-80GB ...)".
auto rate_basis(std::string_view formula, double rate, const PerSmRates& rates) -> std::string {
  std::ostringstream text;
  text << formula << "; per-SM rate " << rate << " per clock (" << rates.source << ")";
  return text.str();
}

auto pipe_figures(const KernelSpec& kernel, const DeviceFacts& device, const PhaseMeasurement& measured)
    -> core::Result<std::vector<ExpectedFigure>> {
  if (!(measured.sm_clock_mhz > 0))
    return invalid("phase '" + std::string(kernel.name) + "' has no SM clock");
  auto rates = per_sm_rates(device);
  if (!rates) return core::propagate(rates);
  const double rate = pipe_rate(kernel, *rates);
  if (!std::isfinite(rate) || rate <= 0) return no_rate(kernel, device);
  const LaunchShape& s = measured.shape;
  const double work = static_cast<double>(measured.launches) * s.grid_blocks * s.block_threads *
                      s.iterations * kernel.instructions_per_iteration * kernel.work_per_instruction;
  const double capacity =
      seconds(measured) * std::max<double>(1.0, device.sm_count) * rate * measured.sm_clock_mhz * 1e6;
  const double pct = core::kPercent * work / capacity;
  std::vector<ExpectedFigure> out{{.metric = pipe_metric(kernel.phase),
                                   .expected_pct = pct,
                                   .tolerance_pct = kComputeTolerancePct,
                                   .basis = rate_basis(kPipeBasis, rate, *rates)}};
  if (pipe_metric(kernel.phase) == MetricId::FmaPipe && splits_fma(device.chip)) {
    for (MetricId id : {MetricId::FmaHeavyPipe, MetricId::FmaLitePipe}) {
      out.push_back({.metric = id,
                     .expected_pct = pct,
                     .tolerance_pct = kComputeTolerancePct,
                     .basis = rate_basis(kSplitBasis, rate, *rates)});
    }
  }
  for (ExpectedFigure& f : activity(device, measured)) out.push_back(f);
  return out;
}

}  // namespace

auto passes(const ExpectedFigure& figure, double measured_pct) -> bool {
  if (std::isnan(measured_pct)) return false;
  switch (figure.bound) {
    case Bound::AtMost:
      return measured_pct <= figure.expected_pct + figure.tolerance_pct;
    case Bound::AtLeast:
      return measured_pct >= figure.expected_pct - figure.tolerance_pct;
    case Bound::Point:
      break;
  }
  return std::abs(measured_pct - figure.expected_pct) <= figure.tolerance_pct;
}

auto expected_figures(const KernelSpec& kernel, const DeviceFacts& device, const PhaseMeasurement& measured)
    -> core::Result<std::vector<ExpectedFigure>> {
  if (kernel.phase == PhaseKind::Idle) return idle_figures();
  if (measured.launches == 0) return invalid("phase '" + std::string(kernel.name) + "' launched no kernel");
  if (measured.gpu_elapsed_ns <= 0)
    return invalid("phase '" + std::string(kernel.name) + "' took no GPU time");
  if (kernel.phase == PhaseKind::LaunchBound) return launch_bound_figures(device, measured);
  if (kernel.phase == PhaseKind::DramCopy || kernel.phase == PhaseKind::L2Copy) {
    return copy_figures(kernel, device, measured);
  }
  return pipe_figures(kernel, device, measured);
}

}  // namespace solscope::check
