// Pieces of the synthetic NVML shared by its files (fake_nvml.cpp: the classic and GPM calls;
// fake_nvml_mig.cpp: the MIG calls and layouts). Not for tests themselves: they use fake_nvml.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "support/fake_nvml.hpp"

namespace solscope::nvidia::testing {

/// The current FakeNvml.
[[nodiscard]] auto fake() -> FakeNvml&;

/// The GPU index of a handle (of the GPU itself or of one of its MIG devices).
[[nodiscard]] auto gpu_index(nvml::Device device) -> std::uint32_t;

/// Counts the call and checks the handle: INVALID_ARGUMENT for an unknown GPU or MIG device, GPU_IS_LOST,
/// NOT_SUPPORTED for a name in FakeGpu::unsupported and for a MIG device handle when `mig` is null (a call
/// that NVML does not answer per instance); on a MIG device handle `*mig` is set to it (null otherwise).
[[nodiscard]] auto enter(const char* function, nvml::Device device, FakeGpu*& gpu,
                         FakeMigDevice** mig = nullptr) -> nvml::Return;

/// Copies `text` into a C buffer of `size` bytes, cut to fit, NUL-terminated.
void copy_text(const std::string& text, char* out, std::size_t size);

/// GPM: a sample is a copy of its GPU's (or GPU instance's) counters.
struct FakeGpmSample {
  std::uint32_t gpu = 0;
  bool taken = false;
  std::map<unsigned int, double> counters;
};

/// The MIG functions by exported name (fake_nvml_mig.cpp); nullptr for other names.
[[nodiscard]] auto find_mig_symbol(std::string_view name) -> void*;

/// The graphics and MPS process lists and the process utilization samples by exported name
/// (fake_nvml_processes.cpp); nullptr for other names.
[[nodiscard]] auto find_process_symbol(std::string_view name) -> void*;

}  // namespace solscope::nvidia::testing
