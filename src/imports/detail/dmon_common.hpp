// What the two dmon importers share: options for logs without timestamps, and the device table they build.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/device_info.hpp"
#include "core/units.hpp"
#include "imports/detail/recording.hpp"

namespace solscope::imports {

/// Placing samples of a log that carries no timestamps.
struct DmonOptions {
  /// The tool's collection interval (`dcgmi dmon -d` ms, default 1000; `nvidia-smi dmon -d` s, default 1).
  std::int64_t interval_ns = core::kNsPerS;
  /// End of the first interval; later intervals follow every interval_ns.
  std::int64_t start_ns = core::kNsPerS;
};

/// Devices by the entity name a log gives them ("GPU 0", "GPU-I 3"), numbered in first-seen order.
class EntityDevices {
 public:
  /// The index for `entity`, adding a device made by `make` (called with the new index) when it is new.
  template <class Make>
  auto index_of(const std::string& entity, Make&& make) -> std::uint32_t {
    auto [it, fresh] = indices_.try_emplace(entity, static_cast<std::uint32_t>(devices_.size()));
    if (fresh) devices_.push_back(make(it->second));
    return it->second;
  }
  [[nodiscard]] auto take() -> std::vector<core::DeviceInfo> { return std::move(devices_); }

 private:
  std::map<std::string, std::uint32_t> indices_;
  std::vector<core::DeviceInfo> devices_;
};

/// True when interval number `k` (0-based) ends at a time an int64 of ns holds with room for a shift of about
/// 100 years (start_ns + (k + 1) x interval_ns below 2^62).
[[nodiscard]] auto interval_fits(std::int64_t k, const DmonOptions& options) -> bool;

}  // namespace solscope::imports
