#include "report/detail/kernel_join.hpp"

#include <algorithm>
#include <utility>

namespace solscope::report {

KernelJoin::KernelJoin(std::span<const core::KernelRecord> kernels) {
  for (const auto& k : kernels) add_call(k);
  seal();
}

void KernelJoin::add_call(const core::KernelRecord& kernel) {
  if (sealed_) return;
  Lane& lane = lanes_[kernel.device];
  auto found = lane.index.find(kernel.name);
  if (found == lane.index.end()) {
    const auto group = static_cast<std::uint32_t>(groups_.size());
    groups_.push_back(Group{.name = kernel.name});
    lane.groups.push_back(group);
    found = lane.index.emplace(kernel.name, group).first;
  }
  Group& group = groups_[found->second];
  const std::int64_t duration = std::max<std::int64_t>(kernel.end_ns - kernel.start_ns, 0);
  ++group.calls;
  group.total_ns += duration;
  lane.total_ns += duration;
  lane.calls.push_back(Call{.start_ns = kernel.start_ns,
                            .end_ns = kernel.start_ns + duration,
                            .group = found->second,
                            .pid = kernel.pid});
}

void KernelJoin::seal() {
  if (sealed_) return;
  sealed_ = true;
  for (auto& [device, lane] : lanes_) {
    std::unordered_map<std::string, std::uint32_t>().swap(lane.index);  // no more calls come
    // In place (no buffer the size of the calls); the full key keeps the order deterministic.
    std::sort(lane.calls.begin(), lane.calls.end(), [](const Call& a, const Call& b) {
      if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
      if (a.end_ns != b.end_ns) return a.end_ns < b.end_ns;
      return a.group < b.group;
    });
    mark_overlaps(lane);
  }
}

auto KernelJoin::records(std::uint32_t device, std::size_t max_calls, std::size_t& left) const
    -> std::vector<core::KernelRecord> {
  left = 0;
  const auto it = lanes_.find(device);
  if (it == lanes_.end()) return {};
  const std::deque<Call>& calls = it->second.calls;
  const std::size_t used = std::min(calls.size(), max_calls);
  left = calls.size() - used;
  std::vector<core::KernelRecord> out(used);
  for (std::size_t i = 0; i < used; ++i) {
    const Call& c = calls[i];
    out[i] = core::KernelRecord{.device = device,
                                .start_ns = c.start_ns,
                                .end_ns = c.end_ns,
                                .pid = c.pid,
                                .name = groups_[c.group].name};
  }
  return out;
}

/// A call is overlapped when an earlier call ends after it starts, or the next call starts before it ends.
/// Calls without time are left out of both sides.
void KernelJoin::mark_overlaps(Lane& lane) {
  const std::size_t n = lane.calls.size();
  auto timed_from = [&](std::size_t i) {
    while (i < n && lane.calls[i].end_ns <= lane.calls[i].start_ns) ++i;
    return i;
  };
  bool have_end = false;
  std::int64_t max_end = 0;
  for (std::size_t i = timed_from(0); i < n;) {
    const Call& c = lane.calls[i];
    const std::size_t next = timed_from(i + 1);
    const bool by_earlier = have_end && max_end > c.start_ns;
    const bool by_later = next < n && lane.calls[next].start_ns < c.end_ns;
    if (by_earlier || by_later) ++groups_[c.group].overlapped_calls;
    max_end = have_end ? std::max(max_end, c.end_ns) : c.end_ns;
    have_end = true;
    i = next;
  }
}

void KernelJoin::add(const core::SolSample& sample) {
  seal();
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
  std::vector<std::uint32_t> order = lane.groups;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (groups_[a].total_ns != groups_[b].total_ns) return groups_[a].total_ns > groups_[b].total_ns;
    return groups_[a].name < groups_[b].name;
  });
  if (order.size() > top) order.resize(top);
  for (const std::uint32_t g : order) {
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
