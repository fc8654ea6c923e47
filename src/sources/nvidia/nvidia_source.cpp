#include "sources/nvidia/nvidia_source.hpp"
#include "core/units.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

namespace solscope::nvidia {
namespace {

using core::MetricId;
using core::SourceKind;

/// A GPM device that fails this many polls in a row (without being lost) falls back to NVML only.
constexpr int kGpmMaxFailures = 3;

constexpr std::string_view kNoDriverHint =
    "install the NVIDIA driver (nvidia-smi must work; in a container, run it with the NVIDIA container "
    "toolkit, --gpus all); `solscope replay FILE` works without a GPU";

/// Sampling is due once 90% of the interval has passed since `since_ns` (10% slack for timer jitter).
auto due(std::int64_t since_ns, std::int64_t now_ns, std::int64_t interval_ns) -> bool {
  return now_ns - since_ns >= interval_ns - interval_ns / 10;
}

/// Copies the NVML figures into a PM or GPM sample where that left them unknown.
void merge_nvml(const core::RawSample& nvml_figures, core::RawSample& sample) {
  for (const MetricId id : kNvmlMetrics) {
    if (std::isnan(sample.value(id))) sample.set(id, nvml_figures.value(id));
  }
}

auto epoch_now_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

NvidiaSource::NvidiaSource(NvidiaSourceDeps deps) : deps_(std::move(deps)) {
  if (!deps_.load_nvml) deps_.load_nvml = [] { return load_nvml(); };
  if (!deps_.euid) deps_.euid = [] { return static_cast<std::uint32_t>(::geteuid()); };
  if (!deps_.now_ns) deps_.now_ns = epoch_now_ns;
}

NvidiaSource::~NvidiaSource() {
  stop();
}

auto NvidiaSource::devices() const -> std::vector<core::DeviceInfo> {
  std::vector<core::DeviceInfo> infos;
  infos.reserve(active_.size());
  for (const Active& dev : active_) infos.push_back(dev.info);
  return infos;
}

auto NvidiaSource::open_nvml() const -> core::Result<NvmlReader> {
  auto api = deps_.load_nvml();
  if (!api) {
    if (api.error().code == core::ErrorCode::Unavailable) {
      return core::fail(core::ErrorCode::Unavailable, "no NVIDIA driver found", std::string(kNoDriverHint));
    }
    return core::propagate(std::move(api));
  }
  return NvmlReader::open(std::move(*api));
}

auto NvidiaSource::start(const sources::SourceConfig& config) -> core::Result<void> {
  if (running_)
    return core::fail(core::ErrorCode::FailedPrecondition, "nvidia source already started", "stop it first");
  if (config.interval_ns < core::kMinSampleIntervalNs) {
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "sampling interval " + std::to_string(config.interval_ns) + " ns is below the 1 ms floor",
        "use an interval of 1ms or more");
  }
  auto reader = open_nvml();
  if (!reader) return core::propagate(std::move(reader));
  auto selected = select_devices(config.devices, reader->device_count());
  if (!selected) return core::propagate(std::move(selected));

  reader_.emplace(std::move(*reader));
  interval_ns_ = config.interval_ns;
  best_source_ = config.best_source;
  active_.clear();
  pm_.reset();
  pm_factory_called_ = false;
  counters_busy_.clear();
  const ProfilingPermission permission =
      check_profiling_permission(deps_.procfs_root, deps_.euid(), reader_->driver_major());
  shared_nvml_.clear();
  for (const std::uint32_t index : *selected) start_selected(index, permission);
  for (Active& dev : active_) label_start_pause(dev);

  const auto on = [this](SourceKind kind) {
    return std::any_of(active_.begin(), active_.end(),
                       [kind](const Active& dev) { return !dev.status.lost && dev.status.source == kind; });
  };
  const bool any_yields = std::any_of(active_.begin(), active_.end(),
                                      [](const Active& dev) { return !dev.status.lost && dev.pm_capable; });
  if (pm_ && !any_yields) {  // kept while a device may take PM sampling again (CounterYield)
    pm_->close_all();
    pm_.reset();
  }
  if (!on(SourceKind::PmSampling) && !on(SourceKind::Gpm) && !on(SourceKind::NvmlOnly)) {
    const std::string why = active_.front().status.reason;
    stop();
    return core::fail(core::ErrorCode::Unavailable, "no NVIDIA device could be sampled: " + why,
                      std::string(kGpuLostHint));
  }
  running_ = true;
  return core::ok();
}

auto NvidiaSource::start_device(std::uint32_t index, const ProfilingPermission& permission) -> Active {
  Active dev;
  dev.info = reader_->device_info(index);
  const std::int64_t now = deps_.now_ns();
  dev.last_end_ns = now;
  if (reader_->is_lost(index)) {
    dev.status.lost = true;
    dev.status.reason = reader_->lost_reason(index);
    dev.status.hint = std::string(kGpuLostHint);
    return dev;
  }
  PmChoice choice = plan_pm_sampling(index, reader_->mig_enabled(index), permission,
                                     static_cast<bool>(deps_.make_pm_sampling));
  if (best_source_ != SourceKind::PmSampling && choice.try_pm) {
    choice = {.try_pm = false, .reason = "PM sampling not asked for", .hint = {}};
  }
  if (choice.try_pm && try_pm(dev, choice)) {
    dev.status = fallback_status(SourceKind::PmSampling, choice, {});
    return dev;
  }
  GpmSupportInfo gpm = query_gpm_support(reader_->api(), reader_->handle(index));
  if (best_source_ == SourceKind::NvmlOnly && gpm.supported) {
    gpm = {.supported = false, .reason = "GPM not asked for"};
  }
  if (gpm.supported) {
    auto gpm_reader = GpmReader::open(reader_->api(), reader_->handle(index), index, now);
    if (gpm_reader) {
      dev.gpm.emplace(std::move(*gpm_reader));
      dev.status = fallback_status(SourceKind::Gpm, choice, gpm);
      return dev;
    }
    gpm = {.supported = false, .reason = gpm_reader.error().message};
  }
  dev.status = fallback_status(SourceKind::NvmlOnly, choice, gpm);
  return dev;
}

auto NvidiaSource::try_pm(Active& dev, PmChoice& choice) -> bool {
  if (!pm_factory_called_) {
    pm_factory_called_ = true;
    pm_ = deps_.make_pm_sampling();
  }
  if (!pm_) {
    choice = {.try_pm = false,
              .reason = "PM sampling not available: the CUPTI PM sampler could not be created",
              .hint = {}};
    return false;
  }
  auto chip = pm_->open(dev.info.index, dev.info.pci_bus_id, interval_ns_);
  if (!chip) {
    choice = pm_open_failure(chip.error());
    note_pm_open_failure(dev, chip.error());
    return false;
  }
  dev.info.chip = std::move(*chip);
  dev.pm_capable = true;
  return true;
}

auto NvidiaSource::poll() -> core::Result<std::vector<core::RawSample>> {
  if (!running_) {
    return core::fail(core::ErrorCode::FailedPrecondition, "nvidia source not started", "call start() first");
  }
  const std::int64_t now = deps_.now_ns();
  std::vector<core::RawSample> out;
  if (pm_) poll_pm(now, out);
  for (Active& dev : active_) {
    if (dev.status.lost) continue;
    if (dev.status.source == SourceKind::Gpm) {
      poll_gpm(dev, now, out);
    } else if (dev.status.source == SourceKind::NvmlOnly) {
      poll_nvml_only(dev, now, out);
    }
  }
  flag_paused(out);
  return out;
}

void NvidiaSource::poll_pm(std::int64_t now_ns, std::vector<core::RawSample>& out) {
  PmPoll polled = pm_->poll();
  for (PmDeviceFault& fault : polled.lost) {
    if (Active* dev = find(fault.nvml_index); dev != nullptr && !dev->status.lost) {
      mark_lost(*dev, std::move(fault.error.message));
    }
  }
  for (core::RawSample& sample : polled.samples) {
    Active* dev = find(sample.device_index);
    if (dev == nullptr || dev->status.lost || dev->status.source != SourceKind::PmSampling) continue;
    if (!refresh_nvml(*dev, now_ns)) continue;
    merge_nvml(dev->nvml, sample);
    out.push_back(sample);
  }
  // After the samples: those decoded before another profiler took the counters are still PM samples.
  for (PmDeviceFault& fault : polled.busy) {
    on_counters_taken(fault.nvml_index, std::move(fault.error.message), now_ns);
  }
}

void NvidiaSource::poll_gpm(Active& dev, std::int64_t now_ns, std::vector<core::RawSample>& out) {
  // One sample per interval (GpmReader itself keeps NVML's 100 ms floor between GPM samples).
  if (!due(dev.last_end_ns, now_ns, interval_ns_)) return;
  auto got = dev.gpm->sample(now_ns);
  if (!got) {
    if (dev.gpm->lost()) {
      mark_lost(dev, std::move(got.error().message));
    } else if (++dev.gpm_failures >= kGpmMaxFailures) {
      dev.status.source = SourceKind::NvmlOnly;
      dev.status.reason += (dev.status.reason.empty() ? "" : "; ") + ("GPM failed: " + got.error().message);
      dev.gpm.reset();
    }
    return;
  }
  dev.gpm_failures = 0;
  if (!got->has_value() || !refresh_nvml(dev, now_ns)) return;
  core::RawSample sample = **got;
  merge_nvml(dev.nvml, sample);
  dev.last_end_ns = now_ns;
  out.push_back(sample);
}

void NvidiaSource::poll_nvml_only(Active& dev, std::int64_t now_ns, std::vector<core::RawSample>& out) {
  if (!due(dev.last_end_ns, now_ns, interval_ns_)) return;
  if (!refresh_nvml(dev, now_ns)) return;
  core::RawSample sample;
  merge_nvml(dev.nvml, sample);
  sample.device_index = dev.info.index;
  sample.t_start_ns = dev.last_end_ns;
  sample.t_end_ns = now_ns;
  sample.source = SourceKind::NvmlOnly;
  dev.last_end_ns = now_ns;
  out.push_back(sample);
}

auto NvidiaSource::refresh_nvml(Active& dev, std::int64_t now_ns) -> bool {
  if (dev.status.lost) return false;
  if (dev.has_nvml && !due(dev.nvml_read_ns, now_ns, interval_ns_)) return true;
  core::RawSample figures;
  if (auto read = read_figures(dev.info.index, now_ns, figures); !read) {
    mark_lost(dev, std::move(read.error().message));
    return false;
  }
  dev.nvml = figures;
  dev.has_nvml = true;
  dev.nvml_read_ns = now_ns;
  return true;
}

void NvidiaSource::mark_lost(Active& dev, std::string reason) {
  dev.status.lost = true;
  dev.status.reason = std::move(reason);
  dev.status.hint = std::string(kGpuLostHint);
  dev.gpm.reset();
  if (reader_) reader_->mark_lost(dev.info.index, dev.status.reason);
}

void NvidiaSource::stop() {
  if (pm_) {
    pm_->close_all();
    pm_.reset();
  }
  for (Active& dev : active_) dev.gpm.reset();  // GPM buffers go back before nvmlShutdown
  reader_.reset();
  running_ = false;
}

auto NvidiaSource::status(std::uint32_t device) const -> sources::DeviceStatus {
  const Active* dev = find(device);
  return dev != nullptr ? dev->status : sources::DeviceStatus{};
}

auto NvidiaSource::processes_on(std::uint32_t device) -> core::Result<std::vector<sources::DeviceProcess>> {
  if (!reader_)
    return core::fail(core::ErrorCode::FailedPrecondition, "nvidia source not started", "call start() first");
  if (find(device) == nullptr) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "device " + std::to_string(device) + " is not being sampled");
  }
  auto listed = reader_->processes(device);
  if (!listed) return core::propagate(std::move(listed));
  std::vector<sources::DeviceProcess> out;
  out.reserve(listed->size());
  for (const auto& p : *listed) {
    out.push_back(sources::DeviceProcess{.pid = static_cast<std::int32_t>(p.pid),
                                         .gpu_memory_bytes = p.used_memory_bytes == kUnknownMemory
                                                                 ? std::nullopt
                                                                 : std::optional(p.used_memory_bytes),
                                         .sm_pct = p.sm_pct,
                                         .graphics = p.graphics,
                                         .mps = p.mps});
  }
  return out;
}

auto NvidiaSource::find(std::uint32_t index) -> Active* {
  const auto it = std::find_if(active_.begin(), active_.end(),
                               [index](const Active& d) { return d.info.index == index; });
  return it == active_.end() ? nullptr : &*it;
}

auto NvidiaSource::find(std::uint32_t index) const -> const Active* {
  const auto it = std::find_if(active_.begin(), active_.end(),
                               [index](const Active& d) { return d.info.index == index; });
  return it == active_.end() ? nullptr : &*it;
}

}  // namespace solscope::nvidia
