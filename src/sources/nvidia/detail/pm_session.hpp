// One device's PM-sampling session: the CUPTI sampling object, its counter-data images and the GPU-to-epoch
// time mapping, with the start/stop sequence (pm_session.cpp) and the decode loop (pm_decode.cpp). Internal
// to PmSampler; includes CUPTI headers through cupti_api.hpp.
//
// Source: docs/design/cupti-pm-sampling.md sections 1.4-1.6 and 7.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "sources/nvidia/detail/cupti_api.hpp"
#include "sources/nvidia/detail/pm_config.hpp"

namespace solscope::nvidia {

/// SYSCLK frequency assumed to turn a nanosecond interval into cycles where only GPU_SYSCLK_INTERVAL exists
/// (Turing, GA100): ~1 GHz, so cycles = ns. Source: kineto PR #1546 (100 000 cycles ~ 100 us, from an NVIDIA
/// doc example), doc section 1.4. Each sample is still weighted by its own GPU timestamps, so the assumption
/// only shifts the rate.
inline constexpr double kAssumedSysclkCyclesPerNs = 1.0;

/// How the hardware triggers and keeps samples on one chip.
struct PmTrigger {
  bool gpu_time = true;         ///< GPU_TIME_INTERVAL (ns); false: GPU_SYSCLK_INTERVAL (cycles)
  std::uint64_t interval = 0;   ///< ns or SYSCLK cycles, by `gpu_time`
  bool keep_latest = true;      ///< KEEP_LATEST append mode (Ampere+ and CUPTI >= 12.8); false: KEEP_OLDEST
  bool has_append_mode = true;  ///< the libcupti knows hwBufferAppendMode (CUPTI API version >= 26)
};

/// Trigger for `chip_name`: GPU_SYSCLK_INTERVAL with interval_ns x kAssumedSysclkCyclesPerNs cycles on GA100
/// and Turing ("TU..."), where GPU_TIME_INTERVAL is unsupported (cupti_pmsampling.h:84-87); GPU_TIME_INTERVAL
/// in ns otherwise. KEEP_LATEST on Ampere+ (not Turing) when the libcupti has the field. Pure.
[[nodiscard]] auto pm_trigger_for(std::string_view chip_name, std::int64_t interval_ns,
                                  std::uint32_t cupti_version) -> PmTrigger;

/// Counter-data slots for one decode period: 3 x the samples expected per period (interval_ns into
/// decode_period_ns, rounded up) + 8 margin, within [32, 8192] (doc section 1.4: 2-4x per period). Pure.
[[nodiscard]] auto pm_max_samples(std::int64_t interval_ns, std::int64_t decode_period_ns) -> std::uint32_t;

/// Fixed settings of every session of one sampler.
struct PmSessionSettings {
  std::size_t hardware_buffer_bytes = 64u << 20;  ///< device-side record buffer (doc: 32-64 MiB)
  std::uint32_t max_samples = 0;  ///< counter-data slots, the same for every device (doc section 7)
  int max_decode_failures = 3;    ///< consecutive failed decodes before the device counts as lost
};

/// One open device. Owned by PmSampler; not thread-safe.
struct PmDevice {
  PmDevice(std::uint32_t index, int ordinal, std::string name, PmConfig counter_config)
      : nvml_index(index), cuda_ordinal(ordinal), label(std::move(name)), config(std::move(counter_config)) {}

  std::uint32_t nvml_index = 0;
  int cuda_ordinal = 0;
  std::string label;  ///< "GPU 0 (00000000:17:00.0)" for messages
  PmConfig config;    ///< outlives the session (CUPTI keeps the config image pointer)
  PmTrigger trigger;
  CUpti_PmSampling_Object* object = nullptr;  ///< set between Enable and Disable
  bool started = false;
  std::vector<std::uint8_t> counter_data;  ///< decoded into; reset from `pristine` after every decode
  std::vector<std::uint8_t> pristine;      ///< the image right after CounterDataImageInitialize
  std::vector<double> values;              ///< scratch: one value per counter
  bool have_offset = false;
  std::int64_t epoch_offset_ns = 0;   ///< epoch ns = GPU ns + this; fixed at the first decode with samples
  std::uint64_t last_end_gpu_ns = 0;  ///< end of the last sample emitted (drops repeats)
  bool gap_pending = false;           ///< mark the next sample with kSampleGapBefore
  int decode_failures = 0;
};

/// Enable -> SetConfig -> GetCounterDataSize -> CounterDataImageInitialize -> pristine copy -> Start. On
/// failure after Enable the device is disabled again. Errors from pm_error().
[[nodiscard]] auto start_session(const CuptiApi& api, PmDevice& device, const PmSessionSettings& settings)
    -> core::Result<void>;

/// Stop -> (when `drain`) one last DecodeData, whose samples are dropped -> Disable. Ignores failures (the
/// device may be gone). Idempotent.
void end_session(const CuptiApi& api, PmDevice& device, bool drain);

/// What decode_device() found.
struct PmDecodeResult {
  bool lost = false;           ///< the device is gone or failed max_decode_failures times in a row
  bool counters_busy = false;  ///< another profiler took the counters (says_counters_busy); not gone
  core::Error error;           ///< why, when lost or counters_busy
};

/// Drains the device's hardware buffer (doc section 1.5): DecodeData until END_OF_RECORDS (OTHER and
/// COUNTER_DATA_FULL: take the completed samples, reset the image, decode again; at most 64 rounds per call);
/// each completed sample -> GetSampleInfo + one EvaluateToGpuValues -> a RawSample appended to `out`. Samples
/// with a zero timestamp, end <= start, or ending at or before the last emitted one are dropped. GPU times
/// map to Unix-epoch ns through an offset taken once, at the first decode with samples: `realtime_ns()` minus
/// the newest sample's GPU end time; it stays fixed afterwards so that durations and spacing stay GPU-exact
/// (the epoch times are late by the decode latency, and drift with the GPU clock against CLOCK_REALTIME). A
/// hardware-buffer overflow (DecodeData returns OUT_OF_MEMORY, or sets `overflow`) restarts the session and
/// marks the next sample with kSampleGapBefore; a failed restart loses the device. A DecodeData answering
/// HARDWARE_BUSY, or a restart refused as busy (is_counters_busy), ends the session at once with
/// `counters_busy` instead: another profiler took the counters, the GPU is not gone (samples decoded before
/// it are kept).
[[nodiscard]] auto decode_device(const CuptiApi& api, PmDevice& device, const PmSessionSettings& settings,
                                 const std::function<std::int64_t()>& realtime_ns,
                                 std::vector<core::RawSample>& out) -> PmDecodeResult;

}  // namespace solscope::nvidia
