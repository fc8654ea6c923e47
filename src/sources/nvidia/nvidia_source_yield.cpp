// NvidiaSource as a CounterYield: gives one GPU's CUPTI PM counters back to a profiler and takes them again
// (issue 23; the engine's core::PmYield decides when). A paused device runs on the next best source that
// coexists with profilers: NVML GPM on Hopper and newer (separate hardware, no conflict with profilers:
// docs/design/cupti-pm-sampling.md section 4, NVML reference "GPM functions"), else classic NVML.
#include <algorithm>
#include <string>
#include <utility>

#include "core/pm_yield.hpp"
#include "sources/nvidia/nvidia_source.hpp"

namespace solscope::nvidia {
namespace {

using core::PmPauseReason;
using core::SourceKind;

/// Why PM sampling is paused, for status().reason (kCountersBusy usually carries CUPTI's own message).
auto pause_why(PmPauseReason reason) -> std::string {
  switch (reason) {
    case PmPauseReason::kManual:
      return "paused on request; the GPU's counters are free for profilers";
    case PmPauseReason::kProfiler:
      return "an Nsight profiler runs on this node; the GPU's counters are free for it";
    case PmPauseReason::kDcgm:
      return "DCGM's profiling module is loaded; the GPU's counters are free for it";
    case PmPauseReason::kCountersBusy:
      return "CUPTI says another profiler holds the GPU's counters";
    case PmPauseReason::kPolicy:
      return "--pm-policy never: PM sampling is not used";
    case PmPauseReason::kNone:
    case PmPauseReason::kCount:
      break;
  }
  return "PM sampling is not used";
}

/// What takes PM sampling back, for status().hint.
auto pause_hint(PmPauseReason reason) -> std::string {
  switch (reason) {
    case PmPauseReason::kManual:
      return "`solscope profile resume` takes the counters back; the pause also ends on its own";
    case PmPauseReason::kProfiler:
    case PmPauseReason::kDcgm:
      return "PM sampling resumes once the profiler has ended";
    case PmPauseReason::kCountersBusy:
      return std::string(kBusyCountersHint);
    case PmPauseReason::kPolicy:
      return "run with --pm-policy yield (the default) or hold for PM sampling";
    case PmPauseReason::kNone:
    case PmPauseReason::kCount:
      break;
  }
  return {};
}

}  // namespace

auto NvidiaSource::yields(std::uint32_t device) const -> bool {
  const Active* dev = find(device);
  return dev != nullptr && !dev->status.lost && dev->pm_capable;
}

auto NvidiaSource::set_pm_pause(std::uint32_t device, core::PmPauseReason reason) -> core::Result<void> {
  if (!running_)
    return core::fail(core::ErrorCode::FailedPrecondition, "nvidia source not started", "call start() first");
  Active* dev = find(device);
  if (dev == nullptr) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "device " + std::to_string(device) + " is not being sampled");
  }
  if (dev->status.lost || !dev->pm_capable) return core::ok();  // holds no counters: nothing to give back
  if (reason == PmPauseReason::kNone) return resume_pm(*dev);
  if (dev->pm_pause == reason) return core::ok();  // keeps the detail (CUPTI's message) already shown
  if (dev->status.source == SourceKind::PmSampling) {
    pm_->close(dev->info.index);
    open_fallback(*dev, deps_.now_ns());
  }
  set_paused(*dev, reason, pause_why(reason));
  return core::ok();
}

auto NvidiaSource::take_counters_busy() -> std::vector<std::pair<std::uint32_t, std::string>> {
  return std::exchange(counters_busy_, {});
}

auto NvidiaSource::resume_pm(Active& dev) -> core::Result<void> {
  if (dev.status.source == SourceKind::PmSampling) return core::ok();
  if (!pm_) {  // cannot happen: the sampler is kept while a device yields (start())
    return core::fail(core::ErrorCode::Internal,
                      "no CUPTI PM sampler to resume GPU " + std::to_string(dev.info.index) + " with");
  }
  auto chip = pm_->open(dev.info.index, dev.info.pci_bus_id, interval_ns_);
  if (!chip) {
    if (chip.error().code == core::ErrorCode::Unavailable) {
      set_paused(dev, PmPauseReason::kCountersBusy, chip.error().message);
    } else {
      dev.pm_pause = PmPauseReason::kNone;
      dev.status = fallback_status(dev.status.source, pm_open_failure(chip.error()),
                                   GpmSupportInfo{.supported = false, .reason = dev.gpm_note});
    }
    return core::propagate(std::move(chip));
  }
  dev.info.chip = std::move(*chip);
  dev.gpm.reset();
  dev.gpm_note.clear();
  dev.pm_pause = PmPauseReason::kNone;
  dev.status = fallback_status(SourceKind::PmSampling, {}, {});
  return core::ok();
}

void NvidiaSource::note_pm_open_failure(Active& dev, const core::Error& error) {
  // PmSampling::open's Unavailable means the counters are held (pm_open_failure reads it the same way).
  if (error.code != core::ErrorCode::Unavailable) return;
  dev.pm_capable = true;
  dev.pm_pause = PmPauseReason::kCountersBusy;
  counters_busy_.emplace_back(dev.info.index, error.message);
}

void NvidiaSource::label_start_pause(Active& dev) {
  if (dev.pm_pause == PmPauseReason::kNone || dev.status.lost) return;
  if (dev.status.source == SourceKind::NvmlOnly) {
    dev.gpm_note = query_gpm_support(reader_->api(), reader_->handle(dev.info.index)).reason;
  }
  const auto it = std::find_if(counters_busy_.begin(), counters_busy_.end(),
                               [&](const auto& entry) { return entry.first == dev.info.index; });
  set_paused(dev, dev.pm_pause, it != counters_busy_.end() ? it->second : pause_why(dev.pm_pause));
}

void NvidiaSource::open_fallback(Active& dev, std::int64_t now_ns) {
  const nvml::Device handle = reader_->handle(dev.info.index);
  GpmSupportInfo gpm = query_gpm_support(reader_->api(), handle);
  if (gpm.supported) {
    auto opened = GpmReader::open(reader_->api(), handle, dev.info.index, now_ns);
    if (opened) {
      dev.gpm.emplace(std::move(*opened));
    } else {
      gpm = {.supported = false, .reason = opened.error().message};
    }
  }
  dev.status.source = dev.gpm ? SourceKind::Gpm : SourceKind::NvmlOnly;
  dev.gpm_note = dev.gpm ? std::string() : gpm.reason;
  dev.gpm_failures = 0;
  dev.last_end_ns = now_ns;  // the fallback's first sample starts at the pause
}

void NvidiaSource::set_paused(Active& dev, core::PmPauseReason reason, std::string why) {
  dev.pm_pause = reason;
  dev.status.reason = "PM sampling paused (" + std::string(core::to_string(reason)) + "): " + std::move(why);
  if (dev.status.source == SourceKind::NvmlOnly && !dev.gpm_note.empty()) {
    dev.status.reason += "; GPM: " + dev.gpm_note;
  }
  dev.status.hint = pause_hint(reason);
}

void NvidiaSource::on_counters_taken(std::uint32_t index, std::string message, std::int64_t now_ns) {
  Active* dev = find(index);
  if (dev == nullptr || dev->status.lost || dev->status.source != SourceKind::PmSampling) return;
  open_fallback(*dev, now_ns);
  set_paused(*dev, PmPauseReason::kCountersBusy, message);
  counters_busy_.emplace_back(index, std::move(message));
}

void NvidiaSource::flag_paused(std::vector<core::RawSample>& samples) const {
  for (core::RawSample& sample : samples) {
    if (sample.source == SourceKind::PmSampling) continue;  // decoded before the pause: a real PM sample
    const Active* dev = find(sample.device_index);
    if (dev == nullptr || dev->pm_pause == PmPauseReason::kNone) continue;
    sample.flags |= core::kSamplePmPaused;
    sample.pm_pause = dev->pm_pause;
  }
}

}  // namespace solscope::nvidia
