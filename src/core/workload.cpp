#include "core/workload.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/enum_table.hpp"

namespace solscope::core {
namespace {

constexpr EnumNames<WorkloadSharing> kSharingNames({"none", "exclusive", "time_sliced", "concurrent"},
                                                   "none");
constexpr EnumNames<WorkloadSharing> kSharingLabels({"", "exclusive", "shared (time-sliced)",
                                                     "shared (concurrent)"},
                                                    "");
constexpr EnumNames<WorkloadOrigin> kOriginNames({"kubelet", "job_mapping", "slurm", "cgroup", "process",
                                                  "none"},
                                                 "none");

template <class Enum, class Names>
auto parse_enum(std::string_view text, const Names& names) -> std::optional<Enum> {
  for (std::size_t i = 0; i < static_cast<std::size_t>(Enum::kCount); ++i) {
    if (names(static_cast<Enum>(i)) == text) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

/// A known, usable SM percentage: finite and >= 0.
auto known_pct(const std::optional<double>& pct) -> bool {
  return pct.has_value() && std::isfinite(*pct) && *pct >= 0.0;
}

/// Keeps `field` only when it equals `other`.
void keep_common(std::string& field, const std::string& other) {
  if (field != other) field.clear();
}

}  // namespace

auto to_string(WorkloadSharing sharing) -> std::string_view {
  return kSharingNames(sharing);
}
auto parse_workload_sharing(std::string_view text) -> std::optional<WorkloadSharing> {
  return parse_enum<WorkloadSharing>(text, kSharingNames);
}
auto sharing_label(WorkloadSharing sharing) -> std::string_view {
  return kSharingLabels(sharing);
}
auto to_string(WorkloadOrigin origin) -> std::string_view {
  return kOriginNames(origin);
}
auto parse_workload_origin(std::string_view text) -> std::optional<WorkloadOrigin> {
  return parse_enum<WorkloadOrigin>(text, kOriginNames);
}

auto WorkloadIdentity::empty() const -> bool {
  return pod.empty() && pod_namespace.empty() && container.empty() && hpc_job.empty() && user.empty();
}

auto WorkloadIdentity::label_fields() const -> WorkloadIdentity {
  WorkloadIdentity out = *this;
  out.user.clear();
  return out;
}

auto WorkloadIdentity::display() const -> std::string {
  if (!pod.empty()) {
    std::string out = pod_namespace.empty() ? pod : pod_namespace + "/" + pod;
    if (!container.empty()) out += "/" + container;
    return out;
  }
  if (!hpc_job.empty()) return "job " + hpc_job + (user.empty() ? "" : " (" + user + ")");
  if (!container.empty()) return "container " + container;
  if (!user.empty()) return "user " + user;
  return "unknown";
}

auto GpuWorkloads::label_identity() const -> WorkloadIdentity {
  if (workloads.empty()) return {};
  WorkloadIdentity out = workloads.front().id.label_fields();
  for (std::size_t i = 1; i < workloads.size(); ++i) {
    const WorkloadIdentity& other = workloads[i].id;
    keep_common(out.pod, other.pod);
    keep_common(out.pod_namespace, other.pod_namespace);
    keep_common(out.container, other.container);
    keep_common(out.hpc_job, other.hpc_job);
  }
  return out;
}

auto attribute_gpu(std::span<const ProcessWorkload> processes,
                   std::span<const WorkloadAllocation> allocations, std::string note) -> GpuWorkloads {
  GpuWorkloads out;
  out.note = std::move(note);
  bool any_mps = false;
  bool split_known = true;
  for (const ProcessWorkload& p : processes) {
    any_mps = any_mps || p.mps;
    auto it = std::find_if(out.workloads.begin(), out.workloads.end(),
                           [&](const WorkloadShare& w) { return w.id == p.id; });
    if (it == out.workloads.end()) {
      out.workloads.push_back(WorkloadShare{.id = p.id, .origin = p.origin, .pids = {}, .sm_pct = 0.0});
      it = std::prev(out.workloads.end());
    }
    it->pids.push_back(p.pid);
    if (known_pct(p.sm_pct) && it->sm_pct.has_value()) {
      *it->sm_pct += *p.sm_pct;
    } else {
      it->sm_pct.reset();
      split_known = false;
    }
  }
  for (const WorkloadAllocation& a : allocations) {
    const bool matched = std::any_of(out.workloads.begin(), out.workloads.end(),
                                     [&](const WorkloadShare& w) { return w.id == a.id; });
    if (!matched)
      out.workloads.push_back(WorkloadShare{.id = a.id, .origin = a.origin, .pids = {}, .sm_pct = 0.0});
  }
  for (WorkloadShare& w : out.workloads) std::sort(w.pids.begin(), w.pids.end());

  if (out.workloads.empty()) return out;
  if (out.workloads.size() == 1) {
    out.sharing = WorkloadSharing::kExclusive;
    out.workloads.front().fraction = 1.0;
    return out;
  }
  double total_pct = 0.0;
  for (const WorkloadShare& w : out.workloads) total_pct += w.sm_pct.value_or(0.0);
  if (any_mps || !split_known || !(total_pct > 0.0)) {
    out.sharing = WorkloadSharing::kConcurrent;
    return out;
  }
  out.sharing = WorkloadSharing::kTimeSliced;
  for (WorkloadShare& w : out.workloads) w.fraction = w.sm_pct.value_or(0.0) / total_pct;
  return out;
}

auto workload_parts(const GpuWorkloads& gpu) -> std::vector<WorkloadPart> {
  std::vector<WorkloadPart> parts;
  if (gpu.workloads.empty()) return parts;
  if (gpu.sharing == WorkloadSharing::kExclusive) {
    parts.push_back({gpu.workloads.front().id, WorkloadSharing::kExclusive, 1.0});
    return parts;
  }
  const bool split = gpu.sharing == WorkloadSharing::kTimeSliced &&
                     std::all_of(gpu.workloads.begin(), gpu.workloads.end(),
                                 [](const WorkloadShare& w) { return w.fraction.has_value(); });
  if (!split) {
    WorkloadIdentity common = gpu.label_identity();
    common.user = gpu.workloads.front().id.user;
    for (const WorkloadShare& w : gpu.workloads) keep_common(common.user, w.id.user);
    parts.push_back({std::move(common), WorkloadSharing::kConcurrent, 1.0});
    return parts;
  }
  parts.reserve(gpu.workloads.size());
  for (const WorkloadShare& w : gpu.workloads)
    parts.push_back({w.id, WorkloadSharing::kTimeSliced, *w.fraction});
  return parts;
}

auto WorkloadCounters::parts_of(const GpuWorkloads& gpu) -> Parts {
  Parts out;
  for (const WorkloadPart& p : workload_parts(gpu))
    out.emplace_back(WorkloadSeriesKey{p.id.label_fields(), p.sharing}, p.fraction);
  return out;
}

void WorkloadCounters::add(const GpuWorkloads& gpu, Bound bound, double seconds) {
  if (gpu.workloads.empty()) return;
  add(parts_of(gpu), bound, seconds);
}

void WorkloadCounters::add(const Parts& parts, Bound bound, double seconds) {
  if (!(seconds > 0.0) || !std::isfinite(seconds)) return;
  for (const auto& [key, fraction] : parts) {
    const double part = seconds * fraction;
    if (part > 0.0) add_to(key, bound, part);
  }
}

void WorkloadCounters::add_to(const WorkloadSeriesKey& key, Bound bound, double seconds) {
  auto it = series_.find(key);
  if (it == series_.end()) {
    if (series_.size() >= kMaxWorkloadSeriesPerGpu) {
      dropped_seconds_ += seconds;
      return;
    }
    it = series_.emplace(key, std::array<double, kBoundCount>{}).first;
  }
  const auto b = static_cast<std::size_t>(bound);
  if (b < kBoundCount) it->second[b] += seconds;
}

}  // namespace solscope::core
