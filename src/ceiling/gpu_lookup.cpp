// GPU name lookup with "did you mean" suggestions (docs/design/style.md section 2).
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "ceiling/gpu_spec.hpp"
#include "core/text.hpp"

namespace solscope::ceiling {
namespace {

/// Up to three GPU ids whose names are closest to `key`, closest first.
auto suggestions(const GpuDatabase& db, const std::string& key) -> std::vector<std::string_view> {
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  std::vector<std::pair<std::size_t, std::string_view>> scored;
  for (const GpuSpec& gpu : db.gpus) {
    const std::string id_key = normalize_gpu_name(gpu.id);
    std::size_t best = core::edit_distance(key, id_key);
    for (const std::string& alias : gpu.aliases) {
      best = std::min(best, core::edit_distance(key, normalize_gpu_name(alias)));
    }
    // A typed prefix such as "h100" is a strong hint even when the full names are long.
    if (!key.empty() && id_key.rfind(key, 0) == 0) best = 0;
    if (best <= limit) scored.emplace_back(best, gpu.id);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string_view> out;
  for (const auto& [distance, id] : scored) {
    if (out.size() == 3) break;
    out.push_back(id);
  }
  return out;
}

auto join(const std::vector<std::string_view>& names, std::string_view last_separator) -> std::string {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += (i + 1 == names.size()) ? std::string(last_separator) : std::string(", ");
    out += names[i];
  }
  return out;
}

}  // namespace

auto normalize_gpu_name(std::string_view name) -> std::string {
  std::string key;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0) key += static_cast<char>(std::tolower(u));
  }
  for (std::string_view vendor : {"nvidia", "amd"}) {
    if (key.size() > vendor.size() && key.rfind(vendor, 0) == 0) key.erase(0, vendor.size());
  }
  return key;
}

auto gpu_names(const GpuDatabase& db) -> std::vector<std::string_view> {
  std::vector<std::string_view> names;
  names.reserve(db.gpus.size());
  for (const GpuSpec& gpu : db.gpus) names.push_back(gpu.id);
  return names;
}

auto find_gpu(const GpuDatabase& db, std::string_view name) -> core::Result<const GpuSpec*> {
  const std::string key = normalize_gpu_name(name);
  for (const GpuSpec& gpu : db.gpus) {
    if (normalize_gpu_name(gpu.id) == key) return &gpu;
    for (const std::string& alias : gpu.aliases) {
      if (normalize_gpu_name(alias) == key) return &gpu;
    }
  }
  const auto close = suggestions(db, key);
  std::string hint;
  if (!close.empty()) hint = "did you mean " + join(close, " or ") + "? ";
  hint += "known GPUs: " + join(gpu_names(db), ", ") + " (add one with --gpu-specs FILE)";
  return core::fail(core::ErrorCode::NotFound, "unknown GPU '" + std::string(name) + "'", std::move(hint));
}

}  // namespace solscope::ceiling
