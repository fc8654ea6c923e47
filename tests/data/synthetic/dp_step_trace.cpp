// The SYNTHETIC 4-rank data-parallel step written as a trace (dp_step_trace.hpp).
#include "data/synthetic/dp_step_trace.hpp"

#include <utility>
#include <vector>

#include "data/synthetic/dp_step.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/writer.hpp"

namespace solscope::synthetic {

auto write_dp_step_trace(const std::filesystem::path& path, bool overwrite) -> core::Result<std::uint64_t> {
  const DpStep d = dp_step();
  trace::WriterOptions w;
  w.overwrite = overwrite;
  w.host = "synthetic";
  w.start_time_ns = kDpStepStartNs;
  w.source_description =
      "synthetic: the 4-rank data-parallel step of tests/data/synthetic/dp_step_scenario.md (6 steps of "
      "100 ms, an overlapped and an exposed all-reduce, rank 2 the straggler); never measured on a GPU";
  const std::vector<core::KernelRecord> kernels = d.all_kernels();
  return write_samples(
      path, std::move(w), devices(kDpStepRanks), kDpStepSamples,
      [&d](std::uint32_t g, std::uint64_t n) { return d.samples[n * kDpStepRanks + g]; }, &kernels,
      &d.markers);
}

}  // namespace solscope::synthetic
