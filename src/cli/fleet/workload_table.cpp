#include "cli/fleet/workload_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fleet/fleet_math.hpp"
#include "runtime/messages.hpp"

namespace solscope::app {
namespace {

/// The group column is at least as wide as its title and at most this many characters (longer names are cut
/// with "~" at the end).
constexpr std::size_t kMaxGroupWidth = 48;

/// "NAMESPACE", "POD", "JOB".
auto group_title(fleet::GroupBy by) -> std::string {
  std::string title(fleet::group_by_name(by));
  for (char& c : title) c = static_cast<char>(c - 'a' + 'A');
  return title;
}

auto cut(const std::string& text, std::size_t width) -> std::string {
  return text.size() <= width ? text : text.substr(0, width - 1) + "~";
}

auto sol_text(double pct) -> std::string {
  return std::isnan(pct) ? std::string("n/a") : fmt::format("{:.1f}%", pct);
}

void print_row(std::ostream& out, std::size_t width, const std::string& group, const fleet::WorkloadRow& r) {
  out << fmt::format("{:<{}}  {:>4}  {:>15.3f}  {:>10.3f}  {:>15.3f}  {:>12.3f}  {:>11}\n", cut(group, width),
                     width, r.gpus, r.allocated_gpu_hours, r.idle_gpu_hours, r.busy_idle_gpu_hours,
                     r.wasted_gpu_hours, sol_text(r.compute_sol_mean_pct));
}

}  // namespace

auto parse_fleet_group_by(std::string_view text) -> core::Result<fleet::GroupBy> {
  if (auto by = fleet::parse_group_by(text)) return *by;
  const std::vector<std::string> names = fleet::group_by_names();
  const std::string closest = closest_match(text, names);
  std::string hint = "give --by namespace, --by pod or --by job (the Slurm job, label hpc_job)";
  if (!closest.empty()) hint = "did you mean --by " + closest + "? " + hint;
  return core::fail(core::ErrorCode::InvalidArgument,
                    "--by " + std::string(text) + " is not a way to group the fleet's GPUs", hint);
}

void print_workload_table(const fleet::WorkloadRollup& rollup, std::ostream& out) {
  const std::string title = group_title(rollup.by);
  std::size_t width = title.size();
  for (const auto& r : rollup.rows) width = std::max(width, std::min(r.group.size(), kMaxGroupWidth));
  out << fmt::format("GPUs by {}, most wasted first: {}\n", fleet::group_by_name(rollup.by), rollup.source);
  out << fmt::format("{:<{}}  {:>4}  {:>15}  {:>10}  {:>15}  {:>12}  {:>11}\n", title, width, "GPUS",
                     "ALLOCATED GPU-h", "IDLE GPU-h", "BUSY-IDLE GPU-h", "WASTED GPU-h", "COMPUTE SOL");
  for (const auto& r : rollup.rows) print_row(out, width, r.group, r);
  if (!rollup.rows.empty()) print_row(out, width, "total", fleet::workload_totals(rollup.rows));
  for (const auto& note : rollup.notes) out << "note: " << note << '\n';
}

}  // namespace solscope::app
