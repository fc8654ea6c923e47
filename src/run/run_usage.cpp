#include "run/run_usage.hpp"

#include <algorithm>

namespace solscope::app {

auto GpuUsage::poll(std::int32_t root) -> std::vector<std::uint32_t> {
  std::vector<std::uint32_t> fresh;
  std::vector<std::int32_t> tree;
  bool tree_read = false;
  for (const std::uint32_t device : devices_) {
    if (used_.contains(device) || failed_.contains(device)) continue;
    auto pids = pids_(device);
    if (!pids) {
      failed_.insert(device);
      if (!error_) error_ = pids.error();
      continue;
    }
    if (pids->empty()) continue;
    if (!tree_read) {
      tree = tree_(root);
      std::sort(tree.begin(), tree.end());
      tree_read = true;
    }
    const bool ours = std::any_of(pids->begin(), pids->end(), [&](std::int32_t pid) {
      return std::binary_search(tree.begin(), tree.end(), pid);
    });
    if (ours) {
      used_.insert(device);
      fresh.push_back(device);
    }
  }
  return fresh;
}

}  // namespace solscope::app
