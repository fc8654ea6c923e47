#include "core/device_info.hpp"

namespace solscope::core {

auto device_label(const DeviceInfo& device) -> std::string {
  std::string label = "GPU " + std::to_string(device.gpu_number());
  if (!device.is_mig()) return label;
  label += " \u00b7 MIG";
  if (!device.mig_profile.empty()) label += " " + device.mig_profile;
  if (device.mig_instance_id >= 0) label += " #" + std::to_string(device.mig_instance_id);
  return label;
}

}  // namespace solscope::core
