// FakePmSampling: a scripted PmSampling for the NVIDIA source's tests. Its state is shared with the test,
// which keeps a handle after the source took ownership of the sampler. Samples it returns are synthetic.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sources/nvidia/detail/pm_sampling.hpp"

namespace solscope::nvidia::testing {

/// What the fake answers and what it saw.
struct FakePmState {
  /// open() result per NVML index; an index not listed opens as chip "GH100".
  std::map<std::uint32_t, core::Result<std::string>> open_results;
  /// poll() answers these in order, then empty polls.
  std::deque<PmPoll> polls;

  int factory_calls = 0;
  int poll_calls = 0;
  int close_all_calls = 0;
  std::vector<std::uint32_t> open_calls;  ///< NVML index of every open()
  std::vector<std::string> open_pci_ids;  ///< PCI bus id of every open()
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
    return it == state_->open_results.end() ? core::Result<std::string>{"GH100"} : it->second;
  }

  auto poll() -> PmPoll override {
    ++state_->poll_calls;
    if (state_->polls.empty()) return {};
    PmPoll next = std::move(state_->polls.front());
    state_->polls.pop_front();
    return next;
  }

  void close_all() override { ++state_->close_all_calls; }

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
