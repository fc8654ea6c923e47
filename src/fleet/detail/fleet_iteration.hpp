// Stragglers by iteration time across the GPUs of one job, from solscope's per-GPU iteration series in
// Prometheus (a multi-node job: docs/fleet.md "Iteration stragglers"). Pure: groups the fleet's rows by a job
// label and compares each group's GPUs with core::find_straggler (core/kernel_steps.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "fleet/fleet_model.hpp"

namespace solscope::fleet {

/// Checks a `--job-label` value: a Prometheus label name as PromQL writes it without quotes,
/// `[a-zA-Z_][a-zA-Z0-9_]*`, and not one of the names Prometheus reserves for itself (starting with `__`)
/// [Prometheus docs, "Data model", https://prometheus.io/docs/concepts/data_model/]. Errors:
/// InvalidArgument "--job-label V is not a Prometheus label name: ..." with a hint naming examples.
[[nodiscard]] auto check_job_label(std::string_view label) -> core::Result<void>;

/// The group a row's iteration is compared in: with a job label, "LABEL=VALUE" (empty when the row's series
/// lack the label: not compared); without one, straggler_group() ("job:namespace/pod", else "host:NAME").
/// Empty for a row that is not periodic (iteration_s NaN).
[[nodiscard]] auto iteration_group(const FleetRow& row, std::string_view job_label) -> std::string;

/// Sets iteration_group, iteration_compute_s (iteration_s x compute_ratio, the rule of core::rank_steps; NaN
/// when either is unknown, and then the row is not compared) and iteration_straggler on every row, and
/// returns the groups of two or more periodic GPUs with core::find_straggler's verdict (GPUs in natural
/// (host, GPU) order; the straggler is the GPU whose compute takes longest), in group order.
[[nodiscard]] auto mark_iteration_stragglers(std::vector<FleetRow>& rows, std::string_view job_label)
    -> std::vector<IterationGroup>;

}  // namespace solscope::fleet
