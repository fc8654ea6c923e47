#include "report/detail/kernel_join.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace solscope::report {

KernelJoin::KernelJoin(std::span<const core::KernelRecord> kernels) {
  std::map<std::pair<std::uint32_t, std::string_view>, std::size_t> index;
  groups_.reserve(kernels.size() < 4096 ? kernels.size() : 4096);
  for (const auto& k : kernels) {
    Lane& lane = lanes_[k.device];
    auto [it, added] = index.try_emplace({k.device, std::string_view(k.name)}, groups_.size());
    if (added) {
      groups_.push_back(Group{.name = k.name});
      lane.groups.push_back(it->second);
    }
    Group& group = groups_[it->second];
    const std::int64_t duration = std::max<std::int64_t>(k.end_ns - k.start_ns, 0);
    ++group.calls;
    group.total_ns += duration;
    lane.total_ns += duration;
    lane.calls.push_back(Call{.start_ns = k.start_ns, .end_ns = k.start_ns + duration, .group = it->second});
  }
  for (auto& [device, lane] : lanes_) {
    std::stable_sort(lane.calls.begin(), lane.calls.end(),
                     [](const Call& a, const Call& b) { return a.start_ns < b.start_ns; });
    mark_overlaps(lane);
  }
}

/// A call is overlapped when an earlier call ends after it starts, or the next call starts before it ends.
void KernelJoin::mark_overlaps(Lane& lane) {
  std::vector<const Call*> timed;
  for (const auto& c : lane.calls) {
    if (c.end_ns > c.start_ns) timed.push_back(&c);
  }
  bool have_end = false;
  std::int64_t max_end = 0;
  for (std::size_t i = 0; i < timed.size(); ++i) {
    const Call& c = *timed[i];
    const bool by_earlier = have_end && max_end > c.start_ns;
    const bool by_later = i + 1 < timed.size() && timed[i + 1]->start_ns < c.end_ns;
    if (by_earlier || by_later) ++groups_[c.group].overlapped_calls;
    max_end = have_end ? std::max(max_end, c.end_ns) : c.end_ns;
    have_end = true;
  }
}

void KernelJoin::add(const core::SolSample& sample) {
  const auto it = lanes_.find(sample.device_index);
  if (it == lanes_.end()) return;
  Lane& lane = it->second;
  std::erase_if(lane.open, [&](std::size_t c) { return lane.calls[c].end_ns <= sample.t_start_ns; });
  while (lane.next < lane.calls.size() && lane.calls[lane.next].start_ns < sample.t_end_ns) {
    if (lane.calls[lane.next].end_ns > sample.t_start_ns) lane.open.push_back(lane.next);
    ++lane.next;
  }
  for (const std::size_t c : lane.open) {
    const Call& call = lane.calls[c];
    const std::int64_t from = std::max(call.start_ns, sample.t_start_ns);
    const std::int64_t to = std::min(call.end_ns, sample.t_end_ns);
    if (to <= from) continue;
    core::SolSample part = sample;
    part.t_start_ns = from;
    part.t_end_ns = to;
    Group& group = groups_[call.group];
    group.sampled_ns += to - from;
    group.figures.add(part);
  }
}

auto KernelJoin::devices() const -> std::vector<std::uint32_t> {
  std::vector<std::uint32_t> out;
  for (const auto& [device, lane] : lanes_) out.push_back(device);
  return out;
}

void KernelJoin::fill(GpuReport& gpu, std::size_t top) const {
  const auto it = lanes_.find(gpu.device.index);
  if (it == lanes_.end()) return;
  const Lane& lane = it->second;
  gpu.kernel_calls = lane.calls.size();
  gpu.kernel_names = lane.groups.size();
  gpu.kernel_total_ns = lane.total_ns;
  std::vector<std::size_t> order = lane.groups;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (groups_[a].total_ns != groups_[b].total_ns) return groups_[a].total_ns > groups_[b].total_ns;
    return groups_[a].name < groups_[b].name;
  });
  if (order.size() > top) order.resize(top);
  for (const std::size_t g : order) {
    const Group& group = groups_[g];
    KernelRow row{.name = group.name,
                  .calls = group.calls,
                  .total_ns = group.total_ns,
                  .sampled_ns = group.sampled_ns,
                  .overlapped_calls = group.overlapped_calls};
    row.time_share_pct = lane.total_ns > 0 ? core::kPercent * static_cast<double>(group.total_ns) /
                                                 static_cast<double>(lane.total_ns)
                                           : 0.0;
    if (!group.figures.empty()) {
      const core::SolSample mean = group.figures.result();
      row.compute_sol_pct = mean.compute_sol_pct;
      row.compute_pipe = mean.compute_pipe;
      row.memory_sol_pct = mean.memory_sol_pct;
      row.memory_path = mean.memory_path;
    }
    gpu.top_kernels.push_back(std::move(row));
  }
}

}  // namespace solscope::report
