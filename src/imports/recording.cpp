#include "imports/detail/recording.hpp"

#include "core/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>

namespace solscope::imports {
namespace {

constexpr std::array kFormatNames{
    std::pair{ImportFormat::DcgmExporter, std::string_view("dcgm-exporter")},
    std::pair{ImportFormat::PrometheusJson, std::string_view("prometheus-json")},
    std::pair{ImportFormat::DcgmiDmon, std::string_view("dcgmi-dmon")},
    std::pair{ImportFormat::NvidiaSmiDmon, std::string_view("nvidia-smi-dmon")},
    std::pair{ImportFormat::NsysSqlite, std::string_view("nsys-sqlite")}};

}  // namespace

auto to_string(ImportFormat format) -> std::string_view {
  for (const auto& [f, name] : kFormatNames) {
    if (f == format) return name;
  }
  return "unknown";
}

auto import_format_from_string(std::string_view name) -> std::optional<ImportFormat> {
  for (const auto& [f, n] : kFormatNames) {
    if (n == name) return f;
  }
  return std::nullopt;
}

auto import_format_names() -> std::string {
  std::string out;
  for (const auto& [f, name] : kFormatNames) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

void span_from_previous(std::vector<core::RawSample>& samples, std::int64_t single_ns) {
  // First pass: each device's first interval (gap between its first two samples).
  std::unordered_map<std::uint32_t, std::int64_t> first_end;
  std::unordered_map<std::uint32_t, std::int64_t> first_gap;
  for (const core::RawSample& s : samples) {
    auto [it, fresh] = first_end.try_emplace(s.device_index, s.t_end_ns);
    if (!fresh && !first_gap.contains(s.device_index) && s.t_end_ns > it->second) {
      first_gap[s.device_index] = s.t_end_ns - it->second;
    }
  }
  std::unordered_map<std::uint32_t, std::int64_t> previous_end;
  std::vector<core::RawSample> kept;
  kept.reserve(samples.size());
  for (core::RawSample& s : samples) {
    auto prev = previous_end.find(s.device_index);
    if (prev == previous_end.end()) {
      const auto gap = first_gap.find(s.device_index);
      s.t_start_ns = s.t_end_ns - (gap == first_gap.end() ? single_ns : gap->second);
    } else {
      s.t_start_ns = prev->second;
    }
    if (s.t_end_ns <= s.t_start_ns) continue;
    previous_end[s.device_index] = s.t_end_ns;
    kept.push_back(s);
  }
  samples = std::move(kept);
}

auto declares_synthetic(std::string_view text) -> bool {
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos) {
      line = line.substr(first);
      if (line.front() != '#') return false;
      line.remove_prefix(1);
      const std::size_t word = line.find_first_not_of(" \t");
      return word != std::string_view::npos &&
             core::to_lower_ascii(line.substr(word)).starts_with("synthetic");
    }
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
  return false;
}

auto at_line(std::size_t line, std::string_view what) -> std::string {
  return "line " + std::to_string(line) + ": " + std::string(what);
}

}  // namespace solscope::imports
