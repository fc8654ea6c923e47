// A scripted fake of CUPTI's PM-sampling and host API and of the CUDA driver calls PmSampler uses, as
// CuptiApi and CudaApi tables of plain functions over one global state (plain function pointers cannot
// capture). Synthetic: nothing here is measured on a GPU.
//
// The fake counter-data image is a header plus `max_samples` slots of {start, end, one double per counter}. A
// decode moves pending samples into free slots; when the image was not reset since the last decode, each new
// value is added to the values already in the image, which models counters accumulating without a reset (doc
// section 1.5 s).
#pragma once

#include <cuda.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sources/nvidia/cuda_api.hpp"
#include "sources/nvidia/detail/cupti_api.hpp"

namespace solscope::nvidia::fake {

/// One sample the fake hardware delivers: GPU timestamps (ns) and one value per configured counter, in the
/// order of the device's counter list (missing values count as 0).
struct FakeSample {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::vector<double> values;
};

/// One fake GPU; its CUDA ordinal is its index in FakeCuptiState::devices.
struct FakeDevice {
  std::string bus_id = "0000:17:00.0";  ///< as cuDeviceGetPCIBusId prints it
  std::string chip = "GH100";
  int cc_major = 9;
  int cc_minor = 0;
  CUpti_Profiler_Support_Level supported = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  CUpti_Profiler_Support_Level vgpu = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;

  // Script.
  std::deque<FakeSample> pending;          ///< delivered by the next decodes, in order
  std::deque<CUptiResult> decode_results;  ///< results of the next DecodeData calls (then SUCCESS)
  std::deque<CUpti_PmSampling_DecodeStopReason>
      stop_reasons;                        ///< forced reasons of the next successful decodes
  bool overflow_next = false;              ///< the next successful decode sets `overflow`
  std::deque<CUptiResult> enable_results;  ///< results of the next Enable calls (then SUCCESS)
  CUptiResult availability_result = CUPTI_SUCCESS;
  CUptiResult set_config_result = CUPTI_SUCCESS;

  // Observed.
  int enable_calls = 0;
  int set_config_calls = 0;
  int start_calls = 0;
  int stop_calls = 0;
  int disable_calls = 0;
  int decode_calls = 0;
  bool enabled = false;
  bool started = false;
  std::size_t set_config_struct_size = 0;
  CUpti_PmSampling_TriggerMode trigger_mode = CUPTI_PM_SAMPLING_TRIGGER_MODE_COUNT;
  std::uint64_t sampling_interval = 0;
  CUpti_PmSampling_HardwareBuffer_AppendMode append_mode =
      CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  std::size_t hardware_buffer_size = 0;
  std::uint32_t max_samples = 0;
  std::size_t num_counters = 0;
};

/// Everything the fake functions read and write. Reset it with reset() at the start of each test.
struct FakeCuptiState {
  std::uint32_t version = 130001;
  CUresult cu_init_result = CUDA_SUCCESS;
  CUptiResult profiler_init_result = CUPTI_SUCCESS;
  std::size_t num_passes = 1;
  std::vector<FakeDevice> devices{FakeDevice{}};

  int cu_init_calls = 0;
  int profiler_init_calls = 0;
  int profiler_deinit_calls = 0;
  int target_calls = 0;  ///< every target-side CUPTI call (profiler init, device, pm sampling)
  int live_host_objects = 0;
  int evaluate_calls = 0;
  std::vector<std::string> calls;  ///< names of target-side calls, in order
  /// Teardown steps of both sides in call order: cuptiPmSamplingStop, cuptiPmSamplingDisable,
  /// cuptiProfilerHostDeinitialize and cuptiProfilerDeInitialize (doc section 1.6 orders them).
  std::vector<std::string> teardown;

  void reset() { *this = FakeCuptiState{}; }
};

/// The one fake state of the test binary.
[[nodiscard]] auto state() -> FakeCuptiState&;

/// A CuptiApi whose every function is a fake over state(); no library behind it.
[[nodiscard]] auto cupti_api() -> CuptiApi;

/// A CudaApi whose every function is a fake over state().
[[nodiscard]] auto cuda_api() -> CudaApi;

}  // namespace solscope::nvidia::fake
