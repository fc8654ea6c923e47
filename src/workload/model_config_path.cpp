#include "workload/model_config_path.hpp"

#include <algorithm>
#include <cctype>
#include <system_error>

#include "workload/detail/file_read.hpp"

namespace solscope::workload {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxRepoPart = 96;  // huggingface_hub's repo-id length limit per part
constexpr std::size_t kMaxRefChars = 128;

auto valid_repo_part(std::string_view part) -> bool {
  if (part.empty() || part.size() > kMaxRepoPart || part.front() == '.' || part.front() == '-') return false;
  return std::all_of(part.begin(), part.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
  });
}

/// `path` as seen below `root` (root empty: unchanged).
auto below(const fs::path& root, const fs::path& path) -> fs::path {
  if (root.empty()) return path;
  return root / path.relative_path();
}

/// config.json at a model path: the directory's file, or the path itself when it is a config file.
auto config_at(const fs::path& path) -> std::optional<fs::path> {
  if (detail::is_directory(path) && detail::is_regular_file(path / "config.json"))
    return path / "config.json";
  if (path.filename() == "config.json" && detail::is_regular_file(path)) return path;
  return std::nullopt;
}

/// The snapshot named by refs/main, or nullopt.
auto snapshot_of_main(const fs::path& repo) -> std::optional<fs::path> {
  auto ref = detail::read_file(repo / "refs" / "main", kMaxRefChars + 2);
  if (!ref) return std::nullopt;
  const std::string_view hash = detail::trim(*ref);
  const bool valid = !hash.empty() && hash.size() <= kMaxRefChars &&
                     std::all_of(hash.begin(), hash.end(),
                                 [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
  if (!valid) return std::nullopt;
  const fs::path config = repo / "snapshots" / std::string(hash) / "config.json";
  if (!detail::is_regular_file(config)) return std::nullopt;
  return config;
}

/// The most recently modified snapshot config.json, or nullopt.
auto newest_snapshot(const fs::path& repo) -> std::optional<fs::path> {
  std::optional<fs::path> best;
  fs::file_time_type best_time{};
  std::error_code ec;
  fs::directory_iterator it(repo / "snapshots", ec);
  if (ec) return std::nullopt;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::path config = it->path() / "config.json";
    if (!detail::is_regular_file(config)) continue;
    std::error_code time_ec;
    const fs::file_time_type time = fs::last_write_time(config, time_ec);
    if (time_ec) continue;
    if (!best || time > best_time || (time == best_time && config > *best)) {
      best = config;
      best_time = time;
    }
  }
  return best;
}

auto from_hub(const fs::path& hub, std::string_view repo_id) -> std::optional<fs::path> {
  std::string folder = "models--" + std::string(repo_id);
  for (auto at = folder.find('/'); at != std::string::npos; at = folder.find('/'))
    folder.replace(at, 1, "--");
  const fs::path repo = hub / folder;
  if (!detail::is_directory(repo)) return std::nullopt;
  if (auto config = snapshot_of_main(repo)) return config;
  return newest_snapshot(repo);
}

}  // namespace

auto hf_hub_dirs(const EnvLookup& env) -> std::vector<fs::path> {
  std::vector<fs::path> out;
  auto add = [&out](fs::path dir) {
    if (std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(std::move(dir));
  };
  auto var = [&env](std::string_view name) -> std::string {
    if (!env) return {};
    return env(name).value_or("");
  };
  if (const std::string v = var("HF_HUB_CACHE"); !v.empty()) add(fs::path(v));
  if (const std::string v = var("HF_HOME"); !v.empty()) add(fs::path(v) / "hub");
  if (const std::string v = var("XDG_CACHE_HOME"); !v.empty()) add(fs::path(v) / "huggingface" / "hub");
  if (const std::string v = var("HOME"); !v.empty()) add(fs::path(v) / ".cache" / "huggingface" / "hub");
  return out;
}

auto is_hf_repo_id(std::string_view model) -> bool {
  if (model.find("..") != std::string_view::npos) return false;
  const auto slash = model.find('/');
  if (slash == std::string_view::npos) return valid_repo_part(model);
  return valid_repo_part(model.substr(0, slash)) && valid_repo_part(model.substr(slash + 1));
}

auto resolve_model_config(std::string_view model, const ConfigSearch& search) -> core::Result<fs::path> {
  if (model.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "no model name to look up",
                      "name the model in the workload declaration");
  }
  std::vector<std::string> looked;
  const fs::path as_path(model);
  std::vector<fs::path> candidates;
  if (as_path.is_absolute()) {
    candidates.push_back(below(search.fs_root, as_path));
    if (!search.fs_root.empty()) candidates.push_back(as_path);
  } else if (!search.cwd.empty()) {
    candidates.push_back(search.cwd / as_path);
  }
  for (const fs::path& candidate : candidates) {
    if (auto config = config_at(candidate)) return *config;
    looked.push_back(candidate.string());
  }
  if (!as_path.is_absolute() && is_hf_repo_id(model)) {
    for (const fs::path& hub : search.hub_dirs) {
      std::vector<fs::path> hubs{hub};
      if (!search.fs_root.empty() && hub.is_absolute()) hubs.push_back(below(search.fs_root, hub));
      for (const fs::path& dir : hubs) {
        if (auto config = from_hub(dir, model)) return *config;
        looked.push_back(dir.string());
      }
    }
  }
  std::string where;
  for (const std::string& place : looked) where += (where.empty() ? "" : ", ") + place;
  return core::fail(core::ErrorCode::NotFound,
                    "no config.json for model '" + std::string(model) + "'" +
                        (where.empty() ? std::string{} : " (looked in " + where + ")"),
                    is_hf_repo_id(model)
                        ? "fetch it once with `huggingface-cli download " + std::string(model) +
                              " config.json`, or set HF_HOME to the cache the engine uses"
                        : "check that the model directory is readable by solscope");
}

}  // namespace solscope::workload
