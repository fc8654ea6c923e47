#include "workload/declaration.hpp"

#include <algorithm>
#include <array>

#include <toml++/toml.h>

namespace solscope::workload {
namespace {

constexpr std::int64_t kMaxGpuIndex = 1023;
constexpr std::array<std::string_view, 8> kKeys = {"gpus",  "model", "engine",  "tp",
                                                   "phase", "batch", "context", "prompt"};

/// Builds errors that name the source and line.
class Errors {
 public:
  explicit Errors(std::string_view source) : source_(source) {}
  [[nodiscard]] auto at(const toml::node& node, const std::string& what, std::string hint = {}) const
      -> core::Unexpected<core::Error> {
    return at_line(static_cast<int>(node.source().begin.line), what, std::move(hint));
  }
  [[nodiscard]] auto at_line(int line, const std::string& what, std::string hint = {}) const
      -> core::Unexpected<core::Error> {
    return core::fail(core::ErrorCode::InvalidArgument, source_ + ":" + std::to_string(line) + ": " + what,
                      std::move(hint));
  }

 private:
  std::string source_;
};

auto known_keys() -> std::string {
  std::string out;
  for (const std::string_view key : kKeys) out += (out.empty() ? "" : ", ") + std::string(key);
  return out;
}

auto read_int(const toml::node& node, std::string_view key, std::int64_t min, std::int64_t max,
              const Errors& errors) -> core::Result<std::int64_t> {
  const auto* value = node.as_integer();
  if (value == nullptr || value->get() < min || value->get() > max) {
    return errors.at(node, "workload key '" + std::string(key) + "' must be an integer from " +
                               std::to_string(min) + " to " + std::to_string(max));
  }
  return value->get();
}

auto read_string(const toml::node& node, std::string_view key, const Errors& errors)
    -> core::Result<std::string> {
  const auto* value = node.as_string();
  if (value == nullptr || value->get().empty()) {
    return errors.at(node, "workload key '" + std::string(key) + "' must be a non-empty string");
  }
  return value->get();
}

auto read_gpus(const toml::node& node, const Errors& errors) -> core::Result<std::vector<std::uint32_t>> {
  const auto* array = node.as_array();
  if (array == nullptr || array->empty()) {
    return errors.at(node, "workload key 'gpus' must be a non-empty array of GPU indices",
                     "e.g. gpus = [0, 1]");
  }
  std::vector<std::uint32_t> gpus;
  for (const toml::node& element : *array) {
    auto index = read_int(element, "gpus", 0, kMaxGpuIndex, errors);
    if (!index) return core::propagate(index);
    gpus.push_back(static_cast<std::uint32_t>(*index));
  }
  std::sort(gpus.begin(), gpus.end());
  if (std::adjacent_find(gpus.begin(), gpus.end()) != gpus.end()) {
    return errors.at(node, "workload key 'gpus' lists a GPU twice");
  }
  return gpus;
}

/// Applies one key of an entry; `tp_given` records whether `tp` was set.
auto apply_key(std::string_view key, const toml::node& value, WorkloadDeclaration& out, bool& tp_given,
               const Errors& errors) -> core::Result<void> {
  core::Result<std::int64_t> number = 0;
  if (key == "gpus") {
    auto gpus = read_gpus(value, errors);
    if (!gpus) return core::propagate(gpus);
    out.gpus = std::move(*gpus);
  } else if (key == "model") {
    auto model = read_string(value, key, errors);
    if (!model) return core::propagate(model);
    out.model = std::move(*model);
  } else if (key == "engine" || key == "phase") {
    auto name = read_string(value, key, errors);
    if (!name) return core::propagate(name);
    if (key == "engine") {
      const auto engine = engine_from_string(*name);
      if (!engine) return errors.at(value, "unknown engine '" + *name + "'", "use vllm, sglang or tgi");
      out.engine = *engine;
    } else {
      const auto phase = core::phase_from_string(*name);
      if (!phase) return errors.at(value, "unknown phase '" + *name + "'", "use prefill, decode or train");
      out.shape.phase = *phase;
    }
  } else if (key == "tp") {
    if (!(number = read_int(value, key, 1, kMaxParallel, errors))) return core::propagate(number);
    out.tensor_parallel = static_cast<int>(*number);
    tp_given = true;
  } else if (key == "batch") {
    if (!(number = read_int(value, key, 1, kMaxShapeBatch, errors))) return core::propagate(number);
    out.shape.batch = *number;
  } else if (key == "context" || key == "prompt") {
    if (!(number = read_int(value, key, 0, kMaxShapeTokens, errors))) return core::propagate(number);
    (key == "context" ? out.shape.context : out.shape.prompt) = *number;
  } else {
    return errors.at(value, "unknown workload key '" + std::string(key) + "'", "known keys: " + known_keys());
  }
  return core::ok();
}

auto parse_entry(const toml::node& node, const Errors& errors) -> core::Result<WorkloadDeclaration> {
  const toml::table* table = node.as_table();
  if (table == nullptr) return errors.at(node, "each 'workload' entry must be a table", "write [[workload]]");
  WorkloadDeclaration out;
  out.line = static_cast<int>(node.source().begin.line);
  bool tp_given = false;
  for (const auto& [key, value] : *table) {
    if (auto applied = apply_key(key.str(), value, out, tp_given, errors); !applied) {
      return core::propagate(applied);
    }
  }
  if (out.gpus.empty()) return errors.at_line(out.line, "workload entry has no 'gpus'", "e.g. gpus = [0]");
  if (out.model.empty()) {
    return errors.at_line(out.line, "workload entry has no 'model'",
                          "give a local path or a Hugging Face id");
  }
  if (out.shape.phase != Phase::Decode && out.shape.prompt < 1) {
    return errors.at_line(out.line,
                          "a " + std::string(to_string(out.shape.phase)) + " workload needs prompt >= 1");
  }
  if (!tp_given) out.tensor_parallel = static_cast<int>(out.gpus.size());
  return out;
}

}  // namespace

auto parse_workload_declarations(std::string_view toml_text, std::string_view source_name)
    -> core::Result<std::vector<WorkloadDeclaration>> {
  const Errors errors(source_name);
  toml::table root;
  try {
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& error) {
    return errors.at_line(static_cast<int>(error.source().begin.line), std::string(error.description()));
  }
  std::vector<WorkloadDeclaration> out;
  const toml::node* entries = root.get("workload");
  if (entries == nullptr) return out;
  const toml::array* array = entries->as_array();
  if (array == nullptr)
    return errors.at(*entries, "'workload' must be an array of tables", "write [[workload]]");
  for (const toml::node& node : *array) {
    auto entry = parse_entry(node, errors);
    if (!entry) return core::propagate(entry);
    for (const WorkloadDeclaration& earlier : out) {
      for (const std::uint32_t gpu : entry->gpus) {
        if (std::binary_search(earlier.gpus.begin(), earlier.gpus.end(), gpu)) {
          return errors.at_line(entry->line, "GPU " + std::to_string(gpu) +
                                                 " is already declared by the entry on line " +
                                                 std::to_string(earlier.line));
        }
      }
    }
    out.push_back(std::move(*entry));
  }
  return out;
}

auto find_declaration(const std::vector<WorkloadDeclaration>& declarations, std::uint32_t gpu_index)
    -> const WorkloadDeclaration* {
  for (const WorkloadDeclaration& d : declarations) {
    if (std::binary_search(d.gpus.begin(), d.gpus.end(), gpu_index)) return &d;
  }
  return nullptr;
}

}  // namespace solscope::workload
