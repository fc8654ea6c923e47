// Shared fixture of the PmSampler tests: a PmSampler wired to the fake CUPTI/CUDA tables and a settable
// clock.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/chip.hpp"
#include "core/metric_id.hpp"
#include "sources/nvidia/detail/pm_config.hpp"
#include "sources/nvidia/pm_sampler.hpp"
#include "support/fake_cupti.hpp"

namespace solscope::nvidia {

/// 2025-01-01T00:00:00Z in ns: the fake CLOCK_REALTIME of the tests.
inline constexpr std::int64_t kFakeEpochNs = 1'735'689'600'000'000'000;

/// NVML's spelling of the fake device 0's bus id (8-digit domain; the fake CUDA driver prints
/// "0000:17:00.0").
inline constexpr const char* kBusId0 = "00000000:17:00.0";

class PmSamplerFixture : public ::testing::Test {
 protected:
  void SetUp() override { fake::state().reset(); }

  auto make_sampler(PmSamplerOptions options = {}) -> std::unique_ptr<PmSampler> {
    PmSamplerDeps deps;
    deps.load_cupti = [] { return std::make_shared<CuptiApi>(fake::cupti_api()); };
    deps.load_cuda = [] { return std::make_shared<CudaApi>(fake::cuda_api()); };
    deps.realtime_ns = [this] { return now_ns_; };
    return std::make_unique<PmSampler>(options, std::move(deps));
  }

  /// A fake sample whose counters carry the given metric values (every counter of a '+'-joined metric gets
  /// the value, so such a metric reads as the value times its part count); other counters read 0.
  static auto sample(std::uint64_t start_ns, std::uint64_t end_ns,
                     std::initializer_list<std::pair<core::MetricId, double>> metrics,
                     core::ChipFamily family = core::ChipFamily::Gh100) -> fake::FakeSample {
    const PmCounterPlan plan = pm_counter_plan(family);
    fake::FakeSample s{.start_ns = start_ns, .end_ns = end_ns, .values = {}};
    s.values.assign(plan.counter_names.size(), 0.0);
    for (std::size_t i = 0; i < plan.counter_metrics.size(); ++i) {
      for (const auto& [id, value] : metrics) {
        if (plan.counter_metrics[i] == id) s.values[i] = value;
      }
    }
    return s;
  }

  /// Adds a fake GPU with this CUDA bus id; its ordinal is the next index.
  static void add_device(std::string bus_id, std::string chip = "GH100") {
    fake::FakeDevice d;
    d.bus_id = std::move(bus_id);
    d.chip = std::move(chip);
    fake::state().devices.push_back(std::move(d));
  }

  static auto device(std::size_t ordinal = 0) -> fake::FakeDevice& {
    return fake::state().devices.at(ordinal);
  }

  std::int64_t now_ns_ = kFakeEpochNs;
};

}  // namespace solscope::nvidia
