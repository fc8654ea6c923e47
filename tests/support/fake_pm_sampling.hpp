// FakePmSampling: a scripted PmSampling for the NVIDIA source's tests. Its state is shared with the test,
// which keeps a handle after the source took ownership of the sampler. Samples it returns are synthetic. Like
// the real PmSampler, it gives samples only of open devices: a device leaves that set on close(), on
// close_all(), and when a poll reports it lost or busy.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sources/nvidia/detail/pm_sampling.hpp"

namespace solscope::nvidia::testing {

/// What the fake answers and what it saw.
struct FakePmState {
  /// open() result per NVML index; an index not listed opens as chip "GH100".
  std::map<std::uint32_t, core::Result<std::string>> open_results;
  /// poll() answers these in order (without the samples of devices not open), then empty polls.
  std::deque<PmPoll> polls;
  /// NVML indices open now: opened, and not closed, lost or busy since.
  std::set<std::uint32_t> open_devices;

  int factory_calls = 0;
  int poll_calls = 0;
  int close_all_calls = 0;
  std::vector<std::uint32_t> close_calls;  ///< NVML index of every close()
  std::vector<std::uint32_t> open_calls;   ///< NVML index of every open()
  std::vector<std::string> open_pci_ids;   ///< PCI bus id of every open()
  std::vector<std::int64_t> open_intervals_ns;
};

/// PmSampling that answers from a FakePmState.
class FakePmSampling final : public PmSampling {
 public:
  explicit FakePmSampling(std::shared_ptr<FakePmState> state) : state_(std::move(state)) {}

  auto open(std::uint32_t nvml_index, std::string_view pci_bus_id, std::int64_t interval_ns)
      -> core::Result<std::string> override {
    state_->open_calls.push_back(nvml_index);
    state_->open_pci_ids.emplace_back(pci_bus_id);
    state_->open_intervals_ns.push_back(interval_ns);
    const auto it = state_->open_results.find(nvml_index);
    core::Result<std::string> result =
        it == state_->open_results.end() ? core::Result<std::string>{"GH100"} : it->second;
    if (result) state_->open_devices.insert(nvml_index);
    return result;
  }

  auto poll() -> PmPoll override {
    ++state_->poll_calls;
    if (state_->polls.empty()) return {};
    PmPoll next = std::move(state_->polls.front());
    state_->polls.pop_front();
    std::erase_if(next.samples, [this](const core::RawSample& s) {
      return !state_->open_devices.contains(s.device_index);
    });
    for (const PmDeviceFault& fault : next.lost) state_->open_devices.erase(fault.nvml_index);
    for (const PmDeviceFault& fault : next.busy) state_->open_devices.erase(fault.nvml_index);
    return next;
  }

  void close(std::uint32_t nvml_index) override {
    state_->close_calls.push_back(nvml_index);
    state_->open_devices.erase(nvml_index);
  }

  void close_all() override {
    ++state_->close_all_calls;
    state_->open_devices.clear();
  }

 private:
  std::shared_ptr<FakePmState> state_;
};

/// A factory for NvidiaSourceDeps::make_pm_sampling that counts its calls in `state`.
inline auto fake_pm_factory(std::shared_ptr<FakePmState> state)
    -> std::function<std::unique_ptr<PmSampling>()> {
  return [state = std::move(state)]() -> std::unique_ptr<PmSampling> {
    ++state->factory_calls;
    return std::make_unique<FakePmSampling>(state);
  };
}

/// A synthetic PM sample of one device over [t_start_ns, t_end_ns) with the tensor pipe and DRAM set.
inline auto synthetic_pm_sample(std::uint32_t device, std::int64_t t_start_ns, std::int64_t t_end_ns,
                                double tensor_pct, double dram_pct) -> core::RawSample {
  core::RawSample sample;
  sample.device_index = device;
  sample.t_start_ns = t_start_ns;
  sample.t_end_ns = t_end_ns;
  sample.source = core::SourceKind::PmSampling;
  sample.set(core::MetricId::TensorPipe, tensor_pct);
  sample.set(core::MetricId::DramThroughput, dram_pct);
  return sample;
}

}  // namespace solscope::nvidia::testing
