// NvidiaSource's MIG devices: starting a selected GPU as its MIG devices, and their NVML figures (their own
// memory, the whole GPU's clocks, power and temperature). See the file comment of nvidia_source.hpp.
#include <cmath>
#include <utility>

#include "sources/nvidia/detail/mig_devices.hpp"
#include "sources/nvidia/nvidia_source.hpp"

namespace solscope::nvidia {

void NvidiaSource::start_selected(std::uint32_t gpu, const ProfilingPermission& permission) {
  const std::vector<std::uint32_t> migs = reader_->mig_devices(gpu);
  if (migs.empty()) {
    Active dev = start_device(gpu, permission);
    if (const std::string& note = reader_->mig_note(gpu); !note.empty() && !dev.status.lost) {
      dev.status.reason += (dev.status.reason.empty() ? "" : "; ") + note;
    }
    active_.push_back(std::move(dev));
    return;
  }
  for (const std::uint32_t index : migs) active_.push_back(start_mig_device(index));
}

auto NvidiaSource::start_mig_device(std::uint32_t index) -> Active {
  Active dev;
  dev.info = reader_->device_info(index);
  const std::int64_t now = deps_.now_ns();
  dev.last_end_ns = now;
  const std::uint32_t parent = dev.info.gpu_number();
  if (reader_->is_lost(parent) || reader_->is_lost(index)) {
    dev.status.lost = true;
    dev.status.reason = reader_->is_lost(index) ? reader_->lost_reason(index) : reader_->lost_reason(parent);
    dev.status.hint = std::string(kGpuLostHint);
    return dev;
  }
  MigChoice choice =
      plan_mig_device(reader_->api(), reader_->handle(parent), reader_->architecture(parent), parent);
  if (best_source_ == core::SourceKind::NvmlOnly && choice.gpm.supported) {
    choice.gpm = {.supported = false, .reason = "GPM not asked for"};
  }
  if (choice.gpm.supported) {
    auto gpm = GpmReader::open(reader_->api(), reader_->handle(parent), index, now,
                               static_cast<unsigned int>(dev.info.mig_instance_id));
    if (gpm) {
      dev.gpm.emplace(std::move(*gpm));
      dev.status = fallback_status(core::SourceKind::Gpm, choice.pm, choice.gpm);
      return dev;
    }
    choice.gpm = {.supported = false, .reason = gpm.error().message};
  }
  dev.status = fallback_status(core::SourceKind::NvmlOnly, choice.pm, choice.gpm);
  return dev;
}

auto NvidiaSource::read_figures(std::uint32_t index, std::int64_t now_ns, core::RawSample& figures)
    -> core::Result<void> {
  const core::DeviceInfo& info = reader_->device_info(index);
  if (!info.is_mig()) return reader_->read(index, figures);
  // The parent's figures once per poll, however many of its MIG devices are due.
  SharedFigures& shared = shared_nvml_[info.gpu_number()];
  if (!shared.valid || shared.read_ns != now_ns) {
    core::RawSample whole;
    if (auto read = reader_->read(info.gpu_number(), whole); !read) return read;
    shared = {.figures = whole, .read_ns = now_ns, .valid = true};
  }
  if (auto read = reader_->read(index, figures); !read) return read;
  for (const core::MetricId id : kMigParentMetrics) {
    if (std::isnan(figures.value(id))) figures.set(id, shared.figures.value(id));
  }
  return core::ok();
}

}  // namespace solscope::nvidia
