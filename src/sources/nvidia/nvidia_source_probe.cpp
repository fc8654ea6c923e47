// NvidiaSource::probe(): what `solscope devices` prints, found without sampling and without CUPTI.
#include "sources/nvidia/nvidia_source.hpp"

namespace solscope::nvidia {

auto NvidiaSource::probe() const -> core::Result<NvidiaProbe> {
  auto reader = open_nvml();
  if (!reader) return core::propagate(std::move(reader));
  NvidiaProbe probe;
  probe.driver_version = reader->driver_version();
  probe.permission = check_profiling_permission(deps_.procfs_root, deps_.euid(), reader->driver_major());
  for (std::uint32_t index = 0; index < reader->device_count(); ++index) {
    NvidiaDeviceProbe dev;
    dev.info = reader->device_info(index);
    if (!reader->is_lost(index)) {
      dev.mig_enabled = reader->mig_enabled(index);
      dev.architecture = reader->architecture(index);
      dev.capabilities = reader->capabilities(index);
      dev.gpm = query_gpm_support(reader->api(), reader->handle(index));
      const PmChoice pm = plan_pm_sampling(index, dev.mig_enabled, probe.permission,
                                           static_cast<bool>(deps_.make_pm_sampling));
      dev.pm_sampling_would_try = pm.try_pm;
      const core::SourceKind first = pm.try_pm           ? core::SourceKind::PmSampling
                                     : dev.gpm.supported ? core::SourceKind::Gpm
                                                         : core::SourceKind::NvmlOnly;
      dev.status = fallback_status(first, pm, dev.gpm);
    }
    if (reader->is_lost(index)) {
      dev.status.lost = true;
      dev.status.source = core::SourceKind::None;
      dev.status.reason = reader->lost_reason(index);
    }
    probe.devices.push_back(std::move(dev));
  }
  return probe;
}

}  // namespace solscope::nvidia
