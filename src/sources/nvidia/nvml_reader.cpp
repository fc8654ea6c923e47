#include "sources/nvidia/nvml_reader.hpp"

#include <cstring>
#include <limits>
#include <utility>

#include "core/enum_table.hpp"
#include "core/units.hpp"
#include "sources/nvidia/detail/mig_devices.hpp"

namespace solscope::nvidia {
namespace {

using core::MetricId;

constexpr std::string_view kDriverCheckHint =
    "check the driver with nvidia-smi; after a driver update the host may need a reboot (driver/library "
    "version mismatch)";

// A call through an optional pointer: NVML_ERROR_FUNCTION_NOT_FOUND when the library lacks the function.
template <class Fn, class... Args>
auto invoke(Fn fn, Args... args) -> nvml::Return {
  return fn == nullptr ? nvml::kErrorFunctionNotFound : fn(args...);
}

// Codes that mean "this query will never work on this device with this driver".
auto is_unsupported_code(nvml::Return rc) -> bool {
  return rc == nvml::kErrorNotSupported || rc == nvml::kErrorNoPermission ||
         rc == nvml::kErrorFunctionNotFound || rc == nvml::kErrorArgumentVersionMismatch ||
         rc == nvml::kErrorDeprecated;
}

auto index_of(NvmlQuery q) -> std::size_t {
  return static_cast<std::size_t>(q);
}

template <std::size_t N>
auto to_text(const std::array<char, N>& buf) -> std::string {
  return {buf.data(), ::strnlen(buf.data(), N)};
}

auto device_name(std::uint32_t index, const core::DeviceInfo& info) -> std::string {
  std::string name = "device " + std::to_string(index);
  if (!info.uuid.empty()) name += " (" + info.uuid + ")";
  return name;
}

}  // namespace

constexpr core::EnumNames<NvmlQuery> kNvmlQueryNames(
    {"nvmlDeviceGetUtilizationRates", "nvmlDeviceGetClockInfo(NVML_CLOCK_SM)",
     "nvmlDeviceGetClockInfo(NVML_CLOCK_MEM)", "nvmlDeviceGetPowerUsage", "nvmlDeviceGetEnforcedPowerLimit",
     "nvmlDeviceGetTemperature", "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetComputeRunningProcesses",
     "nvmlDeviceGetGraphicsRunningProcesses", "nvmlDeviceGetMPSComputeRunningProcesses",
     "nvmlDeviceGetProcessUtilization"},
    "?");

auto to_string(NvmlQuery query) -> std::string_view {
  return kNvmlQueryNames(query);
}

auto driver_major_version(std::string_view version) -> int {
  int major = 0;
  std::size_t i = 0;
  for (; i < version.size() && version[i] >= '0' && version[i] <= '9' && major < 100000; ++i) {
    major = major * 10 + (version[i] - '0');
  }
  return i == 0 ? 0 : major;
}

auto dram_peak_bytes_per_s(unsigned int bus_width_bits, double max_mem_clock_mhz) -> double {
  if (bus_width_bits == 0 || !(max_mem_clock_mhz > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  constexpr double kTransfersPerClock = 2.0;  // DDR/HBM: core/device_info.hpp
  return static_cast<double>(bus_width_bits) / 8.0 * max_mem_clock_mhz * 1e6 * kTransfersPerClock;
}

auto NvmlReader::open(NvmlApi api) -> core::Result<NvmlReader> {
  NvmlReader reader(std::move(api));
  const NvmlApi& fns = reader.api_;
  if (const nvml::Return rc = fns.init(); rc != nvml::kSuccess) {
    return core::fail(core::ErrorCode::Unavailable, "nvmlInit failed: " + nvml_error_text(fns, rc),
                      std::string(kDriverCheckHint));
  }
  reader.session_ = NvmlSession(fns);
  std::array<char, nvml::kDriverVersionBufferSize> version{};
  if (fns.system_get_driver_version(version.data(), nvml::kDriverVersionBufferSize) == nvml::kSuccess) {
    reader.driver_version_ = to_text(version);
    reader.driver_major_ = driver_major_version(reader.driver_version_);
  }
  unsigned int count = 0;
  if (const nvml::Return rc = fns.device_get_count(&count); rc != nvml::kSuccess) {
    return core::fail(core::ErrorCode::Unavailable, "nvmlDeviceGetCount failed: " + nvml_error_text(fns, rc),
                      std::string(kDriverCheckHint));
  }
  reader.devices_.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    DeviceState& dev = reader.devices_[i];
    dev.info.index = i;
    if (const nvml::Return rc = fns.device_get_handle_by_index(i, &dev.handle); rc != nvml::kSuccess) {
      dev.handle = nullptr;
      dev.lost = true;
      dev.lost_reason =
          "device " + std::to_string(i) + ": nvmlDeviceGetHandleByIndex failed: " + nvml_error_text(fns, rc);
      continue;
    }
    reader.read_static(i, dev);
  }
  reader.physical_count_ = count;
  for (std::uint32_t i = 0; i < count; ++i) reader.add_mig_devices(i);
  return reader;
}

void NvmlReader::add_mig_devices(std::uint32_t gpu) {
  if (devices_[gpu].lost || !devices_[gpu].mig_enabled) return;
  MigLayout layout = enumerate_mig_devices(api_, devices_[gpu].handle, devices_[gpu].info,
                                           static_cast<std::uint32_t>(devices_.size()));
  if (layout.lost)
    mark_lost(gpu, device_name(gpu, devices_[gpu].info) + " lost while listing its MIG devices");
  devices_[gpu].mig_note = std::move(layout.note);
  const nvml::Architecture arch = devices_[gpu].arch;
  for (MigDevice& mig : layout.devices) {
    DeviceState state;
    state.handle = mig.handle;
    state.info = std::move(mig.info);
    state.arch = arch;
    devices_.push_back(std::move(state));
  }
}

auto NvmlReader::mig_devices(std::uint32_t gpu) const -> std::vector<std::uint32_t> {
  std::vector<std::uint32_t> out;
  for (std::size_t i = physical_count_; i < devices_.size(); ++i) {
    if (devices_[i].info.gpu_index == static_cast<std::int32_t>(gpu))
      out.push_back(static_cast<std::uint32_t>(i));
  }
  return out;
}

auto NvmlReader::mig_note(std::uint32_t gpu) const -> const std::string& {
  return devices_.at(gpu).mig_note;
}

NvmlReader::NvmlReader(NvmlReader&& other) noexcept
    : api_(std::move(other.api_)),
      driver_version_(std::move(other.driver_version_)),
      driver_major_(std::exchange(other.driver_major_, 0)),
      devices_(std::move(other.devices_)),
      physical_count_(std::exchange(other.physical_count_, 0)),
      session_(std::move(other.session_)) {
  other.devices_.clear();
}

auto NvmlReader::operator=(NvmlReader&& other) noexcept -> NvmlReader& {
  if (this != &other) {
    session_.reset();  // shut the replaced NVML session down before its table and devices go
    api_ = std::move(other.api_);
    driver_version_ = std::move(other.driver_version_);
    driver_major_ = std::exchange(other.driver_major_, 0);
    devices_ = std::move(other.devices_);
    other.devices_.clear();
    physical_count_ = std::exchange(other.physical_count_, 0);
    session_ = std::move(other.session_);
  }
  return *this;
}

void NvmlReader::read_static(std::uint32_t index, DeviceState& dev) {
  const auto lost_on = [&](nvml::Return rc) {
    if (rc == nvml::kErrorGpuIsLost)
      mark_lost(index, device_name(index, dev.info) + " lost: " + nvml_error_text(api_, rc));
    return rc == nvml::kSuccess;
  };
  std::array<char, nvml::kUuidBufferSize> uuid{};
  if (lost_on(api_.device_get_uuid(dev.handle, uuid.data(), nvml::kUuidBufferSize)))
    dev.info.uuid = to_text(uuid);
  std::array<char, nvml::kNameBufferSize> name{};
  if (lost_on(api_.device_get_name(dev.handle, name.data(), nvml::kNameBufferSize)))
    dev.info.name = to_text(name);
  nvml::PciInfo pci{};
  if (lost_on(api_.device_get_pci_info(dev.handle, &pci))) {
    dev.info.pci_bus_id = api_.pci_info_legacy ? to_text(pci.bus_id_legacy) : to_text(pci.bus_id);
  }
  unsigned int clock_mhz = 0;
  if (lost_on(invoke(api_.device_get_max_clock_info, dev.handle, nvml::kClockSm, &clock_mhz))) {
    dev.info.max_sm_clock_mhz = clock_mhz;
  }
  if (lost_on(invoke(api_.device_get_max_clock_info, dev.handle, nvml::kClockMem, &clock_mhz))) {
    dev.info.max_mem_clock_mhz = clock_mhz;
  }
  unsigned int bus_width_bits = 0;
  if (lost_on(invoke(api_.device_get_memory_bus_width, dev.handle, &bus_width_bits))) {
    dev.info.dram_peak_bytes_per_s = dram_peak_bytes_per_s(bus_width_bits, dev.info.max_mem_clock_mhz);
  }
  unsigned int mig_current = 0;
  unsigned int mig_pending = 0;
  if (lost_on(invoke(api_.device_get_mig_mode, dev.handle, &mig_current, &mig_pending))) {
    dev.mig_enabled = mig_current == nvml::kMigEnable;
  }
  if (!lost_on(invoke(api_.device_get_architecture, dev.handle, &dev.arch))) dev.arch = 0;
  core::RawSample memory;
  read_memory(dev, memory);
  const double total = memory.value(MetricId::MemoryTotalBytes);
  if (total > 0.0) dev.info.memory_total_bytes = static_cast<std::uint64_t>(total);
}

auto NvmlReader::device_info(std::uint32_t index) const -> const core::DeviceInfo& {
  return devices_.at(index).info;
}
auto NvmlReader::handle(std::uint32_t index) const -> nvml::Device {
  return devices_.at(index).handle;
}
auto NvmlReader::architecture(std::uint32_t index) const -> nvml::Architecture {
  return devices_.at(index).arch;
}
auto NvmlReader::mig_enabled(std::uint32_t index) const -> bool {
  return devices_.at(index).mig_enabled;
}
auto NvmlReader::is_lost(std::uint32_t index) const -> bool {
  return devices_.at(index).lost;
}
auto NvmlReader::lost_reason(std::uint32_t index) const -> const std::string& {
  return devices_.at(index).lost_reason;
}

void NvmlReader::mark_lost(std::uint32_t index, std::string reason) {
  DeviceState& dev = devices_.at(index);
  if (dev.lost) return;
  dev.lost = true;
  dev.lost_reason = std::move(reason);
}

auto NvmlReader::name_of(std::uint32_t index) const -> std::string {
  return device_name(index, devices_.at(index).info);
}

auto NvmlReader::lost_error(std::uint32_t index) const -> core::Unexpected<core::Error> {
  const DeviceState& dev = devices_.at(index);
  std::string message = dev.lost_reason.empty() ? device_name(index, dev.info) + " lost" : dev.lost_reason;
  return core::fail(core::ErrorCode::Unavailable, std::move(message), std::string(kGpuLostHint));
}

auto NvmlReader::callable(const DeviceState& dev, NvmlQuery query) -> bool {
  return !dev.lost && dev.caps.of(query) != QuerySupport::Unsupported;
}

auto NvmlReader::note(DeviceState& dev, NvmlQuery query, nvml::Return rc) -> bool {
  const std::size_t q = index_of(query);
  if (rc == nvml::kSuccess) {
    dev.caps.support[q] = QuerySupport::Supported;
    return true;
  }
  if (rc == nvml::kErrorGpuIsLost) {
    mark_lost(dev.info.index, device_name(dev.info.index, dev.info) + " lost: " + nvml_error_text(api_, rc));
  } else if (is_unsupported_code(rc)) {
    dev.caps.support[q] = QuerySupport::Unsupported;
    dev.caps.failure[q] = rc;
  }
  return false;
}

auto NvmlReader::read(std::uint32_t index, core::RawSample& sample) -> core::Result<void> {
  DeviceState& dev = devices_.at(index);
  if (dev.lost) return lost_error(index);
  for (const MetricId id : kNvmlMetrics) sample.set(id, core::kUnknown);
  if (callable(dev, NvmlQuery::Utilization)) {
    nvml::Utilization util{};
    if (note(dev, NvmlQuery::Utilization, invoke(api_.device_get_utilization_rates, dev.handle, &util))) {
      sample.set(MetricId::GpuUtil, util.gpu);
      sample.set(MetricId::MemCopyUtil, util.memory);
    }
  }
  read_clocks_power(dev, sample);
  read_temperature(dev, sample);
  read_memory(dev, sample);
  if (dev.lost) return lost_error(index);
  return core::ok();
}

void NvmlReader::read_clocks_power(DeviceState& dev, core::RawSample& sample) {
  unsigned int value = 0;
  if (callable(dev, NvmlQuery::SmClock) &&
      note(dev, NvmlQuery::SmClock, invoke(api_.device_get_clock_info, dev.handle, nvml::kClockSm, &value))) {
    sample.set(MetricId::SmClockMhz, value);
  }
  if (callable(dev, NvmlQuery::MemClock) &&
      note(dev, NvmlQuery::MemClock,
           invoke(api_.device_get_clock_info, dev.handle, nvml::kClockMem, &value))) {
    sample.set(MetricId::MemClockMhz, value);
  }
  // NVML power figures are in mW (NVML API reference).
  if (callable(dev, NvmlQuery::Power) &&
      note(dev, NvmlQuery::Power, invoke(api_.device_get_power_usage, dev.handle, &value))) {
    sample.set(MetricId::PowerW, value / core::kKilo);
  }
  if (callable(dev, NvmlQuery::PowerLimit) &&
      note(dev, NvmlQuery::PowerLimit, invoke(api_.device_get_enforced_power_limit, dev.handle, &value))) {
    sample.set(MetricId::PowerLimitW, value / core::kKilo);
  }
}

void NvmlReader::read_temperature(DeviceState& dev, core::RawSample& sample) {
  if (!callable(dev, NvmlQuery::Temperature)) return;
  double celsius = core::kUnknown;
  nvml::Return rc = nvml::kErrorFunctionNotFound;
  if (!dev.legacy_temperature && api_.device_get_temperature_v != nullptr) {
    nvml::TemperatureV1 temp{
        .version = nvml::kTemperatureV1Version, .sensor_type = nvml::kTemperatureGpu, .temperature = 0};
    rc = api_.device_get_temperature_v(dev.handle, &temp);
    if (rc == nvml::kSuccess) celsius = temp.temperature;
    // An older driver may export the versioned call without supporting it: fall back once, for good.
    dev.legacy_temperature = is_unsupported_code(rc) && api_.device_get_temperature != nullptr;
  }
  if (rc != nvml::kSuccess && rc != nvml::kErrorGpuIsLost && api_.device_get_temperature != nullptr) {
    unsigned int value = 0;
    rc = api_.device_get_temperature(dev.handle, nvml::kTemperatureGpu, &value);
    if (rc == nvml::kSuccess) celsius = value;
  }
  if (note(dev, NvmlQuery::Temperature, rc)) sample.set(MetricId::TemperatureC, celsius);
}

void NvmlReader::read_memory(DeviceState& dev, core::RawSample& sample) {
  if (!callable(dev, NvmlQuery::Memory)) return;
  nvml::Return rc = nvml::kErrorFunctionNotFound;
  double used = core::kUnknown;
  double total = core::kUnknown;
  if (!dev.legacy_memory && api_.device_get_memory_info_v2 != nullptr) {
    nvml::MemoryV2 mem{};
    mem.version = nvml::kMemoryV2Version;
    rc = api_.device_get_memory_info_v2(dev.handle, &mem);
    if (rc == nvml::kSuccess) {
      used = static_cast<double>(mem.used);
      total = static_cast<double>(mem.total);
    }
    dev.legacy_memory = is_unsupported_code(rc) && api_.device_get_memory_info != nullptr;
  }
  if (rc != nvml::kSuccess && rc != nvml::kErrorGpuIsLost && api_.device_get_memory_info != nullptr) {
    nvml::MemoryV1 mem{};
    rc = api_.device_get_memory_info(dev.handle, &mem);
    if (rc == nvml::kSuccess) {
      used = static_cast<double>(mem.used);
      total = static_cast<double>(mem.total);
    }
  }
  if (note(dev, NvmlQuery::Memory, rc)) {
    sample.set(MetricId::MemoryUsedBytes, used);
    sample.set(MetricId::MemoryTotalBytes, total);
  }
}

auto NvmlReader::capabilities(std::uint32_t index) -> NvmlCapabilities {
  DeviceState& dev = devices_.at(index);
  core::RawSample scratch;
  if (!dev.lost) (void)read(index, scratch);
  if (!dev.lost && dev.caps.of(NvmlQuery::Processes) == QuerySupport::Unprobed) (void)processes(index);
  return dev.caps;
}

}  // namespace solscope::nvidia
