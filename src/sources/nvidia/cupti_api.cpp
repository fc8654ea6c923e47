#include "sources/nvidia/detail/cupti_api.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <system_error>
#include <tuple>
#include <utility>

#include "sources/nvidia/dynamic_library.hpp"

namespace solscope::nvidia {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kInstallHint =
    "install the CUPTI library of CUDA >= 12.6 (the toolkit's cuda-cupti package, or `pip install "
    "nvidia-cuda-cupti` for CUDA 13 / nvidia-cuda-cupti-cu12 for 12.x), or set SOLSCOPE_CUPTI_DIR to the "
    "folder that holds libcupti.so.13";

constexpr std::array<std::string_view, 2> kSonames{"libcupti.so.13", "libcupti.so.12"};

// libcupti is closed before libnvperf_host (members are destroyed in reverse order).
struct Libraries {
  DynamicLibrary nvperf_host;
  DynamicLibrary cupti;
};

// Appends <dir>/libcupti.so.{13,12} for each that exists.
void add_dir(std::vector<std::string>& out, const fs::path& dir) {
  for (std::string_view soname : kSonames) {
    std::error_code ec;
    const fs::path file = dir / soname;
    if (fs::exists(file, ec)) out.push_back(file.string());
  }
}

// Numeric version of a "cuda-12.6" folder name, for newest-first ordering; {} when not of that form.
auto cuda_dir_version(const std::string& name) -> std::vector<int> {
  std::vector<int> parts;
  if (name.rfind("cuda-", 0) != 0) return parts;
  int value = 0;
  bool digits = false;
  for (char c : name.substr(5)) {
    if (c >= '0' && c <= '9') {
      value = value * 10 + (c - '0');
      digits = true;
    } else if (c == '.' && digits) {
      parts.push_back(value);
      value = 0;
      digits = false;
    } else {
      return {};
    }
  }
  if (digits) parts.push_back(value);
  return parts;
}

// Sub-directories of `parent` whose name starts with `prefix`, sorted by name.
auto subdirs(const fs::path& parent, std::string_view prefix) -> std::vector<fs::path> {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0 && it->is_directory(ec)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void add_versioned_cuda_dirs(std::vector<std::string>& out) {
  std::vector<std::pair<std::vector<int>, fs::path>> dirs;
  for (const fs::path& dir : subdirs("/usr/local", "cuda-")) {
    auto version = cuda_dir_version(dir.filename().string());
    if (!version.empty()) dirs.emplace_back(std::move(version), dir);
  }
  std::sort(dirs.begin(), dirs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [version, dir] : dirs) add_dir(out, dir / "lib64");
}

void add_pip_wheel_dirs(std::vector<std::string>& out, const CuptiSearch& search) {
  std::vector<fs::path> roots = subdirs("/usr/lib", "python3");
  for (const fs::path& p : subdirs("/usr/local/lib", "python3")) roots.push_back(p);
  if (const std::string& home = search.home; !home.empty()) {
    for (const fs::path& p : subdirs(fs::path(home) / ".local/lib", "python3")) roots.push_back(p);
  }
  if (const std::string& venv = search.virtual_env; !venv.empty()) {
    for (const fs::path& p : subdirs(fs::path(venv) / "lib", "python3")) roots.push_back(p);
  }
  for (const fs::path& root : roots) {
    for (const char* site : {"site-packages", "dist-packages"}) {
      add_dir(out, root / site / "nvidia/cuda_cupti/lib");
      add_dir(out, root / site / "nvidia/cu13/lib");
    }
  }
}

// One required CUPTI symbol: its exported name and the CuptiRequiredFns member that holds it.
template <class Fn>
struct RequiredSymbol {
  const char* name;
  Fn CuptiRequiredFns::*member;
};
// Deduction guide: clang before 17 has no class template argument deduction for aggregates (C++20 P1816).
template <class Fn>
RequiredSymbol(const char*, Fn CuptiRequiredFns::*) -> RequiredSymbol<Fn>;

// Every required symbol, named once; resolve_all() fills them and validate_cupti() checks them (doc section
// 6).
constexpr std::tuple kRequiredSymbols{
    RequiredSymbol{"cuptiGetVersion", &CuptiRequiredFns::get_version},
    RequiredSymbol{"cuptiGetResultString", &CuptiRequiredFns::get_result_string},
    RequiredSymbol{"cuptiProfilerInitialize", &CuptiRequiredFns::profiler_initialize},
    RequiredSymbol{"cuptiProfilerDeInitialize", &CuptiRequiredFns::profiler_deinitialize},
    RequiredSymbol{"cuptiProfilerDeviceSupported", &CuptiRequiredFns::profiler_device_supported},
    RequiredSymbol{"cuptiDeviceGetChipName", &CuptiRequiredFns::device_get_chip_name},
    RequiredSymbol{"cuptiPmSamplingGetCounterAvailability", &CuptiRequiredFns::pm_get_counter_availability},
    RequiredSymbol{"cuptiPmSamplingEnable", &CuptiRequiredFns::pm_enable},
    RequiredSymbol{"cuptiPmSamplingSetConfig", &CuptiRequiredFns::pm_set_config},
    RequiredSymbol{"cuptiPmSamplingGetCounterDataSize", &CuptiRequiredFns::pm_get_counter_data_size},
    RequiredSymbol{"cuptiPmSamplingCounterDataImageInitialize",
                   &CuptiRequiredFns::pm_counter_data_image_initialize},
    RequiredSymbol{"cuptiPmSamplingStart", &CuptiRequiredFns::pm_start},
    RequiredSymbol{"cuptiPmSamplingStop", &CuptiRequiredFns::pm_stop},
    RequiredSymbol{"cuptiPmSamplingDecodeData", &CuptiRequiredFns::pm_decode_data},
    RequiredSymbol{"cuptiPmSamplingGetCounterDataInfo", &CuptiRequiredFns::pm_get_counter_data_info},
    RequiredSymbol{"cuptiPmSamplingCounterDataGetSampleInfo",
                   &CuptiRequiredFns::pm_counter_data_get_sample_info},
    RequiredSymbol{"cuptiPmSamplingDisable", &CuptiRequiredFns::pm_disable},
    RequiredSymbol{"cuptiProfilerHostInitialize", &CuptiRequiredFns::host_initialize},
    RequiredSymbol{"cuptiProfilerHostDeinitialize", &CuptiRequiredFns::host_deinitialize},
    RequiredSymbol{"cuptiProfilerHostConfigAddMetrics", &CuptiRequiredFns::host_config_add_metrics},
    RequiredSymbol{"cuptiProfilerHostGetConfigImageSize", &CuptiRequiredFns::host_get_config_image_size},
    RequiredSymbol{"cuptiProfilerHostGetConfigImage", &CuptiRequiredFns::host_get_config_image},
    RequiredSymbol{"cuptiProfilerHostGetNumOfPasses", &CuptiRequiredFns::host_get_num_of_passes},
    RequiredSymbol{"cuptiProfilerHostEvaluateToGpuValues", &CuptiRequiredFns::host_evaluate_to_gpu_values},
};

// Calls visit(name, member) for each entry of kRequiredSymbols, in table order.
template <class Visit>
void for_each_required(Visit&& visit) {
  std::apply([&visit](const auto&... symbol) { (visit(symbol.name, symbol.member), ...); }, kRequiredSymbols);
}

auto resolve_all(const DynamicLibrary& lib, CuptiApi& api) -> std::string {
  std::string missing;
  CuptiRequiredFns& required = api;
  for_each_required([&](const char* name, auto member) {
    if (!lib.resolve(required.*member, name)) missing += missing.empty() ? name : std::string(", ") + name;
  });
  lib.resolve(api.get_error_message, "cuptiGetErrorMessage");
  lib.resolve(api.host_get_metric_properties, "cuptiProfilerHostGetMetricProperties");
  lib.resolve(api.host_get_base_metrics, "cuptiProfilerHostGetBaseMetrics");
  lib.resolve(api.host_get_sub_metrics, "cuptiProfilerHostGetSubMetrics");
  lib.resolve(api.host_get_supported_chips, "cuptiProfilerHostGetSupportedChips");
  lib.resolve(api.host_get_max_num_hardware_metrics_per_pass,
              "cuptiProfilerHostGetMaxNumHardwareMetricsPerPass");
  api.host_get_single_pass_sets = lib.symbol("cuptiProfilerHostGetSinglePassSets");
  return missing;
}

// Opens libnvperf_host.so from libcupti's own folder with RTLD_GLOBAL, so that libcupti's later dlopen by
// bare soname finds it (doc section 6). Not fatal when absent: libcupti then searches the loader path itself.
auto preload_nvperf_host(const CuptiApi& api) -> DynamicLibrary {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(api.get_version), &info) == 0 || info.dli_fname == nullptr) return {};
  const fs::path file = fs::path(info.dli_fname).parent_path() / "libnvperf_host.so";
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  const std::array<std::string, 1> candidates{file.string()};
  auto lib = DynamicLibrary::open_first(candidates, "", /*global=*/true);
  return lib ? std::move(*lib) : DynamicLibrary{};
}

auto version_text(std::uint32_t version) -> std::string {
  return std::to_string(version) + (version < kMinCuptiVersion ? " (older than CUDA 12.6)" : "");
}

}  // namespace

auto validate_cupti(CuptiApi& api) -> core::Result<void> {
  const CuptiRequiredFns& required = api;
  bool complete = true;
  for_each_required([&](const char*, auto member) { complete = complete && required.*member != nullptr; });
  if (!complete) {
    return core::fail(core::ErrorCode::NotFound,
                      "libcupti " + (api.library_path.empty() ? std::string() : api.library_path + " ") +
                          "lacks PM sampling functions",
                      std::string(kInstallHint));
  }
  std::uint32_t version = 0;
  if (api.get_version(&version) != CUPTI_SUCCESS) {
    return core::fail(core::ErrorCode::Unavailable, "cuptiGetVersion failed in " + api.library_path,
                      std::string(kInstallHint));
  }
  api.version = version;
  if (version < kMinCuptiVersion) {
    return core::fail(core::ErrorCode::Unimplemented,
                      "libcupti " + (api.library_path.empty() ? std::string() : api.library_path + " ") +
                          "has CUPTI API version " + version_text(version) +
                          ": PM sampling needs version >= 24",
                      std::string(kInstallHint));
  }
  return core::ok();
}

auto cupti_candidates(const CuptiSearch& search) -> std::vector<std::string> {
  std::vector<std::string> out;
  if (const std::string& dir = search.override_dir; !dir.empty()) add_dir(out, dir);
  for (std::string_view soname : kSonames) out.emplace_back(soname);
  if (const std::string& home = search.toolkit_home; !home.empty()) {
    add_dir(out, fs::path(home) / "lib64");
    add_dir(out, fs::path(home) / "extras/CUPTI/lib64");
  }
  add_dir(out, "/usr/local/cuda/lib64");
  add_dir(out, "/usr/local/cuda/extras/CUPTI/lib64");
  add_versioned_cuda_dirs(out);
  add_pip_wheel_dirs(out, search);
  return out;
}

auto load_cupti(const CuptiSearch& search) -> core::Result<CuptiApi> {
  std::string tried;
  core::Error too_old;
  std::vector<std::string> seen;
  for (const std::string& candidate : cupti_candidates(search)) {
    std::error_code ec;
    const std::string canonical =
        candidate.find('/') == std::string::npos ? candidate : fs::weakly_canonical(candidate, ec).string();
    if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) continue;
    seen.push_back(canonical);
    const std::array<std::string, 1> one{candidate};
    auto lib = DynamicLibrary::open_first(one, "");
    if (!lib) {
      tried += (tried.empty() ? "" : "; ") + lib.error().message;
      continue;
    }
    CuptiApi api;
    api.library_path = candidate;
    if (const std::string missing = resolve_all(*lib, api); !missing.empty()) {
      tried += (tried.empty() ? "" : "; ") + candidate + " lacks " + missing;
      continue;
    }
    if (auto valid = validate_cupti(api); !valid) {
      if (valid.error().code == core::ErrorCode::Unimplemented) too_old = valid.error();
      tried += (tried.empty() ? "" : "; ") + valid.error().message;
      continue;
    }
    auto libs = std::make_shared<Libraries>();
    libs->nvperf_host = preload_nvperf_host(api);
    libs->cupti = std::move(*lib);
    api.libraries = std::move(libs);
    return api;
  }
  if (!too_old.message.empty()) return core::fail(too_old);
  return core::fail(core::ErrorCode::NotFound,
                    "cannot load libcupti, the CUDA profiling library (" + tried + ")",
                    std::string(kInstallHint));
}

auto cupti_result_name(const CuptiApi& api, CUptiResult result) -> std::string {
  const char* name = nullptr;
  std::string text;
  if (api.get_result_string != nullptr && api.get_result_string(result, &name) == CUPTI_SUCCESS &&
      name != nullptr && std::string_view(name) != "<unknown>") {
    text = std::string(name) + " (" + std::to_string(static_cast<int>(result)) + ")";
  } else {
    text = "CUPTI error " + std::to_string(static_cast<int>(result));
  }
  return text;
}

}  // namespace solscope::nvidia
