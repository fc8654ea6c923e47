// The text and JSON forms of the report's Training steps (report/report.hpp; docs/report.md
// "Training steps" and "JSON fields").
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace solscope::report {

/// Appends the "Training steps" section (at most 100 columns): per GPU its iterations' percentiles, the
/// collective mix, the median iteration's split and the first kTextStepIterations iterations (start seconds
/// from `origin_ns`), or the samples' estimate; then the ranks and the straggler. Nothing when no GPU has
/// kernels or samples.
void write_training_steps(std::string& out, const TrainingSteps& steps, std::int64_t origin_ns);

/// The `training_steps` key of the JSON report (docs/report.md "JSON fields"); unknown figures null.
[[nodiscard]] auto training_steps_json(const TrainingSteps& steps) -> nlohmann::ordered_json;

}  // namespace solscope::report
