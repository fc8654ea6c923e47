#include "fleet/detail/fleet_iteration.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/kernel_steps.hpp"
#include "core/prometheus_names.hpp"
#include "fleet/fleet_math.hpp"

namespace solscope::fleet {
namespace {

/// A row as core::find_straggler compares it (it reads the iteration and the compute): compute_s the one
/// rule (iteration x compute ratio, as core::rank_steps).
auto rank_of(const FleetRow& r) -> core::RankSteps {
  return core::RankSteps{.iteration_s = r.iteration_s, .compute_s = r.iteration_compute_s};
}

/// Rows of one group, by index into the caller's rows.
using Members = std::vector<std::size_t>;

/// The group's verdict, or nullopt below two members (core::find_straggler).
auto compare(const std::string& group, const Members& members, std::vector<FleetRow>& rows)
    -> std::optional<IterationGroup> {
  std::vector<core::RankSteps> ranks;
  for (const std::size_t i : members) ranks.push_back(rank_of(rows[i]));
  const auto verdict = core::find_straggler(ranks);
  if (!verdict) return std::nullopt;
  FleetRow& straggler = rows[members[verdict->straggler]];
  straggler.iteration_straggler = true;
  IterationGroup g;
  g.group = group;
  for (const std::size_t i : members) g.gpus.push_back(rows[i].key);
  g.straggler = straggler.key;
  g.straggler_compute_s = straggler.iteration_compute_s;
  g.median_compute_s = verdict->median_compute_s;
  g.spread_pct = verdict->spread_pct;
  g.iteration_spread_pct = verdict->iteration_spread_pct;
  return g;
}

}  // namespace

auto check_job_label(std::string_view label) -> core::Result<void> {
  const auto bad = [&](std::string_view why) {
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "--job-label " + std::string(label) + " is not a Prometheus label name: " + std::string(why),
        "give the label that names a job on the GPUs' series, e.g. --job-label pod, --job-label "
        "hpc_job or --job-label training_job ([a-zA-Z_][a-zA-Z0-9_]*)");
  };
  if (label.empty()) return bad("it is empty");
  if (!core::is_prometheus_label_name(label)) {
    return bad("a label name is a letter or '_' and then letters, digits and '_'");
  }
  if (label.starts_with("__")) return bad("names starting with '__' are reserved for Prometheus' own use");
  return {};
}

auto iteration_group(const FleetRow& row, std::string_view job_label) -> std::string {
  if (std::isnan(row.iteration_s)) return {};
  if (job_label.empty()) return straggler_group(row.key);
  if (row.job_label_value.empty()) return {};
  return std::string(job_label) + "=" + row.job_label_value;
}

auto mark_iteration_stragglers(std::vector<FleetRow>& rows, std::string_view job_label)
    -> std::vector<IterationGroup> {
  std::map<std::string, Members> groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    FleetRow& r = rows[i];
    r.iteration_straggler = false;
    r.iteration_compute_s = r.iteration_s * r.compute_ratio;
    r.iteration_group = iteration_group(r, job_label);
    if (!r.iteration_group.empty() && !std::isnan(r.iteration_compute_s))
      groups[r.iteration_group].push_back(i);
  }
  std::vector<IterationGroup> out;
  for (auto& [group, members] : groups) {
    std::sort(members.begin(), members.end(), [&rows](std::size_t a, std::size_t b) {
      const GpuKey& x = rows[a].key;
      const GpuKey& y = rows[b].key;
      return x.host != y.host ? natural_less(x.host, y.host) : natural_less(x.gpu, y.gpu);
    });
    if (auto g = compare(group, members, rows)) out.push_back(std::move(*g));
  }
  return out;
}

}  // namespace solscope::fleet
