#include "core/sol_terms.hpp"

#include <array>

namespace solscope::core {
namespace {

constexpr std::array<std::string_view, kPipeCount> kPipeNames{
    "tensor", "fma", "fma_heavy", "fma_lite", "alu", "alu_lite", "fp64", "fp16", "issue", "lsu"};
constexpr std::array<std::string_view, kMemPathCount> kPathNames{"dram", "l2", "l1"};
constexpr std::array<std::string_view, 5> kBoundNames{"unknown", "idle", "compute", "memory", "latency"};
constexpr std::array<std::string_view, 7> kSourceNames{"none",   "pm_sampling", "gpm", "nvml",
                                                       "replay", "dcgm",        "nsys"};

template <class Enum, std::size_t N>
auto from_names(const std::array<std::string_view, N>& names, std::string_view name) -> std::optional<Enum> {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

template <std::size_t N>
auto name_at(const std::array<std::string_view, N>& names, std::size_t i) -> std::string_view {
  return i < N ? names[i] : std::string_view{"unknown"};
}

}  // namespace

auto to_string(Pipe pipe) -> std::string_view {
  return name_at(kPipeNames, static_cast<std::size_t>(pipe));
}
auto to_string(MemPath path) -> std::string_view {
  return name_at(kPathNames, static_cast<std::size_t>(path));
}
auto to_string(Bound bound) -> std::string_view {
  return name_at(kBoundNames, static_cast<std::size_t>(bound));
}
auto to_string(SourceKind source) -> std::string_view {
  return name_at(kSourceNames, static_cast<std::size_t>(source));
}

auto pipe_from_string(std::string_view name) -> std::optional<Pipe> {
  return from_names<Pipe>(kPipeNames, name);
}
auto mem_path_from_string(std::string_view name) -> std::optional<MemPath> {
  return from_names<MemPath>(kPathNames, name);
}
auto bound_from_string(std::string_view name) -> std::optional<Bound> {
  return from_names<Bound>(kBoundNames, name);
}
auto source_kind_from_string(std::string_view name) -> std::optional<SourceKind> {
  return from_names<SourceKind>(kSourceNames, name);
}

}  // namespace solscope::core
