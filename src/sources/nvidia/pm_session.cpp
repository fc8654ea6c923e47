#include "sources/nvidia/detail/pm_session.hpp"

#include <algorithm>
#include <cstddef>

#include "sources/nvidia/detail/pm_errors.hpp"

namespace solscope::nvidia {
namespace {

constexpr std::uint32_t kMinSamples = 32;
constexpr std::uint32_t kMaxSamples = 8192;
constexpr std::uint32_t kSampleMargin = 8;

auto is_turing(std::string_view chip_name) -> bool {
  return chip_name.rfind("TU", 0) == 0;
}

// SetConfig's structSize: libcupti before 12.8 does not know hwBufferAppendMode (doc section 5).
constexpr std::size_t kSetConfigSizeWithoutAppendMode =
    offsetof(CUpti_PmSampling_SetConfig_Params, triggerMode) + sizeof(CUpti_PmSampling_TriggerMode);

auto set_config(const CuptiApi& api, PmDevice& device, const PmSessionSettings& settings) -> CUptiResult {
  CUpti_PmSampling_SetConfig_Params p{};
  p.structSize = device.trigger.has_append_mode ? CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE
                                                : kSetConfigSizeWithoutAppendMode;
  p.pPmSamplingObject = device.object;
  p.configSize = device.config.config_image().size();
  p.pConfig = device.config.config_image().data();
  p.hardwareBufferSize = settings.hardware_buffer_bytes;
  p.samplingInterval = device.trigger.interval;
  p.triggerMode = device.trigger.gpu_time ? CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL
                                          : CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
  p.hwBufferAppendMode = device.trigger.keep_latest
                             ? CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST
                             : CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  return api.pm_set_config(&p);
}

// GetCounterDataSize -> allocate -> CounterDataImageInitialize -> keep the pristine copy.
auto init_counter_data(const CuptiApi& api, PmDevice& device, const PmSessionSettings& settings)
    -> core::Result<void> {
  CUpti_PmSampling_GetCounterDataSize_Params size{};
  size.structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE;
  size.pPmSamplingObject = device.object;
  size.pMetricNames = device.config.counter_name_array();
  size.numMetrics = device.config.plan().counter_names.size();
  size.maxSamples = settings.max_samples;
  if (CUptiResult rc = api.pm_get_counter_data_size(&size); rc != CUPTI_SUCCESS) {
    return core::fail(pm_error(api, rc, "cuptiPmSamplingGetCounterDataSize", PmCall::Other, device.label));
  }
  device.counter_data.assign(size.counterDataSize, 0);
  CUpti_PmSampling_CounterDataImage_Initialize_Params init{};
  init.structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE;
  init.pPmSamplingObject = device.object;
  init.counterDataSize = device.counter_data.size();
  init.pCounterData = device.counter_data.data();
  if (CUptiResult rc = api.pm_counter_data_image_initialize(&init); rc != CUPTI_SUCCESS) {
    return core::fail(
        pm_error(api, rc, "cuptiPmSamplingCounterDataImageInitialize", PmCall::Other, device.label));
  }
  device.pristine = device.counter_data;
  device.values.assign(device.config.plan().counter_names.size(), 0.0);
  return core::ok();
}

}  // namespace

auto pm_trigger_for(std::string_view chip_name, std::int64_t interval_ns, std::uint32_t cupti_version)
    -> PmTrigger {
  PmTrigger trigger;
  const auto ns = static_cast<std::uint64_t>(std::max<std::int64_t>(interval_ns, 1));
  trigger.gpu_time = chip_name != "GA100" && !is_turing(chip_name);
  trigger.interval =
      trigger.gpu_time ? ns : static_cast<std::uint64_t>(static_cast<double>(ns) * kAssumedSysclkCyclesPerNs);
  trigger.has_append_mode = cupti_version >= kCuptiVersionWithAppendMode;
  trigger.keep_latest = trigger.has_append_mode && !is_turing(chip_name);
  return trigger;
}

auto pm_max_samples(std::int64_t interval_ns, std::int64_t decode_period_ns) -> std::uint32_t {
  const std::int64_t interval = std::max<std::int64_t>(interval_ns, 1);
  const std::int64_t period = std::max<std::int64_t>(decode_period_ns, interval);
  const std::int64_t per_period = (period + interval - 1) / interval;
  const std::int64_t wanted = 3 * per_period + kSampleMargin;
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(wanted, kMinSamples, kMaxSamples));
}

auto start_session(const CuptiApi& api, PmDevice& device, const PmSessionSettings& settings)
    -> core::Result<void> {
  CUpti_PmSampling_Enable_Params enable{};
  enable.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE;
  enable.deviceIndex = static_cast<std::size_t>(device.cuda_ordinal);
  if (CUptiResult rc = api.pm_enable(&enable); rc != CUPTI_SUCCESS) {
    return core::fail(pm_error(api, rc, "cuptiPmSamplingEnable", PmCall::Enable, device.label));
  }
  device.object = enable.pPmSamplingObject;
  if (CUptiResult rc = set_config(api, device, settings); rc != CUPTI_SUCCESS) {
    end_session(api, device, false);
    return core::fail(pm_error(api, rc, "cuptiPmSamplingSetConfig", PmCall::Other, device.label));
  }
  if (auto data = init_counter_data(api, device, settings); !data) {
    end_session(api, device, false);
    return data;
  }
  CUpti_PmSampling_Start_Params start{};
  start.structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE;
  start.pPmSamplingObject = device.object;
  if (CUptiResult rc = api.pm_start(&start); rc != CUPTI_SUCCESS) {
    end_session(api, device, false);
    return core::fail(pm_error(api, rc, "cuptiPmSamplingStart", PmCall::Other, device.label));
  }
  device.started = true;
  return core::ok();
}

void end_session(const CuptiApi& api, PmDevice& device, bool drain) {
  if (device.object == nullptr) return;
  if (device.started) {
    CUpti_PmSampling_Stop_Params stop{};
    stop.structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE;
    stop.pPmSamplingObject = device.object;
    const bool stopped = api.pm_stop(&stop) == CUPTI_SUCCESS;
    device.started = false;
    if (drain && stopped && !device.counter_data.empty()) {
      // The doc's teardown (section 1.6) decodes once after Stop; the samples are not wanted any more.
      CUpti_PmSampling_DecodeData_Params decode{};
      decode.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE;
      decode.pPmSamplingObject = device.object;
      decode.pCounterDataImage = device.counter_data.data();
      decode.counterDataImageSize = device.counter_data.size();
      static_cast<void>(api.pm_decode_data(&decode));
    }
  }
  CUpti_PmSampling_Disable_Params disable{};
  disable.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE;
  disable.pPmSamplingObject = device.object;
  static_cast<void>(api.pm_disable(&disable));
  device.object = nullptr;
}

}  // namespace solscope::nvidia
