// The phase file of `solscope report --phases` (declared_phases.hpp): strict reading, every wrong key named.
#include <array>
#include <cmath>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "report/declared_phases.hpp"

namespace solscope::report {
namespace {

using nlohmann::json;

constexpr double kMaxLimit = 1000.0;  // percentages and tolerances above this are typing errors
constexpr std::array<std::string_view, 4> kFigureNames = {"compute_sol_pct", "memory_sol_pct", "gpu_util_pct",
                                                          "sm_active_pct"};

auto bad(const std::string& where, const std::string& what) -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument, "phase file: " + where + ": " + what,
                    "the phase file format is in docs/report.md (\"Declared phases\")");
}

auto read_limit(const json& value, const std::string& where) -> core::Result<double> {
  if (!value.is_number()) return bad(where, "is not a number");
  const double v = value.get<double>();
  if (!std::isfinite(v) || v < 0.0 || v > kMaxLimit) return bad(where, "must be 0 to 1000");
  return v;
}

auto read_time(const json& phase, std::string_view key, const std::string& where)
    -> core::Result<std::int64_t> {
  const auto it = phase.find(key);
  if (it == phase.end() || !it->is_number_integer()) {
    return bad(where, std::string(key) + " must be an integer (CLOCK_REALTIME ns)");
  }
  return it->get<std::int64_t>();
}

auto read_expect_key(const std::string& key, const json& value, DeclaredPhase& phase,
                     const std::string& where) -> core::Result<void> {
  const std::string at = where + " expect." + key;
  const std::string text = value.is_string() ? value.get<std::string>() : std::string();
  if (key == "bound") {
    phase.bound = core::bound_from_string(text);
    return phase.bound ? core::ok() : bad(at, "not a bound class (idle, compute, memory, latency)");
  }
  if (key == "compute_pipe") {
    phase.compute_pipe = core::pipe_from_string(text);
    return phase.compute_pipe ? core::ok() : bad(at, "not a compute pipe (tensor, fma, alu, ...)");
  }
  if (key == "memory_path") {
    phase.memory_path = core::mem_path_from_string(text);
    return phase.memory_path ? core::ok() : bad(at, "not a memory path (dram, l2, l1)");
  }
  for (std::size_t i = 0; i < kFigureNames.size(); ++i) {
    for (const bool is_min : {true, false}) {
      if (key != std::string(is_min ? "min_" : "max_") + std::string(kFigureNames[i])) continue;
      auto limit = read_limit(value, at);
      if (!limit) return core::propagate(std::move(limit));
      phase.limits.push_back({static_cast<PhaseFigure>(i), is_min, *limit});
      return core::ok();
    }
  }
  return bad(at, "unknown key");
}

auto read_achieved(const json& achieved, DeclaredPhase& phase, const std::string& where)
    -> core::Result<void> {
  if (!achieved.is_object()) return bad(where + " achieved", "is not an object");
  const std::pair<std::string_view, double*> rates[] = {
      {"flop_per_s", &phase.achieved.flop_per_s}, {"dram_bytes_per_s", &phase.achieved.dram_bytes_per_s}};
  for (const auto& [key, target] : rates) {
    const auto it = achieved.find(key);
    if (it == achieved.end() || it->is_null()) continue;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0.0) {
      return bad(where + " achieved." + std::string(key), "must be a positive number");
    }
    *target = it->get<double>();
  }
  if (const auto it = achieved.find("tolerance_pct"); it != achieved.end()) {
    auto tolerance = read_limit(*it, where + " achieved.tolerance_pct");
    if (!tolerance) return core::propagate(std::move(tolerance));
    phase.achieved.tolerance_pct = *tolerance;
  }
  return core::ok();  // other keys (weight bytes/s, launches) are the workload's own notes
}

auto read_phase(const json& item, std::size_t index) -> core::Result<DeclaredPhase> {
  std::string where = "phase " + std::to_string(index + 1);
  if (!item.is_object()) return bad(where, "is not an object");
  DeclaredPhase phase;
  const auto name = item.find("name");
  if (name == item.end() || !name->is_string() || name->get<std::string>().empty()) {
    return bad(where, "has no name");
  }
  phase.name = name->get<std::string>();
  where += " (" + phase.name + ")";
  auto start = read_time(item, "start_ns", where);
  if (!start) return core::propagate(std::move(start));
  auto end = read_time(item, "end_ns", where);
  if (!end) return core::propagate(std::move(end));
  if (*end <= *start) return bad(where, "end_ns is not after start_ns");
  phase.start_ns = *start;
  phase.end_ns = *end;
  if (const auto expect = item.find("expect"); expect != item.end()) {
    if (!expect->is_object()) return bad(where + " expect", "is not an object");
    for (const auto& [key, value] : expect->items()) {
      if (auto read = read_expect_key(key, value, phase, where); !read)
        return core::propagate(std::move(read));
    }
  }
  if (const auto achieved = item.find("achieved"); achieved != item.end()) {
    if (auto read = read_achieved(*achieved, phase, where); !read) return core::propagate(std::move(read));
  }
  return phase;
}

}  // namespace

auto to_string(PhaseFigure figure) -> std::string_view {
  const auto i = static_cast<std::size_t>(figure);
  return i < kFigureNames.size() ? kFigureNames[i] : std::string_view("unknown");
}

auto parse_declared_phases(std::string_view json_text) -> core::Result<DeclaredPhases> {
  const json root = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return bad("the file", "is not JSON");
  if (!root.is_object()) return bad("the file", "is not a JSON object");
  const auto format = root.find("format");
  if (format == root.end() || !format->is_string() || format->get<std::string>() != kPhaseFileFormat) {
    return bad("format", "must be \"" + std::string(kPhaseFileFormat) + "\"");
  }
  DeclaredPhases declared;
  if (const auto gpu = root.find("gpu"); gpu != root.end() && gpu->is_object()) {
    if (const auto uuid = gpu->find("uuid"); uuid != gpu->end() && uuid->is_string()) {
      declared.gpu_uuid = uuid->get<std::string>();
    }
    if (const auto name = gpu->find("name"); name != gpu->end() && name->is_string()) {
      declared.gpu_name = name->get<std::string>();
    }
  }
  const auto phases = root.find("phases");
  if (phases == root.end() || !phases->is_array() || phases->empty()) {
    return bad("phases", "must be a non-empty array");
  }
  if (phases->size() > kMaxDeclaredPhases) {
    return bad("phases", "more than " + std::to_string(kMaxDeclaredPhases) + " phases");
  }
  for (std::size_t i = 0; i < phases->size(); ++i) {
    auto phase = read_phase((*phases)[i], i);
    if (!phase) return core::propagate(std::move(phase));
    declared.phases.push_back(std::move(*phase));
  }
  return declared;
}

}  // namespace solscope::report
