// NvidiaSource::probe(): what `solscope devices` prints, found without sampling and without CUPTI.
#include "sources/nvidia/nvidia_source.hpp"

namespace solscope::nvidia {
namespace {

/// A whole GPU as start() would sample it (its MIG devices aside).
auto probe_gpu(NvmlReader& reader, std::uint32_t index, const ProfilingPermission& permission,
               bool pm_available) -> NvidiaDeviceProbe {
  NvidiaDeviceProbe dev;
  dev.info = reader.device_info(index);
  if (!reader.is_lost(index)) {
    dev.mig_enabled = reader.mig_enabled(index);
    dev.architecture = reader.architecture(index);
    dev.capabilities = reader.capabilities(index);
    dev.gpm = query_gpm_support(reader.api(), reader.handle(index));
    dev.mig_note = reader.mig_note(index);
    const PmChoice pm = plan_pm_sampling(index, dev.mig_enabled, permission, pm_available);
    dev.pm_sampling_would_try = pm.try_pm;
    const core::SourceKind first = pm.try_pm           ? core::SourceKind::PmSampling
                                   : dev.gpm.supported ? core::SourceKind::Gpm
                                                       : core::SourceKind::NvmlOnly;
    dev.status = fallback_status(first, pm, dev.gpm);
  }
  if (reader.is_lost(index)) {
    dev.status.lost = true;
    dev.status.source = core::SourceKind::None;
    dev.status.reason = reader.lost_reason(index);
  }
  return dev;
}

/// A MIG device of `parent` as start() would sample it.
auto probe_mig(NvmlReader& reader, std::uint32_t index, const NvidiaDeviceProbe& parent)
    -> NvidiaDeviceProbe {
  NvidiaDeviceProbe dev;
  dev.info = reader.device_info(index);
  dev.architecture = parent.architecture;
  dev.capabilities = reader.capabilities(index);
  const std::uint32_t gpu = dev.info.gpu_number();
  const MigChoice choice = plan_mig_device(reader.api(), reader.handle(gpu), parent.architecture, gpu);
  dev.gpm = choice.gpm;
  dev.status = fallback_status(choice.gpm.supported ? core::SourceKind::Gpm : core::SourceKind::NvmlOnly,
                               choice.pm, choice.gpm);
  if (reader.is_lost(index)) {
    dev.status = {};
    dev.status.lost = true;
    dev.status.reason = reader.lost_reason(index);
  }
  return dev;
}

}  // namespace

auto NvidiaSource::probe() const -> core::Result<NvidiaProbe> {
  auto reader = open_nvml();
  if (!reader) return core::propagate(std::move(reader));
  NvidiaProbe probe;
  probe.driver_version = reader->driver_version();
  probe.permission = check_profiling_permission(deps_.procfs_root, deps_.euid(), reader->driver_major());
  const bool pm_available = static_cast<bool>(deps_.make_pm_sampling);
  for (std::uint32_t index = 0; index < reader->device_count(); ++index) {
    NvidiaDeviceProbe gpu = probe_gpu(*reader, index, probe.permission, pm_available);
    const std::vector<std::uint32_t> migs = reader->mig_devices(index);
    gpu.mig_device_count = static_cast<std::uint32_t>(migs.size());
    probe.devices.push_back(gpu);
    for (const std::uint32_t mig : migs) probe.devices.push_back(probe_mig(*reader, mig, gpu));
  }
  return probe;
}

}  // namespace solscope::nvidia
