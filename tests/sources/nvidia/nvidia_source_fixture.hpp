// The NVIDIA source's test host: a synthetic NVML (support/fake_nvml.hpp), a fake PM sampler, a procfs tree
// for the permission pre-flight (RmProfilingAdminOnly as given, no capabilities, a non-root user) and a clock
// the test moves, with the NvidiaSourceDeps over them. Every figure is synthetic.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sources/nvidia/nvidia_source.hpp"
#include "support/fake_nvml.hpp"
#include "support/fake_pm_sampling.hpp"

namespace solscope::nvidia::testing {

inline constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;  // synthetic epoch time
inline constexpr std::int64_t kMs = 1'000'000;
inline constexpr std::int64_t kInterval = 100 * kMs;

inline auto contains(const std::string& text, const std::string& part) -> bool {
  return text.find(part) != std::string::npos;
}

/// An Ampere GPU: no GPM.
inline auto ampere_like() -> FakeGpu {
  FakeGpu gpu;
  gpu.name = "Synthetic A100-like GPU";
  gpu.arch = nvml::kArchAmpere;
  gpu.gpm_supported = false;
  return gpu;
}

class NvidiaSourceFixture : public ::testing::Test {
 protected:
  NvidiaSourceFixture() { set_procfs(0); }

  /// RmProfilingAdminOnly as given, no capabilities, a non-root user.
  void set_procfs(int admin_only) {
    procfs_ = std::make_unique<FakeProcfsTree>(nvidia_params(admin_only), status_with_cap_eff(0));
  }

  auto deps() -> NvidiaSourceDeps {
    NvidiaSourceDeps d;
    d.load_nvml = [this]() -> core::Result<NvmlApi> { return fake_.api(); };
    d.make_pm_sampling = fake_pm_factory(pm_);
    d.procfs_root = procfs_->root();
    d.euid = [] { return 1000U; };
    d.now_ns = [this] { return now_; };
    return d;
  }

  static auto start(NvidiaSource& source, std::vector<std::uint32_t> devices = {}) -> core::Result<void> {
    return source.start({.interval_ns = kInterval, .devices = std::move(devices)});
  }

  /// The source's poll at time `t_ns`; a failed poll is a test failure and no samples.
  auto poll_at(NvidiaSource& source, std::int64_t t_ns) -> std::vector<core::RawSample> {
    now_ = t_ns;
    auto polled = source.poll();
    EXPECT_TRUE(polled.has_value()) << (polled ? "" : polled.error().message);
    return polled ? *polled : std::vector<core::RawSample>{};
  }

  FakeNvml fake_;
  std::shared_ptr<FakePmState> pm_ = std::make_shared<FakePmState>();
  std::unique_ptr<FakeProcfsTree> procfs_;
  std::int64_t now_ = kT0;
};

}  // namespace solscope::nvidia::testing
