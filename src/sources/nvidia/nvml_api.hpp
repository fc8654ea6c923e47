// NvmlApi: the NVML functions solscope calls, as a table of plain function pointers filled by load_nvml()
// (dlopen of libnvidia-ml at run time) or, in tests, by fakes (tests/support/fake_nvml.hpp).
//
// There is no nvml.h on the build machines, so the few NVML types used are declared here from NVIDIA's public
// NVML API reference. Layouts and values were checked against NVIDIA/go-nvml `gen/nvml/nvml.h`
// (NVML 13.3.29, NVML_API_VERSION 13, go-nvml commit 2f9e261f, 2026-07-01; the CUDA 13.0 toolkit on the build
// machines ships no nvml.h); the section of that header is named beside each
// declaration, and the static_asserts below pin the sizes that follow from those layouts on LP64 Linux. Names
// are solscope's own (PascalCase in namespace `nvml`); the C name is given in each comment. Symbol list and
// loading rules:
// docs/design/cupti-pm-sampling.md section 6.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "core/result.hpp"
#include "sources/nvidia/dynamic_library.hpp"

namespace solscope::nvidia {

/// NVML vendor types and constants (declared here because no nvml.h is available at build time).
namespace nvml {

/// `nvmlReturn_t` (a C enum, int-sized). Values from nvml.h `nvmlReturn_enum`.
using Return = int;
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorFunctionNotFound = 13;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorResetRequired = 16;
inline constexpr Return kErrorArgumentVersionMismatch = 25;
inline constexpr Return kErrorDeprecated = 26;
inline constexpr Return kErrorUnknown = 999;

/// `nvmlDevice_t`: an opaque handle (`struct nvmlDevice_st*`).
struct DeviceOpaque;
using Device = DeviceOpaque*;

/// `nvmlClockType_t` (nvml.h `nvmlClockType_enum`): NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2.
using ClockType = int;
inline constexpr ClockType kClockSm = 1;
inline constexpr ClockType kClockMem = 2;

/// `nvmlTemperatureSensors_t`: NVML_TEMPERATURE_GPU = 0 (the die).
using TemperatureSensor = int;
inline constexpr TemperatureSensor kTemperatureGpu = 0;

/// `nvmlDeviceArchitecture_t` (unsigned int) and the NVML_DEVICE_ARCH_* values used in messages.
using Architecture = unsigned int;
inline constexpr Architecture kArchVolta = 5;
inline constexpr Architecture kArchTuring = 6;
inline constexpr Architecture kArchAmpere = 7;
inline constexpr Architecture kArchAda = 8;
inline constexpr Architecture kArchHopper = 9;
inline constexpr Architecture kArchBlackwell = 10;

/// NVML_DEVICE_MIG_ENABLE: the current mode returned by nvmlDeviceGetMigMode when MIG is on.
inline constexpr unsigned int kMigEnable = 1;

/// NVML_GPU_INSTANCE_PROFILE_COUNT (nvml.h "Multi Instance GPU Management", 0x12 in API 13): profiles are
/// asked for by NVML_GPU_INSTANCE_PROFILE_* values 0 .. count-1; NVML documents that a newer driver may know
/// more and answers NVML_ERROR_INVALID_ARGUMENT past its last one.
inline constexpr unsigned int kGpuInstanceProfileCount = 0x12;

/// Buffer sizes (nvml.h nvmlConstants): NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE,
/// NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE, NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE, ..._BUFFER_V2_SIZE.
inline constexpr unsigned int kNameBufferSize = 96;
inline constexpr unsigned int kUuidBufferSize = 96;
inline constexpr unsigned int kDriverVersionBufferSize = 80;
inline constexpr std::size_t kPciBusIdBufferSize = 32;
inline constexpr std::size_t kPciBusIdLegacyBufferSize = 16;

/// NVML_STRUCT_VERSION(data, ver): sizeof(struct) | ver << 24 (nvml.h, "Device Structs").
[[nodiscard]] constexpr auto struct_version(std::size_t size, unsigned int ver) -> unsigned int {
  return static_cast<unsigned int>(size) | (ver << 24U);
}

/// `nvmlPciInfo_t` (`struct nvmlPciInfo_st`), as filled by nvmlDeviceGetPciInfo_v3 and _v2. The unversioned
/// nvmlDeviceGetPciInfo of old drivers wrote a 16-byte bus id at offset 0, which is `bus_id_legacy` here.
struct PciInfo {
  std::array<char, kPciBusIdLegacyBufferSize> bus_id_legacy;  ///< busIdLegacy: "dddd:bb:dd.f"
  unsigned int domain;                                        ///< domain
  unsigned int bus;                                           ///< bus
  unsigned int device;                                        ///< device
  unsigned int pci_device_id;                                 ///< pciDeviceId
  unsigned int pci_sub_system_id;                             ///< pciSubSystemId
  std::array<char, kPciBusIdBufferSize> bus_id;               ///< busId: "dddddddd:bb:dd.f"
};

/// `nvmlUtilization_t`: percentages over NVML's last sample period (1/6 s to 1 s depending on the product).
struct Utilization {
  unsigned int gpu;     ///< gpu: % of time one or more kernels ran
  unsigned int memory;  ///< memory: % of time device memory was read or written
};

/// `nvmlMemory_t` (v1), bytes; `used` includes memory reserved by the driver.
struct MemoryV1 {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

/// `nvmlMemory_v2_t`, bytes; `version` must be nvmlMemory_v2 = struct_version(sizeof, 2); `used` excludes
/// `reserved`.
struct MemoryV2 {
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
inline constexpr unsigned int kMemoryV2Version = struct_version(sizeof(MemoryV2), 2);

/// `nvmlTemperature_v1_t`; `version` must be nvmlTemperature_v1 = struct_version(sizeof, 1).
struct TemperatureV1 {
  unsigned int version;
  TemperatureSensor sensor_type;  ///< sensorType
  int temperature;                ///< degrees C
};
inline constexpr unsigned int kTemperatureV1Version = struct_version(sizeof(TemperatureV1), 1);

/// `nvmlProcessInfo_t` = `nvmlProcessInfo_v2_t`, filled by nvmlDeviceGetComputeRunningProcesses_v3 and _v2.
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;  ///< usedGpuMemory, bytes
  unsigned int gpu_instance_id;        ///< gpuInstanceId, 0xFFFFFFFF without MIG
  unsigned int compute_instance_id;    ///< computeInstanceId, 0xFFFFFFFF without MIG
};

/// `nvmlProcessInfo_v1_t`, filled by the unversioned nvmlDeviceGetComputeRunningProcesses.
struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long used_gpu_memory;
};

/// `nvmlProcessUtilizationSample_t` (nvml.h "Device Structs"), filled by nvmlDeviceGetProcessUtilization: one
/// entry per process that had non-zero utilization in one of the driver's sample periods (NVML API
/// reference, nvmlDeviceGetProcessUtilization).
struct ProcessUtilizationSample {
  unsigned int pid;
  unsigned long long time_stamp;  ///< timeStamp: CPU time of the sample, microseconds
  unsigned int sm_util;           ///< smUtil: SM (3D/compute) utilization, % of the sample period
  unsigned int mem_util;          ///< memUtil: frame buffer memory utilization, %
  unsigned int enc_util;          ///< encUtil: video encoder utilization, %
  unsigned int dec_util;          ///< decUtil: video decoder utilization, %
};

/// NVML_VALUE_NOT_AVAILABLE as an unsigned long long (nvml.h: -1): process memory that NVML cannot report.
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;

/// `nvmlGpmSample_t`: an opaque GPM sample buffer (`struct nvmlGpmSample_st*`).
struct GpmSampleOpaque;
using GpmSample = GpmSampleOpaque*;

/// `nvmlGpmMetric_t` (nvml.h "GPM Structs"): `metricId` in, the rest out.
struct GpmMetric {
  unsigned int metric_id;  ///< metricId: an nvmlGpmMetricId_t
  Return nvml_return;      ///< nvmlReturn: status of this metric; `value` is valid only when kSuccess
  double value;            ///< value
  struct {
    char* short_name;
    char* long_name;
    char* unit;
  } metric_info;  ///< metricInfo (may be null)
};

/// NVML_GPM_METRIC_MAX of NVML API 13 (nvml.h `nvmlGpmMetricId_t`: 98 in API 11-12.4, 210 in 12.9-13.0, 333
/// in 13.x since 2026-06). NVML_GPM_METRICS_GET_VERSION stayed 1 through all three, so the library cannot
/// depend on the array length: it reads `numMetrics` entries. solscope asks for about a dozen.
inline constexpr std::size_t kGpmMetricMax = 333;

/// `nvmlGpmMetricsGet_t`; `version` must be NVML_GPM_METRICS_GET_VERSION = 1.
struct GpmMetricsGet {
  unsigned int version;
  unsigned int num_metrics;  ///< numMetrics: entries of `metrics` to compute
  GpmSample sample1;         ///< the earlier sample
  GpmSample sample2;         ///< the later sample
  std::array<GpmMetric, kGpmMetricMax> metrics;
};
inline constexpr unsigned int kGpmMetricsGetVersion = 1;

/// `nvmlGpmSupport_t`; `version` must be NVML_GPM_SUPPORT_VERSION = 1.
struct GpmSupport {
  unsigned int version;
  unsigned int is_supported_device;  ///< isSupportedDevice: nonzero when the device supports GPM
};
inline constexpr unsigned int kGpmSupportVersion = 1;

/// `nvmlDeviceAttributes_t` (nvml.h "Device Structs"), filled by nvmlDeviceGetAttributes_v2 for a MIG device
/// handle (the API "currently only supports MIG device handles").
struct DeviceAttributes {
  unsigned int multiprocessor_count;          ///< multiprocessorCount: SMs of the MIG device
  unsigned int shared_copy_engine_count;      ///< sharedCopyEngineCount
  unsigned int shared_decoder_count;          ///< sharedDecoderCount
  unsigned int shared_encoder_count;          ///< sharedEncoderCount
  unsigned int shared_jpeg_count;             ///< sharedJpegCount
  unsigned int shared_ofa_count;              ///< sharedOfaCount
  unsigned int gpu_instance_slice_count;      ///< gpuInstanceSliceCount: compute slices of the GPU instance
  unsigned int compute_instance_slice_count;  ///< computeInstanceSliceCount
  unsigned long long memory_size_mb;          ///< memorySizeMB: device memory in MiB
};

/// `nvmlGpuInstanceProfileInfo_v2_t` (nvml.h "Multi Instance GPU Management"), filled by
/// nvmlDeviceGetGpuInstanceProfileInfoV; `version` must be nvmlGpuInstanceProfileInfo_v2 =
/// struct_version(sizeof, 2).
struct GpuInstanceProfileInfoV2 {
  unsigned int version;
  unsigned int id;                         ///< profile id (nvidia-smi mig -lgip "ID", e.g. 9 for 3g.40gb)
  unsigned int is_p2p_supported;           ///< isP2pSupported
  unsigned int slice_count;                ///< sliceCount: compute slices
  unsigned int instance_count;             ///< instanceCount: how many such instances fit
  unsigned int multiprocessor_count;       ///< multiprocessorCount: SMs
  unsigned int copy_engine_count;          ///< copyEngineCount
  unsigned int decoder_count;              ///< decoderCount
  unsigned int encoder_count;              ///< encoderCount
  unsigned int jpeg_count;                 ///< jpegCount
  unsigned int ofa_count;                  ///< ofaCount
  unsigned long long memory_size_mb;       ///< memorySizeMB: MiB
  std::array<char, kNameBufferSize> name;  ///< name, e.g. "MIG 3g.40gb"
};
inline constexpr unsigned int kGpuInstanceProfileInfoV2Version =
    struct_version(sizeof(GpuInstanceProfileInfoV2), 2);

// Sizes implied by the nvml.h layouts on LP64 (x86-64 and aarch64 Linux).
static_assert(sizeof(PciInfo) == 68 && offsetof(PciInfo, bus_id) == 36);
static_assert(sizeof(Utilization) == 8);
static_assert(sizeof(MemoryV1) == 24);
static_assert(sizeof(MemoryV2) == 40 && kMemoryV2Version == 0x02000028U);
static_assert(sizeof(TemperatureV1) == 12 && kTemperatureV1Version == 0x0100000CU);
static_assert(sizeof(ProcessInfo) == 24 && sizeof(ProcessInfoV1) == 16);
static_assert(sizeof(ProcessUtilizationSample) == 32 && offsetof(ProcessUtilizationSample, sm_util) == 16);
static_assert(sizeof(GpmMetric) == 40 && offsetof(GpmMetric, value) == 8);
static_assert(offsetof(GpmMetricsGet, metrics) == 24);
static_assert(sizeof(GpmSupport) == 8);
static_assert(sizeof(DeviceAttributes) == 40 && offsetof(DeviceAttributes, memory_size_mb) == 32);
static_assert(sizeof(GpuInstanceProfileInfoV2) == 152 && offsetof(GpuInstanceProfileInfoV2, name) == 56);
static_assert(kGpuInstanceProfileInfoV2Version == 0x02000098U);

}  // namespace nvml

/// NVML functions every use needs; resolve_nvml() fails when one is missing. Each pointer holds the newest
/// version of the symbol the library exports (named after the field).
struct NvmlRequiredFns {
  nvml::Return (*init)() = nullptr;                                          ///< nvmlInit_v2, else nvmlInit
  nvml::Return (*shutdown)() = nullptr;                                      ///< nvmlShutdown
  const char* (*error_string)(nvml::Return) = nullptr;                       ///< nvmlErrorString
  nvml::Return (*system_get_driver_version)(char*, unsigned int) = nullptr;  ///< nvmlSystemGetDriverVersion
  /// nvmlDeviceGetCount_v2, else nvmlDeviceGetCount
  nvml::Return (*device_get_count)(unsigned int*) = nullptr;
  /// nvmlDeviceGetHandleByIndex_v2, else nvmlDeviceGetHandleByIndex
  nvml::Return (*device_get_handle_by_index)(unsigned int, nvml::Device*) = nullptr;
  nvml::Return (*device_get_name)(nvml::Device, char*, unsigned int) = nullptr;  ///< nvmlDeviceGetName
  nvml::Return (*device_get_uuid)(nvml::Device, char*, unsigned int) = nullptr;  ///< nvmlDeviceGetUUID
  /// nvmlDeviceGetPciInfo_v3, else _v2, else the unversioned one (then `pci_info_legacy` is true)
  nvml::Return (*device_get_pci_info)(nvml::Device, nvml::PciInfo*) = nullptr;
  /// Only `PciInfo::bus_id_legacy` is valid (the unversioned nvmlDeviceGetPciInfo was resolved).
  bool pci_info_legacy = false;
};

/// NVML functions used when present (null otherwise). A null pointer counts as "not supported" for every
/// device.
struct NvmlOptionalFns {
  nvml::Return (*device_get_utilization_rates)(nvml::Device, nvml::Utilization*) = nullptr;
  nvml::Return (*device_get_clock_info)(nvml::Device, nvml::ClockType, unsigned int*) = nullptr;      ///< MHz
  nvml::Return (*device_get_max_clock_info)(nvml::Device, nvml::ClockType, unsigned int*) = nullptr;  ///< MHz
  nvml::Return (*device_get_power_usage)(nvml::Device, unsigned int*) = nullptr;                      ///< mW
  nvml::Return (*device_get_enforced_power_limit)(nvml::Device, unsigned int*) = nullptr;             ///< mW
  nvml::Return (*device_get_temperature_v)(nvml::Device, nvml::TemperatureV1*) = nullptr;  ///< NVML 12.x+
  /// nvmlDeviceGetTemperature (deprecated in NVML 13 but exported), degrees C
  nvml::Return (*device_get_temperature)(nvml::Device, nvml::TemperatureSensor, unsigned int*) = nullptr;
  nvml::Return (*device_get_memory_info_v2)(nvml::Device, nvml::MemoryV2*) = nullptr;
  nvml::Return (*device_get_memory_info)(nvml::Device, nvml::MemoryV1*) = nullptr;
  nvml::Return (*device_get_memory_bus_width)(nvml::Device, unsigned int*) = nullptr;  ///< bits
  /// nvmlDeviceGetComputeRunningProcesses_v3, else _v2 (both fill nvmlProcessInfo_v2_t)
  nvml::Return (*device_get_compute_running_processes)(nvml::Device, unsigned int*,
                                                       nvml::ProcessInfo*) = nullptr;
  /// the unversioned nvmlDeviceGetComputeRunningProcesses (nvmlProcessInfo_v1_t), used when neither is
  /// present
  nvml::Return (*device_get_compute_running_processes_v1)(nvml::Device, unsigned int*,
                                                          nvml::ProcessInfoV1*) = nullptr;
  /// nvmlDeviceGetGraphicsRunningProcesses_v3, else _v2 (nvmlProcessInfo_v2_t; the size protocol of the
  /// compute list). Absent: graphics processes unknown.
  nvml::Return (*device_get_graphics_running_processes)(nvml::Device, unsigned int*,
                                                        nvml::ProcessInfo*) = nullptr;
  /// nvmlDeviceGetMPSComputeRunningProcesses_v3, else _v2: the MPS clients. Absent: MPS unknown.
  nvml::Return (*device_get_mps_compute_running_processes)(nvml::Device, unsigned int*,
                                                           nvml::ProcessInfo*) = nullptr;
  /// nvmlDeviceGetProcessUtilization(device, samples or NULL, &count, lastSeenTimeStamp in us): per-process
  /// SM utilization samples newer than lastSeenTimeStamp. Absent: per-process SM share unknown.
  nvml::Return (*device_get_process_utilization)(nvml::Device, nvml::ProcessUtilizationSample*, unsigned int*,
                                                 unsigned long long) = nullptr;
  /// nvmlDeviceGetMigMode(device, &current, &pending)
  nvml::Return (*device_get_mig_mode)(nvml::Device, unsigned int*, unsigned int*) = nullptr;
  // MIG (Ampere and newer, Linux; nvml.h "Multi Instance GPU Management"). Enumeration needs all but the
  // profile query and GPM (missing_mig_function()).
  nvml::Return (*device_get_max_mig_device_count)(nvml::Device, unsigned int*) = nullptr;
  /// nvmlDeviceGetMigDeviceHandleByIndex(parent, index, &mig): NOT_FOUND for an index with no MIG device
  nvml::Return (*device_get_mig_device_handle_by_index)(nvml::Device, unsigned int, nvml::Device*) = nullptr;
  nvml::Return (*device_is_mig_device_handle)(nvml::Device, unsigned int*) = nullptr;
  nvml::Return (*device_get_device_handle_from_mig_device_handle)(nvml::Device, nvml::Device*) = nullptr;
  nvml::Return (*device_get_gpu_instance_id)(nvml::Device, unsigned int*) = nullptr;      ///< GPU_I_ID
  nvml::Return (*device_get_compute_instance_id)(nvml::Device, unsigned int*) = nullptr;  ///< CI id
  /// nvmlDeviceGetAttributes_v2 (MIG device handles only)
  nvml::Return (*device_get_attributes)(nvml::Device, nvml::DeviceAttributes*) = nullptr;
  /// nvmlDeviceGetGpuInstanceProfileInfoV(parent, NVML_GPU_INSTANCE_PROFILE_*, &info): the parent's profiles
  nvml::Return (*device_get_gpu_instance_profile_info_v)(nvml::Device, unsigned int,
                                                         nvml::GpuInstanceProfileInfoV2*) = nullptr;
  nvml::Return (*device_get_architecture)(nvml::Device, nvml::Architecture*) = nullptr;
  // GPM (Hopper and newer; NVML 12+).
  nvml::Return (*gpm_query_device_support)(nvml::Device, nvml::GpmSupport*) = nullptr;
  nvml::Return (*gpm_sample_alloc)(nvml::GpmSample*) = nullptr;
  nvml::Return (*gpm_sample_free)(nvml::GpmSample) = nullptr;
  nvml::Return (*gpm_sample_get)(nvml::Device, nvml::GpmSample) = nullptr;
  nvml::Return (*gpm_metrics_get)(nvml::GpmMetricsGet*) = nullptr;
  /// nvmlGpmMigSampleGet(parent, GPU instance id, sample): GPM of one MIG GPU instance (Hopper and newer)
  nvml::Return (*gpm_mig_sample_get)(nvml::Device, unsigned int, nvml::GpmSample) = nullptr;

  /// The first MIG function that enumeration needs and the library lacks ("" when all are there):
  /// nvmlDeviceGetMaxMigDeviceCount, nvmlDeviceGetMigDeviceHandleByIndex, nvmlDeviceGetGpuInstanceId,
  /// nvmlDeviceGetComputeInstanceId, nvmlDeviceGetAttributes_v2.
  [[nodiscard]] auto missing_mig_function() const -> const char*;

  /// True when every GPM function is present.
  [[nodiscard]] auto has_gpm() const -> bool {
    return gpm_query_device_support != nullptr && gpm_sample_alloc != nullptr && gpm_sample_free != nullptr &&
           gpm_sample_get != nullptr && gpm_metrics_get != nullptr;
  }
};

/// The NVML function table. Plain data: tests fill the pointers with fakes; load_nvml() fills them from
/// libnvidia-ml and keeps the library loaded through `library` (copies share it). Does not call nvmlInit.
struct NvmlApi : NvmlRequiredFns, NvmlOptionalFns {
  std::shared_ptr<const DynamicLibrary> library;  ///< null for a fake table
};

/// Sonames tried by load_nvml(), in order (the driver installs libnvidia-ml.so.1; the unversioned name exists
/// only with development links).
[[nodiscard]] auto nvml_sonames() -> std::span<const std::string>;

/// Looks a symbol up by name; nullptr when absent.
using SymbolLookup = std::function<void*(const char* name)>;

/// Fills an NvmlApi from `lookup`, newest symbol version first (nvmlInit_v2 before nvmlInit, GetPciInfo_v3
/// before _v2 before the plain one, GetComputeRunningProcesses_v3 before _v2 before the plain one). Errors:
/// NotFound "libnvidia-ml lacks <symbol>" for a missing required symbol, with a hint to update the driver.
/// Optional symbols (GPM, MIG, each figure) may be missing: a driver without the MIG functions gets its
/// MIG-enabled GPUs sampled whole, with the reason (NvmlReader::mig_note).
[[nodiscard]] auto resolve_nvml(const SymbolLookup& lookup) -> core::Result<NvmlApi>;

/// Loads libnvidia-ml (the first of `sonames` that opens) and resolves it (resolve_nvml). Does not call
/// nvmlInit. Errors: Unavailable "no NVIDIA driver: libnvidia-ml.so.1 not found" (the first soname tried)
/// with a hint to install the NVIDIA driver or, in a container, to run with the NVIDIA container toolkit
/// (--gpus all); resolve_nvml's NotFound for a library that lacks a required symbol.
[[nodiscard]] auto load_nvml(std::span<const std::string> sonames = nvml_sonames()) -> core::Result<NvmlApi>;

/// nvmlErrorString(rc) through `api`, or "NVML error <rc>" when the table has no error_string or it returns
/// null.
[[nodiscard]] auto nvml_error_text(const NvmlApi& api, nvml::Return rc) -> std::string;

}  // namespace solscope::nvidia
