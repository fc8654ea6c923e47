// The decode loop of one device (declared in pm_session.hpp).
#include <cstring>

#include "sources/nvidia/detail/pm_errors.hpp"
#include "sources/nvidia/detail/pm_session.hpp"

namespace solscope::nvidia {
namespace {

// Bounds the work of one poll when CUPTI keeps answering OTHER or COUNTER_DATA_FULL.
constexpr int kMaxDecodeRounds = 64;

// Appends the completed samples of the counter-data image to `out`, their times still in GPU ns (mapped to
// the epoch by to_epoch()).
auto read_samples(const CuptiApi& api, PmDevice& device, std::vector<core::RawSample>& out)
    -> core::Result<void> {
  CUpti_PmSampling_GetCounterDataInfo_Params info{};
  info.structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE;
  info.pCounterDataImage = device.counter_data.data();
  info.counterDataImageSize = device.counter_data.size();
  if (CUptiResult rc = api.pm_get_counter_data_info(&info); rc != CUPTI_SUCCESS) {
    return core::fail(pm_error(api, rc, "cuptiPmSamplingGetCounterDataInfo", PmCall::Other, device.label));
  }
  for (std::size_t i = 0; i < info.numCompletedSamples; ++i) {
    CUpti_PmSampling_CounterData_GetSampleInfo_Params sample_info{};
    sample_info.structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE;
    sample_info.pPmSamplingObject = device.object;
    sample_info.pCounterDataImage = device.counter_data.data();
    sample_info.counterDataImageSize = device.counter_data.size();
    sample_info.sampleIndex = i;
    if (CUptiResult rc = api.pm_counter_data_get_sample_info(&sample_info); rc != CUPTI_SUCCESS) {
      return core::fail(
          pm_error(api, rc, "cuptiPmSamplingCounterDataGetSampleInfo", PmCall::Other, device.label));
    }
    const std::uint64_t start = sample_info.startTimestamp;
    const std::uint64_t end = sample_info.endTimestamp;
    // Zero or empty samples appear around Stop (doc section 1.5 r); repeats after a restart.
    if (start == 0 || end <= start || end <= device.last_end_gpu_ns) continue;
    if (auto evaluated = device.config.evaluate(device.counter_data, i, device.values); !evaluated) {
      return core::propagate(evaluated);
    }
    core::RawSample& sample = out.emplace_back();
    sample.device_index = device.nvml_index;
    sample.source = core::SourceKind::PmSampling;
    sample.t_start_ns = static_cast<std::int64_t>(start);
    sample.t_end_ns = static_cast<std::int64_t>(end);
    add_counter_values(device.config.plan(), device.values, sample);
    device.last_end_gpu_ns = end;
  }
  return core::ok();
}

// Maps the times of out[first..] from GPU ns to the epoch, fixing the offset at the first samples ever.
void to_epoch(PmDevice& device, std::vector<core::RawSample>& out, std::size_t first,
              const std::function<std::int64_t()>& realtime_ns) {
  if (first >= out.size()) return;
  if (!device.have_offset) {
    device.epoch_offset_ns = realtime_ns() - out.back().t_end_ns;
    device.have_offset = true;
  }
  for (std::size_t i = first; i < out.size(); ++i) {
    out[i].t_start_ns += device.epoch_offset_ns;
    out[i].t_end_ns += device.epoch_offset_ns;
  }
  if (device.gap_pending) {
    out[first].flags |= core::kSampleGapBefore;
    device.gap_pending = false;
  }
}

auto lost(core::Error error) -> PmDecodeResult {
  return {.lost = true, .counters_busy = false, .error = std::move(error)};
}

// Another profiler took the counters: the session is over, the device is not lost (PmPoll::busy).
auto taken(core::Error error) -> PmDecodeResult {
  return {.lost = false, .counters_busy = true, .error = std::move(error)};
}

// Counts a failed decode; the device is lost after max_decode_failures in a row.
auto failed(PmDevice& device, const PmSessionSettings& settings, core::Error error) -> PmDecodeResult {
  if (++device.decode_failures >= settings.max_decode_failures) {
    error.message += " (" + std::to_string(device.decode_failures) + " decodes in a row)";
    return lost(std::move(error));
  }
  return {};
}

}  // namespace

auto decode_device(const CuptiApi& api, PmDevice& device, const PmSessionSettings& settings,
                   const std::function<std::int64_t()>& realtime_ns, std::vector<core::RawSample>& out)
    -> PmDecodeResult {
  const std::size_t first = out.size();  // this call's samples are out[first..], in GPU time until to_epoch
  bool overflow = false;
  for (int round = 0; round < kMaxDecodeRounds && !overflow; ++round) {
    CUpti_PmSampling_DecodeData_Params p{};
    p.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE;
    p.pPmSamplingObject = device.object;
    p.pCounterDataImage = device.counter_data.data();
    p.counterDataImageSize = device.counter_data.size();
    const CUptiResult rc = api.pm_decode_data(&p);
    if (rc == CUPTI_ERROR_OUT_OF_MEMORY) {
      // Hardware buffer overflow (cupti_pmsampling.h:309): the image holds no trustworthy samples.
      std::memcpy(device.counter_data.data(), device.pristine.data(), device.pristine.size());
      overflow = true;
      break;
    }
    if (rc != CUPTI_SUCCESS) {
      core::Error error = pm_error(api, rc, "cuptiPmSamplingDecodeData", PmCall::Other, device.label);
      to_epoch(device, out, first, realtime_ns);
      if (says_counters_busy(error)) return taken(std::move(error));
      return is_device_gone(rc) ? lost(std::move(error)) : failed(device, settings, std::move(error));
    }
    device.decode_failures = 0;
    auto read = read_samples(api, device, out);
    // Reset even after a failed read, so that values never accumulate across decodes (doc section 1.5 s).
    std::memcpy(device.counter_data.data(), device.pristine.data(), device.pristine.size());
    if (!read) {
      to_epoch(device, out, first, realtime_ns);
      return failed(device, settings, read.error());
    }
    overflow = p.overflow != 0;
    if (p.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS) break;
  }
  to_epoch(device, out, first, realtime_ns);
  if (overflow) {
    end_session(api, device, false);
    if (auto restarted = start_session(api, device, settings); !restarted) {
      core::Error error = restarted.error();
      if (says_counters_busy(error)) return taken(std::move(error));
      error.message = "cannot restart PM sampling after a buffer overflow: " + error.message;
      return lost(std::move(error));
    }
    device.gap_pending = true;
  }
  return {};
}

}  // namespace solscope::nvidia
