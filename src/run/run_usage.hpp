// `solscope run`: which GPUs the command's process tree uses, from NVML's per-GPU process lists.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "core/result.hpp"

namespace solscope::app {

/// Lists the pids with a compute context on one GPU (NVML index): make_nvml_pid_lister() in production.
using GpuPidLister = std::function<core::Result<std::vector<std::int32_t>>(std::uint32_t device)>;
/// Lists a process and all its descendants: workload::descendant_pids over /proc in production.
using ProcessTreeLister = std::function<std::vector<std::int32_t>(std::int32_t root)>;

/// Finds the GPUs a process tree uses. Not thread-safe: one thread polls (the pid lister's NVML session is
/// per thread).
class GpuUsage {
 public:
  GpuUsage(std::vector<std::uint32_t> devices, GpuPidLister pids, ProcessTreeLister tree)
      : devices_(std::move(devices)), pids_(std::move(pids)), tree_(std::move(tree)) {}

  /// One look: the tree of `root` against each device's process list. Returns the devices found in use for
  /// the first time (ascending). When the lister fails for a device, that device is not looked at again and
  /// the first error is kept (error()): the caller then keeps every device. A device not yet used stays
  /// unused until a later poll sees one of the tree's pids on it.
  auto poll(std::int32_t root) -> std::vector<std::uint32_t>;
  /// Devices seen in use so far.
  [[nodiscard]] auto used() const -> const std::set<std::uint32_t>& { return used_; }
  /// The first failure of the pid lister (e.g. Unavailable without NVML); nullopt while it works.
  [[nodiscard]] auto error() const -> const std::optional<core::Error>& { return error_; }

 private:
  std::vector<std::uint32_t> devices_;
  GpuPidLister pids_;
  ProcessTreeLister tree_;
  std::set<std::uint32_t> used_;
  std::set<std::uint32_t> failed_;
  std::optional<core::Error> error_;
};

}  // namespace solscope::app
