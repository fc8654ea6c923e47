#include "data/synthetic/workloads_trace.hpp"

#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "data/synthetic/workloads.hpp"
#include "trace/writer.hpp"

namespace solscope::synthetic {

auto write_workloads_trace(const std::filesystem::path& path, bool overwrite) -> core::Result<std::uint64_t> {
  trace::WriterOptions options;
  options.overwrite = overwrite;
  options.synthetic = true;
  options.source_description =
      "synthetic: the workloads scenario of tests/data/synthetic/workloads.hpp (a time-sliced GPU with two "
      "pods "
      "at 60/20 % SM, an exclusive GPU with a pod allocated but idle for 8 s); not a GPU recording";
  options.host = "synthetic";
  options.start_time_ns = kWorkloadScenarioStartNs;
  auto writer = trace::Writer::open(path, options);
  if (!writer) return core::propagate(writer);
  const auto devs = devices(kWorkloadScenarioDevices);
  if (auto done = writer->write_devices(devs); !done) return core::propagate(done);
  if (auto done = writer->set_workload_refresh(); !done) return core::propagate(done);
  const auto changes = workload_scenario_changes();
  std::size_t next_change = 0;
  std::uint64_t written = 0;
  for (const core::RawSample& raw : workload_scenario_samples()) {
    for (; next_change < changes.size() && changes[next_change].t_ns <= raw.t_start_ns; ++next_change) {
      const WorkloadChangeAt& c = changes[next_change];
      if (auto done = writer->add_workloads(c.device, c.t_ns, c.workloads); !done)
        return core::propagate(done);
    }
    if (auto done = writer->append(raw, core::derive(raw, devs[raw.device_index])); !done)
      return core::propagate(done);
    ++written;
  }
  if (auto done = writer->close(); !done) return core::propagate(done);
  return written;
}

}  // namespace solscope::synthetic
