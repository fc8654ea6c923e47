// Helpers shared by the ceiling tests: the built-in GPU database and the fixture configs of
// tests/data/hf_configs (written from docs/design/ceiling-model.md section 3.2; see the README there).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ceiling/ceiling.hpp"
#include "ceiling/default_gpu_specs.hpp"
#include "ceiling/gpu_spec.hpp"
#include "ceiling/model_arch.hpp"

namespace solscope::ceiling::testing {

/// The path of a fixture config, e.g. fixture_path("llama-3.1-8b").
inline auto fixture_path(const std::string& model) -> std::string {
  return std::string(SOLSCOPE_TEST_DATA_DIR) + "/hf_configs/" + model + "/config.json";
}

/// The text of a fixture config; fails the test when it cannot be read.
inline auto fixture_text(const std::string& model) -> std::string {
  std::ifstream in(fixture_path(model));
  EXPECT_TRUE(in.good()) << "cannot read " << fixture_path(model);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The text of the fixture's hf_quant_config.json (ModelOpt checkpoints), or "" when it has none.
inline auto fixture_quant_text(const std::string& model) -> std::string {
  std::ifstream in(std::string(SOLSCOPE_TEST_DATA_DIR) + "/hf_configs/" + model + "/hf_quant_config.json");
  if (!in.good()) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A parsed fixture config (with its hf_quant_config.json when present, as the app reads it); aborts the
/// test on a parse error.
inline auto fixture_arch(const std::string& model) -> ModelArch {
  auto arch = parse_model_config(fixture_text(model), fixture_path(model), fixture_quant_text(model));
  EXPECT_TRUE(arch.has_value()) << (arch ? "" : arch.error().describe());
  return arch ? *arch : ModelArch{};
}

/// The built-in GPU database (parsed once).
inline auto builtin_db() -> const GpuDatabase& {
  static const GpuDatabase db = [] {
    auto parsed = parse_gpu_database(default_gpu_specs_json(), "built-in GPU specs");
    EXPECT_TRUE(parsed.has_value()) << (parsed ? "" : parsed.error().describe());
    return parsed ? *parsed : GpuDatabase{};
  }();
  return db;
}

/// A GPU of the built-in database by name.
inline auto builtin_gpu(const std::string& name) -> const GpuSpec& {
  auto gpu = find_gpu(builtin_db(), name);
  EXPECT_TRUE(gpu.has_value()) << name;
  return **gpu;
}

/// Evaluates a CLI-shaped workload; fails the test on an error.
inline auto evaluate_cli(const std::string& gpu, const ModelArch& arch, Phase phase, std::int64_t batch,
                         std::int64_t context, std::int64_t prompt, int tp = 1) -> Ceiling {
  Workload w;
  auto step = make_step(phase, batch, context, prompt);
  EXPECT_TRUE(step.has_value());
  w.step = *step;
  w.tensor_parallel = tp;
  auto result = evaluate(builtin_db(), builtin_gpu(gpu), arch, w);
  EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().describe());
  return result ? *result : Ceiling{};
}

/// The row of an operator in a Ceiling, or nullptr.
inline auto find_op(const Ceiling& c, std::string_view name) -> const OpCost* {
  for (const OpCost& op : c.ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

}  // namespace solscope::ceiling::testing
