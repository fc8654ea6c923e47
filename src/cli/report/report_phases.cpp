// judge_declared_phases (report_phases.hpp).
#include "cli/report/report_phases.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ceiling/default_gpu_specs.hpp"
#include "ceiling/gpu_spec.hpp"
#include "runtime/text_file.hpp"

namespace solscope::app {
namespace {

/// The GPU the phase file ran on: its UUID among the trace's devices, or the trace's only device.
auto pick_device(const trace::Reader& reader, const report::DeclaredPhases& declared)
    -> core::Result<const core::DeviceInfo*> {
  const auto& devices = reader.devices();
  if (!declared.gpu_uuid.empty()) {
    const auto it = std::find_if(devices.begin(), devices.end(),
                                 [&](const core::DeviceInfo& d) { return d.uuid == declared.gpu_uuid; });
    if (it != devices.end()) return &*it;
    return core::fail(core::ErrorCode::NotFound,
                      "the phase file's GPU " + declared.gpu_uuid + " is not in the trace",
                      "hold the phase file against the trace recorded while that workload ran");
  }
  if (devices.size() == 1) return &devices.front();
  return core::fail(
      core::ErrorCode::InvalidArgument,
      "the phase file names no GPU (gpu.uuid) and the trace holds " + std::to_string(devices.size()),
      "write the GPU's UUID into the phase file (\"gpu\": {\"uuid\": \"GPU-...\"})");
}

/// Dense BF16 FLOP/s at a clock, from the built-in specs; NaN when the GPU or the clock is unknown.
auto tensor_peak_of(const core::DeviceInfo& device) -> report::TensorPeak {
  auto db = ceiling::parse_gpu_database(ceiling::default_gpu_specs_json(), "built-in GPU specs");
  if (!db) return {};
  auto gpu = ceiling::find_gpu(*db, device.name);
  if (!gpu) return {};
  return [spec = **gpu](double sm_clock_mhz) {
    return std::isnan(sm_clock_mhz) ? core::kUnknown
                                    : ceiling::peak_flops_per_s(spec, ceiling::Dtype::Bf16, sm_clock_mhz);
  };
}

/// The longest kernel of each phase takes its whole-trace SOL from the report's kernel rows.
void attach_kernel_sol(report::DeclaredPhaseReport& judged, const report::Report& built) {
  const auto gpu = std::find_if(built.gpus.begin(), built.gpus.end(),
                                [&](const report::GpuReport& g) { return g.device.index == judged.device; });
  if (gpu == built.gpus.end()) return;
  for (auto& phase : judged.phases) {
    if (!phase.kernel) continue;
    for (const auto& row : gpu->top_kernels) {
      if (row.name != phase.kernel->name) continue;
      phase.kernel->compute_sol_pct = row.compute_sol_pct;
      phase.kernel->compute_pipe = row.compute_pipe;
      phase.kernel->memory_sol_pct = row.memory_sol_pct;
      phase.kernel->memory_path = row.memory_path;
    }
  }
}

}  // namespace

auto prepare_phase_judge(const trace::Reader& reader, const std::string& phases_path)
    -> core::Result<report::PhaseJudge> {
  auto text = read_text_file(phases_path, "phase file");
  if (!text) return core::propagate(std::move(text));
  auto declared = report::parse_declared_phases(*text);
  if (!declared) return core::propagate(std::move(declared));
  auto device = pick_device(reader, *declared);
  if (!device) return core::propagate(std::move(device));
  return report::PhaseJudge(std::move(*declared), (*device)->index, tensor_peak_of(**device));
}

auto finish_phase_judge(const report::PhaseJudge& judge, const report::Report& built,
                        const std::string& phases_path) -> report::DeclaredPhaseReport {
  auto judged = judge.finish(phases_path);
  attach_kernel_sol(judged, built);
  return judged;
}

}  // namespace solscope::app
