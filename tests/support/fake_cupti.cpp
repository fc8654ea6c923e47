#include "support/fake_cupti.hpp"

#include <cstring>
#include <memory>
#include <string_view>

// The CUPTI headers only declare these handle types; the fake gives them a body (no libcupti is linked).
struct CUpti_Profiler_Host_Object {
  std::string chip;
  std::vector<std::string> metrics;
  bool with_availability = false;  ///< initialized with a device's counter availability image
};
struct CUpti_PmSampling_Object {
  std::size_t ordinal = 0;
};

namespace solscope::nvidia::fake {
namespace {

constexpr std::uint32_t kMagic = 0x50'4d'46'4b;  // "PMFK"

struct ImageHeader {
  std::uint32_t magic;
  std::uint32_t capacity;
  std::uint32_t num_counters;
  std::uint32_t count;
};

auto slot_size(std::size_t counters) -> std::size_t {
  return 2 * sizeof(std::uint64_t) + counters * sizeof(double);
}

auto header(const std::uint8_t* image) -> ImageHeader {
  ImageHeader h{};
  std::memcpy(&h, image, sizeof h);
  return h;
}

auto slot(std::uint8_t* image, const ImageHeader& h, std::size_t i) -> std::uint8_t* {
  return image + sizeof(ImageHeader) + i * slot_size(h.num_counters);
}

auto device_of(const CUpti_PmSampling_Object* object) -> FakeDevice* {
  if (object == nullptr || object->ordinal >= state().devices.size()) return nullptr;
  return &state().devices[object->ordinal];
}

auto device_at(std::size_t ordinal) -> FakeDevice* {
  return ordinal < state().devices.size() ? &state().devices[ordinal] : nullptr;
}

void target(const char* name) {
  ++state().target_calls;
  state().calls.emplace_back(name);
}

// A teardown step (host or target side), in FakeCuptiState::teardown.
void teardown(const char* name) {
  state().teardown.emplace_back(name);
}

auto pop_or(std::deque<CUptiResult>& queue, CUptiResult fallback) -> CUptiResult {
  if (queue.empty()) return fallback;
  const CUptiResult rc = queue.front();
  queue.pop_front();
  return rc;
}

// Copies pending samples into free slots; accumulates onto existing values when the image was not reset.
auto fill_image(FakeDevice& device, std::uint8_t* image) -> bool {
  ImageHeader h = header(image);
  std::vector<double> carried(h.num_counters, 0.0);
  for (std::uint32_t i = 0; i < h.count; ++i) {
    for (std::uint32_t c = 0; c < h.num_counters; ++c) {
      double v = 0;
      std::memcpy(&v, slot(image, h, i) + 16 + c * sizeof(double), sizeof v);
      carried[c] += v;
    }
  }
  while (!device.pending.empty() && h.count < h.capacity) {
    const FakeSample& s = device.pending.front();
    std::uint8_t* out = slot(image, h, h.count);
    std::memcpy(out, &s.start_ns, 8);
    std::memcpy(out + 8, &s.end_ns, 8);
    for (std::uint32_t c = 0; c < h.num_counters; ++c) {
      const double v = (c < s.values.size() ? s.values[c] : 0.0) + carried[c];
      std::memcpy(out + 16 + c * sizeof(double), &v, sizeof v);
    }
    device.pending.pop_front();
    ++h.count;
  }
  std::memcpy(image, &h, sizeof h);
  return device.pending.empty();
}

auto get_version(std::uint32_t* version) -> CUptiResult {
  *version = state().version;
  return CUPTI_SUCCESS;
}

auto get_result_string(CUptiResult result, const char** text) -> CUptiResult {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      *text = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
      break;
    case CUPTI_ERROR_HARDWARE_BUSY:
      *text = "CUPTI_ERROR_HARDWARE_BUSY";
      break;
    case CUPTI_ERROR_INVALID_DEVICE:
      *text = "CUPTI_ERROR_INVALID_DEVICE";
      break;
    case CUPTI_ERROR_OUT_OF_MEMORY:
      *text = "CUPTI_ERROR_OUT_OF_MEMORY";
      break;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      *text = "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED";
      break;
    default:
      *text = "CUPTI_ERROR_FAKE";
      break;
  }
  return CUPTI_SUCCESS;
}

auto profiler_initialize(CUpti_Profiler_Initialize_Params*) -> CUptiResult {
  target("cuptiProfilerInitialize");
  ++state().profiler_init_calls;
  return state().profiler_init_result;
}

auto profiler_deinitialize(CUpti_Profiler_DeInitialize_Params*) -> CUptiResult {
  target("cuptiProfilerDeInitialize");
  teardown("cuptiProfilerDeInitialize");
  ++state().profiler_deinit_calls;
  return CUPTI_SUCCESS;
}

auto device_supported(CUpti_Profiler_DeviceSupported_Params* p) -> CUptiResult {
  target("cuptiProfilerDeviceSupported");
  FakeDevice* device = device_at(static_cast<std::size_t>(p->cuDevice));
  if (device == nullptr || p->api != CUPTI_PROFILER_PM_SAMPLING) return CUPTI_ERROR_INVALID_PARAMETER;
  p->isSupported = device->supported;
  p->architecture = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  p->sli = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  p->vGpu = device->vgpu;
  p->confidentialCompute = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  p->cmp = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  p->wsl = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  return CUPTI_SUCCESS;
}

auto get_chip_name(CUpti_Device_GetChipName_Params* p) -> CUptiResult {
  target("cuptiDeviceGetChipName");
  FakeDevice* device = device_at(p->deviceIndex);
  if (device == nullptr) return CUPTI_ERROR_INVALID_DEVICE;
  p->pChipName = device->chip.c_str();
  return CUPTI_SUCCESS;
}

auto get_counter_availability(CUpti_PmSampling_GetCounterAvailability_Params* p) -> CUptiResult {
  target("cuptiPmSamplingGetCounterAvailability");
  FakeDevice* device = device_at(p->deviceIndex);
  if (device == nullptr) return CUPTI_ERROR_INVALID_DEVICE;
  if (device->availability_result != CUPTI_SUCCESS) return device->availability_result;
  if (p->pCounterAvailabilityImage == nullptr) {
    p->counterAvailabilityImageSize = 16;
  } else {
    std::memset(p->pCounterAvailabilityImage, 0xA5, p->counterAvailabilityImageSize);
  }
  return CUPTI_SUCCESS;
}

auto enable(CUpti_PmSampling_Enable_Params* p) -> CUptiResult {
  target("cuptiPmSamplingEnable");
  FakeDevice* device = device_at(p->deviceIndex);
  if (device == nullptr) return CUPTI_ERROR_INVALID_DEVICE;
  ++device->enable_calls;
  if (const CUptiResult rc = pop_or(device->enable_results, CUPTI_SUCCESS); rc != CUPTI_SUCCESS) return rc;
  if (device->enabled) return CUPTI_ERROR_INVALID_OPERATION;
  device->enabled = true;
  p->pPmSamplingObject = new CUpti_PmSampling_Object{p->deviceIndex};
  return CUPTI_SUCCESS;
}

auto set_config(CUpti_PmSampling_SetConfig_Params* p) -> CUptiResult {
  target("cuptiPmSamplingSetConfig");
  FakeDevice* device = device_of(p->pPmSamplingObject);
  if (device == nullptr || p->pConfig == nullptr || p->configSize == 0) return CUPTI_ERROR_INVALID_PARAMETER;
  ++device->set_config_calls;
  device->set_config_struct_size = p->structSize;
  device->trigger_mode = p->triggerMode;
  device->sampling_interval = p->samplingInterval;
  device->hardware_buffer_size = p->hardwareBufferSize;
  if (p->structSize >= CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE)
    device->append_mode = p->hwBufferAppendMode;
  return device->set_config_result;
}

auto get_counter_data_size(CUpti_PmSampling_GetCounterDataSize_Params* p) -> CUptiResult {
  target("cuptiPmSamplingGetCounterDataSize");
  FakeDevice* device = device_of(p->pPmSamplingObject);
  if (device == nullptr || p->pMetricNames == nullptr || p->maxSamples == 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  device->max_samples = p->maxSamples;
  device->num_counters = p->numMetrics;
  p->counterDataSize = sizeof(ImageHeader) + p->maxSamples * slot_size(p->numMetrics);
  return CUPTI_SUCCESS;
}

auto counter_data_image_initialize(CUpti_PmSampling_CounterDataImage_Initialize_Params* p) -> CUptiResult {
  target("cuptiPmSamplingCounterDataImageInitialize");
  FakeDevice* device = device_of(p->pPmSamplingObject);
  if (device == nullptr || p->pCounterData == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memset(p->pCounterData, 0, p->counterDataSize);
  const ImageHeader h{kMagic, device->max_samples, static_cast<std::uint32_t>(device->num_counters), 0};
  std::memcpy(p->pCounterData, &h, sizeof h);
  return CUPTI_SUCCESS;
}

auto start(CUpti_PmSampling_Start_Params* p) -> CUptiResult {
  target("cuptiPmSamplingStart");
  FakeDevice* device = device_of(p->pPmSamplingObject);
  if (device == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  ++device->start_calls;
  device->started = true;
  return CUPTI_SUCCESS;
}

auto stop(CUpti_PmSampling_Stop_Params* p) -> CUptiResult {
  target("cuptiPmSamplingStop");
  teardown("cuptiPmSamplingStop");
  FakeDevice* device = device_of(p->pPmSamplingObject);
  if (device == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  ++device->stop_calls;
  device->started = false;
  return CUPTI_SUCCESS;
}

auto disable(CUpti_PmSampling_Disable_Params* p) -> CUptiResult {
  target("cuptiPmSamplingDisable");
  teardown("cuptiPmSamplingDisable");
  FakeDevice* device = device_of(p->pPmSamplingObject);
  if (device == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  ++device->disable_calls;
  device->enabled = false;
  delete p->pPmSamplingObject;
  return CUPTI_SUCCESS;
}

auto decode_data(CUpti_PmSampling_DecodeData_Params* p) -> CUptiResult {
  target("cuptiPmSamplingDecodeData");
  FakeDevice* device = device_of(p->pPmSamplingObject);
  if (device == nullptr || p->pCounterDataImage == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  ++device->decode_calls;
  if (header(p->pCounterDataImage).magic != kMagic) return CUPTI_ERROR_INVALID_PARAMETER;
  if (const CUptiResult rc = pop_or(device->decode_results, CUPTI_SUCCESS); rc != CUPTI_SUCCESS) {
    if (rc == CUPTI_ERROR_OUT_OF_MEMORY) p->overflow = 1;
    return rc;
  }
  const bool drained = fill_image(*device, p->pCounterDataImage);
  p->decodeStopReason = drained ? CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS
                                : CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
  if (!device->stop_reasons.empty()) {
    p->decodeStopReason = device->stop_reasons.front();
    device->stop_reasons.pop_front();
  }
  p->overflow = device->overflow_next ? 1 : 0;
  device->overflow_next = false;
  return CUPTI_SUCCESS;
}

auto get_counter_data_info(CUpti_PmSampling_GetCounterDataInfo_Params* p) -> CUptiResult {
  if (p->pCounterDataImage == nullptr || header(p->pCounterDataImage).magic != kMagic) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  const ImageHeader h = header(p->pCounterDataImage);
  p->numTotalSamples = h.capacity;
  p->numPopulatedSamples = h.count;
  p->numCompletedSamples = h.count;
  return CUPTI_SUCCESS;
}

auto get_sample_info(CUpti_PmSampling_CounterData_GetSampleInfo_Params* p) -> CUptiResult {
  const ImageHeader h = header(p->pCounterDataImage);
  if (h.magic != kMagic || p->sampleIndex >= h.count) return CUPTI_ERROR_INVALID_PARAMETER;
  const std::uint8_t* in = slot(const_cast<std::uint8_t*>(p->pCounterDataImage), h, p->sampleIndex);
  std::memcpy(&p->startTimestamp, in, 8);
  std::memcpy(&p->endTimestamp, in + 8, 8);
  return CUPTI_SUCCESS;
}

auto host_initialize(CUpti_Profiler_Host_Initialize_Params* p) -> CUptiResult {
  if (p->profilerType != CUPTI_PROFILER_TYPE_PM_SAMPLING || p->pChipName == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  const std::string_view chip(p->pChipName);
  if (chip.size() < 4 || chip.rfind("XX", 0) == 0) return CUPTI_ERROR_INVALID_CHIP_NAME;
  p->pHostObject =
      new CUpti_Profiler_Host_Object{std::string(chip), {}, p->pCounterAvailabilityImage != nullptr};
  ++state().live_host_objects;
  return CUPTI_SUCCESS;
}

auto host_deinitialize(CUpti_Profiler_Host_Deinitialize_Params* p) -> CUptiResult {
  teardown("cuptiProfilerHostDeinitialize");
  delete p->pHostObject;
  --state().live_host_objects;
  return CUPTI_SUCCESS;
}

// As libcupti 13.0 answered on an H100 without NVLink peers (tests/data/real/h100-proof/README.md): a name
// with "invalid" is refused (INVALID_PARAMETER); one with "unavailable" is valid but, against a device's
// availability image, fails the whole call with UNKNOWN (999); two names with "clash" fail together with
// UNKNOWN.
auto host_add_metrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) -> CUptiResult {
  std::size_t clashes = 0;
  for (std::size_t i = 0; i < p->numMetrics; ++i) {
    const std::string_view name(p->ppMetricNames[i]);
    if (name.find("invalid") != std::string_view::npos) return CUPTI_ERROR_INVALID_PARAMETER;
    if (name.find("unavailable") != std::string_view::npos && p->pHostObject->with_availability) {
      return CUPTI_ERROR_UNKNOWN;
    }
    if (name.find("clash") != std::string_view::npos && ++clashes > 1) return CUPTI_ERROR_UNKNOWN;
  }
  for (std::size_t i = 0; i < p->numMetrics; ++i) p->pHostObject->metrics.emplace_back(p->ppMetricNames[i]);
  return CUPTI_SUCCESS;
}

auto host_config_image_size(CUpti_Profiler_Host_GetConfigImageSize_Params* p) -> CUptiResult {
  p->configImageSize = 64 + p->pHostObject->metrics.size();
  return CUPTI_SUCCESS;
}

auto host_config_image(CUpti_Profiler_Host_GetConfigImage_Params* p) -> CUptiResult {
  std::memset(p->pConfigImage, 0x5A, p->configImageSize);
  return CUPTI_SUCCESS;
}

auto host_num_passes(CUpti_Profiler_Host_GetNumOfPasses_Params* p) -> CUptiResult {
  p->numOfPasses = state().num_passes;
  return CUPTI_SUCCESS;
}

auto host_evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) -> CUptiResult {
  ++state().evaluate_calls;
  const ImageHeader h = header(p->pCounterDataImage);
  if (h.magic != kMagic || p->rangeIndex >= h.count || p->numMetrics != h.num_counters ||
      p->numMetrics != p->pHostObject->metrics.size()) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  const std::uint8_t* in = slot(const_cast<std::uint8_t*>(p->pCounterDataImage), h, p->rangeIndex);
  std::memcpy(p->pMetricValues, in + 16, p->numMetrics * sizeof(double));
  return CUPTI_SUCCESS;
}

auto cu_init(unsigned int) -> CUresult {
  ++state().cu_init_calls;
  return state().cu_init_result;
}

auto cu_device_get_count(int* count) -> CUresult {
  *count = static_cast<int>(state().devices.size());
  return CUDA_SUCCESS;
}

auto cu_device_get(CUdevice* device, int ordinal) -> CUresult {
  if (device_at(static_cast<std::size_t>(ordinal)) == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

auto cu_device_get_pci_bus_id(char* out, int len, CUdevice device) -> CUresult {
  FakeDevice* d = device_at(static_cast<std::size_t>(device));
  if (d == nullptr || len <= 0) return CUDA_ERROR_INVALID_DEVICE;
  std::strncpy(out, d->bus_id.c_str(), static_cast<std::size_t>(len) - 1);
  out[len - 1] = '\0';
  return CUDA_SUCCESS;
}

auto cu_device_get_attribute(int* value, CUdevice_attribute attribute, CUdevice device) -> CUresult {
  FakeDevice* d = device_at(static_cast<std::size_t>(device));
  if (d == nullptr) return CUDA_ERROR_INVALID_DEVICE;
  if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
    *value = d->cc_major;
  else if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
    *value = d->cc_minor;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

auto cu_get_error_string(CUresult result, const char** text) -> CUresult {
  *text = result == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected" : "fake CUDA error";
  return CUDA_SUCCESS;
}

}  // namespace

auto state() -> FakeCuptiState& {
  static FakeCuptiState instance;
  return instance;
}

auto cupti_api() -> CuptiApi {
  CuptiApi api;
  api.get_version = get_version;
  api.get_result_string = get_result_string;
  api.profiler_initialize = profiler_initialize;
  api.profiler_deinitialize = profiler_deinitialize;
  api.profiler_device_supported = device_supported;
  api.device_get_chip_name = get_chip_name;
  api.pm_get_counter_availability = get_counter_availability;
  api.pm_enable = enable;
  api.pm_set_config = set_config;
  api.pm_get_counter_data_size = get_counter_data_size;
  api.pm_counter_data_image_initialize = counter_data_image_initialize;
  api.pm_start = start;
  api.pm_stop = stop;
  api.pm_decode_data = decode_data;
  api.pm_get_counter_data_info = get_counter_data_info;
  api.pm_counter_data_get_sample_info = get_sample_info;
  api.pm_disable = disable;
  api.host_initialize = host_initialize;
  api.host_deinitialize = host_deinitialize;
  api.host_config_add_metrics = host_add_metrics;
  api.host_get_config_image_size = host_config_image_size;
  api.host_get_config_image = host_config_image;
  api.host_get_num_of_passes = host_num_passes;
  api.host_evaluate_to_gpu_values = host_evaluate;
  return api;
}

auto cuda_api() -> CudaApi {
  CudaApi api;
  api.cu_init = cu_init;
  api.cu_device_get_count = cu_device_get_count;
  api.cu_device_get = cu_device_get;
  api.cu_device_get_pci_bus_id = cu_device_get_pci_bus_id;
  api.cu_device_get_attribute = cu_device_get_attribute;
  api.cu_get_error_string = cu_get_error_string;
  return api;
}

}  // namespace solscope::nvidia::fake
