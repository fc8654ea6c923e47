#include "server/detail/metric_families.hpp"

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "core/metric_catalog.hpp"
#include "core/pm_yield.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "server/detail/metric_builder.hpp"
#include "server/detail/workload_metrics.hpp"

namespace solscope::server::detail {
namespace {

/// The labels that join with dcgm-exporter, as it sets them (its metric template in NVIDIA/dcgm-exporter:
/// `gpu="{{ $metric.GPU }}",UUID="{{ $metric.GPUUUID }}",...,modelName=...{{if $metric.MigProfile}},
/// GPU_I_PROFILE=...,GPU_I_ID=...{{end}}`): gpu = the physical GPU's index and UUID = the physical GPU's
/// "GPU-..." UUID, for a MIG instance too; GPU_I_PROFILE and GPU_I_ID only on a MIG instance's series; then
/// hostname (docs/design/style.md section 5). Without the workload labels (gpu_series_labels adds them).
auto gpu_labels(const core::DeviceState& d, const MetricsContext& context) -> Labels {
  const core::DeviceInfo& info = d.info;
  const bool mig = info.is_mig();
  Labels labels{{"gpu", std::to_string(info.gpu_number())},
                {"UUID", mig && !info.parent_uuid.empty() ? info.parent_uuid : info.uuid},
                {"modelName", info.name}};
  if (mig) {
    labels.push_back({"GPU_I_PROFILE", info.mig_profile});
    labels.push_back(
        {"GPU_I_ID", info.mig_instance_id < 0 ? std::string() : std::to_string(info.mig_instance_id)});
  }
  labels.push_back({"hostname", context.hostname});
  return labels;
}

auto pipe_name(std::size_t i) -> std::string_view {
  return core::to_string(static_cast<core::Pipe>(i));
}
auto path_name(std::size_t i) -> std::string_view {
  return core::to_string(static_cast<core::MemPath>(i));
}

void add_sol_gauges(Families& f, const core::SolSample& w, const Labels& gpu) {
  f.gauge(core::kPromComputeSolName, "Compute SOL of the latest window: busiest compute pipe, 0-1 of peak.",
          w.compute_pipe == core::Pipe::kCount ? gpu : with(gpu, "pipe", core::to_string(w.compute_pipe)),
          w.compute_sol_pct * core::kRatioPerPercent);
  f.gauge(core::kPromMemorySolName, "Memory SOL of the latest window: busiest memory path, 0-1 of peak.",
          w.memory_path == core::MemPath::kCount ? gpu : with(gpu, "path", core::to_string(w.memory_path)),
          w.memory_sol_pct * core::kRatioPerPercent);
  // Family names from the catalog (every pipe row shares one family, every path row another).
  const std::string_view pipe_family = core::metric_def(core::MetricId::TensorPipe).prom_name;
  const std::string_view path_family = core::metric_def(core::MetricId::DramThroughput).prom_name;
  for (std::size_t i = 0; i < core::kPipeCount; ++i) {
    f.gauge(pipe_family, "Busy fraction of each compute pipe over the latest window, 0-1 of peak sustained.",
            with(gpu, "pipe", pipe_name(i)), w.pipe_pct[i] * core::kRatioPerPercent);
  }
  for (std::size_t i = 0; i < core::kMemPathCount; ++i) {
    f.gauge(path_family, "Busy fraction of each memory path over the latest window, 0-1 of peak sustained.",
            with(gpu, "path", path_name(i)), w.path_pct[i] * core::kRatioPerPercent);
  }
  f.gauge(
      "solscope_attainable_compute_sol_ratio",
      "Compute SOL the running workload can attain (ceiling model), 0-1; only when the workload is known.",
      gpu, w.attainable_compute_sol_pct * core::kRatioPerPercent);
  f.gauge("solscope_attainable_memory_sol_ratio",
          "Memory SOL the running workload can attain (ceiling model), 0-1; only when the workload is known.",
          gpu, w.attainable_memory_sol_pct * core::kRatioPerPercent);
}

/// Every catalog metric that is not a pipe or path, under its own family, scaled to base units once here.
void add_catalog_gauges(Families& f, const core::SolSample& w, const Labels& gpu) {
  for (const core::MetricDef& def : core::metric_catalog()) {
    if (def.role == core::MetricRole::ComputePipe || def.role == core::MetricRole::MemoryPath) continue;
    f.gauge(def.prom_name, def.help, gpu, w.metrics[core::index_of(def.id)] * def.prom_scale);
  }
}

void add_bound_gauges(Families& f, const core::SolSample& w, const Labels& gpu) {
  if (w.bound == core::Bound::Unknown) return;
  for (const core::Bound b :
       {core::Bound::Compute, core::Bound::Memory, core::Bound::Latency, core::Bound::Idle}) {
    f.gauge("solscope_bound",
            "1 for the bound class of the latest window (compute, memory, latency, idle), else 0.",
            with(gpu, "bound", core::to_string(b)), w.bound == b ? 1.0 : 0.0);
  }
}

/// The reasons a pause can have (every PmPauseReason but kNone), in enum order: the states of
/// solscope_pm_paused and the `reason` values of solscope_pm_paused_seconds_total.
auto pause_reasons() -> std::array<core::PmPauseReason, core::kPmPauseReasonCount - 1> {
  std::array<core::PmPauseReason, core::kPmPauseReasonCount - 1> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<core::PmPauseReason>(i + 1);
  return out;
}

/// solscope_pm_paused{reason}: a state set (OpenMetrics "StateSet"; the shape of solscope_bound), one series
/// per reason, 1 for the reason of the newest sample, so all 0 while PM sampling runs. Every reason is
/// always there, so a series never appears or vanishes with a pause (Prometheus "Avoid missing metrics").
/// Left out before the first sample: whether a GPU is paused is known from its samples only.
void add_pause_gauges(Families& f, const core::DeviceSnapshot& d, const Labels& gpu) {
  if (!d.latest) return;
  for (const core::PmPauseReason reason : pause_reasons()) {
    f.gauge("solscope_pm_paused",
            "1 for the reason PM sampling is paused (manual, profiler, dcgm, counters_busy, policy), all 0 "
            "while it runs; the figures then come from GPM or NVML.",
            with(gpu, "reason", core::to_string(reason)), d.latest->pm_pause == reason ? 1.0 : 0.0);
  }
}

/// A busy-seconds counter and its known-seconds companion; both left out while the figure was never known.
void add_busy(Families& f, std::string_view name, std::string_view known_name, std::string_view what,
              const Labels& labels, double busy_s, double known_s) {
  if (known_s <= 0.0) return;
  f.counter(name,
            std::string("Seconds of ") + std::string(what) + " (busy fraction x sample seconds); " +
                "rate() is the mean busy fraction.",
            labels, busy_s);
  f.counter(known_name, std::string("Seconds of samples where ") + std::string(what) + " was known.", labels,
            known_s);
}

void add_counters(Families& f, const core::DeviceSnapshot& d, const Labels& gpu) {
  const core::BusyCounters& c = d.counters;
  f.counter("solscope_sampled_seconds_total", "Seconds covered by samples.", gpu, c.sampled_seconds);
  add_busy(f, "solscope_compute_sol_seconds_total", "solscope_compute_sol_known_seconds_total", "Compute SOL",
           gpu, c.compute_sol_seconds, c.compute_sol_known_seconds);
  add_busy(f, "solscope_memory_sol_seconds_total", "solscope_memory_sol_known_seconds_total", "Memory SOL",
           gpu, c.memory_sol_seconds, c.memory_sol_known_seconds);
  for (std::size_t i = 0; i < core::kPipeCount; ++i) {
    add_busy(f, "solscope_pipe_busy_seconds_total", "solscope_pipe_known_seconds_total",
             "the pipe's activity", with(gpu, "pipe", pipe_name(i)), c.pipe_seconds[i],
             c.pipe_known_seconds[i]);
  }
  for (std::size_t i = 0; i < core::kMemPathCount; ++i) {
    add_busy(f, "solscope_memory_path_busy_seconds_total", "solscope_memory_path_known_seconds_total",
             "the memory path's activity", with(gpu, "path", path_name(i)), c.path_seconds[i],
             c.path_known_seconds[i]);
  }
  add_busy(f, "solscope_sm_active_seconds_total", "solscope_sm_active_known_seconds_total", "SM activity",
           gpu, c.sm_active_seconds, c.sm_active_known_seconds);
  add_busy(f, "solscope_gpu_utilization_seconds_total", "solscope_gpu_utilization_known_seconds_total",
           "classic GPU utilization", gpu, c.gpu_util_seconds, c.gpu_util_known_seconds);
  if (!std::isnan(d.state.info.dram_peak_bytes_per_s) || c.dram_bytes > 0.0) {
    f.counter("solscope_dram_bytes_total", "Bytes moved to and from DRAM.", gpu, c.dram_bytes);
  }
  f.counter("solscope_samples_total", "Samples received.", gpu, static_cast<double>(c.samples));
  f.counter("solscope_sample_gaps_total", "Samples that follow a gap (samples lost before them).", gpu,
            static_cast<double>(c.gaps));
  for (std::size_t b = 0; b < c.bound_samples.size(); ++b) {
    f.counter("solscope_bound_samples_total", "Samples classified in each bound class.",
              with(gpu, "bound", core::to_string(static_cast<core::Bound>(b))),
              static_cast<double>(c.bound_samples[b]));
  }
  for (const core::PmPauseReason reason : pause_reasons()) {
    f.counter("solscope_pm_paused_seconds_total",
              "Seconds of samples taken while PM sampling was paused, per reason; rate() is the paused "
              "fraction of time.",
              with(gpu, "reason", core::to_string(reason)),
              c.pm_paused_seconds[static_cast<std::size_t>(reason)]);
  }
}

/// The training iteration found in the GPU's samples (core::IterationEstimate), only while it is periodic: a
/// GPU that is "not periodic" has none of these series (a period is never forced, so none is exported).
void add_iteration_gauges(Families& f, const core::IterationEstimate& it, const Labels& gpu) {
  if (!it.periodic) return;
  f.gauge(core::kPromIterationSecondsName,
          "Period of the GPU's training iteration, found in its samples (autocorrelation), seconds.", gpu,
          it.period_s);
  f.gauge(core::kPromIterationJitterName,
          "Standard deviation of the single iterations' lengths around the period, seconds.", gpu,
          it.jitter_s);
  f.gauge(core::kPromIterationConfidenceName,
          "How sure the period is: the normalised autocorrelation at the period, 0-1.", gpu, it.confidence);
  f.gauge(core::kPromIterationComputeName,
          "Share of the iteration the SMs work (its compute-, memory- and latency-bound parts), 0-1; "
          "the iteration's compute time is this times solscope_iteration_seconds.",
          gpu, it.compute_ratio);
  f.gauge(core::kPromIterationCommunicationName,
          "Share of the iteration the interconnect (NVLink or PCIe) is busy, 0-1.", gpu,
          it.communication_ratio);
  f.gauge(core::kPromIterationExposedName,
          "Share of the iteration the interconnect is busy while the SMs wait (no compute overlaps it), 0-1.",
          gpu, it.exposed_communication_ratio);
  f.gauge(core::kPromIterationOffsetName,
          "The communication start's offset within the period, epoch-anchored (Unix time of the start modulo "
          "the period), seconds: what a Cassini-style scheduler shifts to interleave jobs.",
          gpu, it.communication_offset_s);
}

void add_device(Families& f, const core::DeviceSnapshot& d, const MetricsContext& context) {
  const Labels base = gpu_labels(d.state, context);
  const Labels gpu = gpu_series_labels(base, d.state.workloads);
  Labels info = gpu;
  info.push_back({"chip", d.state.info.chip});
  info.push_back({"pci_bus_id", d.state.info.pci_bus_id});
  info.push_back({"source", std::string(core::to_string(d.state.source))});
  f.gauge("solscope_gpu_info", "Facts about the GPU in labels; always 1.", std::move(info), 1.0);
  f.gauge("solscope_gpu_lost", "1 when the GPU stopped answering (fell off the bus, driver reset), else 0.",
          gpu, d.state.lost ? 1.0 : 0.0);
  if (d.latest_window) {
    add_sol_gauges(f, *d.latest_window, gpu);
    add_catalog_gauges(f, *d.latest_window, gpu);
    add_bound_gauges(f, *d.latest_window, gpu);
  }
  add_iteration_gauges(f, d.iteration, gpu);
  add_pause_gauges(f, d, gpu);
  add_counters(f, d, gpu);
  add_workload_families(f, d, base, gpu);
}

}  // namespace

auto collect_families(std::span<const core::DeviceSnapshot> devices, const MetricsContext& context,
                      const StreamStats* stream) -> std::vector<MetricFamily> {
  Families f;
  f.gauge("solscope_build_info", "solscope's version in a label; always 1.",
          Labels{{"version", context.version}}, 1.0);
  for (const core::DeviceSnapshot& d : devices) add_device(f, d, context);
  if (stream != nullptr) {
    f.gauge("solscope_stream_clients", "Clients connected to /api/v1/stream now.", Labels{},
            static_cast<double>(stream->clients));
    f.counter("solscope_stream_rejected_total", "Stream clients refused (429) because the limit was reached.",
              Labels{}, static_cast<double>(stream->rejected));
    f.counter("solscope_stream_dropped_events_total", "Stream events lost by clients too slow to take them.",
              Labels{}, static_cast<double>(stream->dropped_events));
  }
  return f.take();
}

}  // namespace solscope::server::detail
