#include "sources/nvidia/detail/pm_config.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "core/metric_catalog.hpp"
#include "sources/nvidia/detail/cupti_api.hpp"

namespace solscope::nvidia {
namespace {

// A profiler host object; deinitialized on destruction. `chip` and `availability` must outlive it.
class HostObject {
 public:
  HostObject() = default;
  HostObject(HostObject&& other) noexcept
      : api_(std::exchange(other.api_, nullptr)), object_(std::exchange(other.object_, nullptr)) {}
  auto operator=(HostObject&& other) noexcept -> HostObject& {
    if (this != &other) {
      reset();
      api_ = std::exchange(other.api_, nullptr);
      object_ = std::exchange(other.object_, nullptr);
    }
    return *this;
  }
  HostObject(const HostObject&) = delete;
  auto operator=(const HostObject&) -> HostObject& = delete;
  ~HostObject() { reset(); }

  static auto create(const CuptiApi& api, const std::string& chip, std::span<const std::uint8_t> availability)
      -> core::Result<HostObject> {
    CUpti_Profiler_Host_Initialize_Params p{};
    p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    p.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    const CUptiResult rc = api.host_initialize(&p);
    if (rc == CUPTI_ERROR_INVALID_CHIP_NAME || rc == CUPTI_ERROR_NOT_SUPPORTED) {
      return core::fail(
          core::ErrorCode::Unimplemented,
          "libcupti " + std::to_string(api.version) + " has no PM sampling support for chip " + chip + ": " +
              cupti_result_name(api, rc),
          "install a newer CUPTI (CUDA >= 12.6; newer GPUs need the CUPTI of their CUDA release)");
    }
    if (rc != CUPTI_SUCCESS || p.pHostObject == nullptr) {
      return core::fail(core::ErrorCode::Internal, "cuptiProfilerHostInitialize failed for chip " + chip +
                                                       ": " + cupti_result_name(api, rc));
    }
    HostObject host;
    host.api_ = &api;
    host.object_ = p.pHostObject;
    return host;
  }

  [[nodiscard]] auto get() const -> CUpti_Profiler_Host_Object* { return object_; }

  auto add_metrics(const char** names, std::size_t count) const -> CUptiResult {
    CUpti_Profiler_Host_ConfigAddMetrics_Params p{};
    p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    p.pHostObject = object_;
    p.ppMetricNames = names;
    p.numMetrics = count;
    return api_->host_config_add_metrics(&p);
  }

  // The config image and the number of passes it needs.
  auto config_image(std::vector<std::uint8_t>& image) const -> core::Result<std::size_t> {
    CUpti_Profiler_Host_GetConfigImageSize_Params size{};
    size.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    size.pHostObject = object_;
    if (CUptiResult rc = api_->host_get_config_image_size(&size); rc != CUPTI_SUCCESS) {
      return failure("cuptiProfilerHostGetConfigImageSize", rc);
    }
    image.assign(size.configImageSize, 0);
    CUpti_Profiler_Host_GetConfigImage_Params get{};
    get.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    get.pHostObject = object_;
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    if (CUptiResult rc = api_->host_get_config_image(&get); rc != CUPTI_SUCCESS) {
      return failure("cuptiProfilerHostGetConfigImage", rc);
    }
    CUpti_Profiler_Host_GetNumOfPasses_Params passes{};
    passes.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    passes.configImageSize = image.size();
    passes.pConfigImage = image.data();
    if (CUptiResult rc = api_->host_get_num_of_passes(&passes); rc != CUPTI_SUCCESS) {
      return failure("cuptiProfilerHostGetNumOfPasses", rc);
    }
    return passes.numOfPasses;
  }

 private:
  void reset() {
    if (object_ == nullptr) return;
    CUpti_Profiler_Host_Deinitialize_Params p{};
    p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    p.pHostObject = object_;
    api_->host_deinitialize(&p);  // nothing to do on failure: the object is gone either way
    object_ = nullptr;
  }

  [[nodiscard]] auto failure(const char* call, CUptiResult rc) const -> core::Unexpected<core::Error> {
    return core::fail(core::ErrorCode::Internal,
                      std::string(call) + " failed: " + cupti_result_name(*api_, rc));
  }

  const CuptiApi* api_ = nullptr;
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

auto name_pointers(std::span<const std::string> names) -> std::vector<const char*> {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const auto& name : names) out.push_back(name.c_str());
  return out;
}

auto join(std::span<const std::string> names) -> std::string {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// The largest prefix-greedy subset of `plan` that one host object accepts together with the availability
// image: each name is tried with the names kept before it; the ones that fail go to `dropped`.
auto greedy_subset(const std::shared_ptr<const CuptiApi>& api, const std::string& chip,
                   std::span<const std::uint8_t> availability, const PmCounterPlan& plan,
                   std::vector<std::string>& dropped) -> core::Result<PmCounterPlan> {
  PmCounterPlan kept;
  for (std::size_t i = 0; i < plan.counter_names.size(); ++i) {
    auto host = HostObject::create(*api, chip, availability);
    if (!host) return core::propagate(host);
    kept.counter_names.push_back(plan.counter_names[i]);
    auto names = name_pointers(kept.counter_names);
    if (host->add_metrics(names.data(), names.size()) == CUPTI_SUCCESS) {
      kept.counter_metrics.push_back(plan.counter_metrics[i]);
    } else {
      kept.counter_names.pop_back();
      dropped.push_back(plan.counter_names[i]);
    }
  }
  return kept;
}

// After ConfigAddMetrics failed with `rc`: the plan without the names libcupti rejects, found one by one
// (CUPTI 13.0 answers a bad name with INVALID_PARAMETER (1), older releases with INVALID_METRIC_NAME (17)).
// The rejected names go to `dropped`. Errors when no name is at fault, when dropping is off, or when nothing
// is left.
auto without_rejected(const std::shared_ptr<const CuptiApi>& api, const std::string& chip,
                      std::span<const std::uint8_t> availability, const PmCounterPlan& plan, CUptiResult rc,
                      PmConfigOptions options, std::vector<std::string>& dropped)
    -> core::Result<PmCounterPlan> {
  auto checks = check_counters(api, chip, plan.counter_names, availability);
  if (!checks) return core::propagate(checks);
  PmCounterPlan kept;
  for (std::size_t i = 0; i < checks->size(); ++i) {
    if ((*checks)[i].valid) {
      kept.counter_names.push_back(plan.counter_names[i]);
      kept.counter_metrics.push_back(plan.counter_metrics[i]);
    } else {
      dropped.push_back(plan.counter_names[i]);
    }
  }
  if (dropped.empty()) {
    // Each name is accepted alone but not all together (seen: CUPTI 13.0, GH100 in a VM, UNKNOWN (999)):
    // keep the names that can join the ones kept before them, in catalog order.
    auto joined = greedy_subset(api, chip, availability, plan, dropped);
    if (!joined) return core::propagate(joined);
    kept = std::move(*joined);
  }
  if (dropped.empty()) {
    return core::fail(core::ErrorCode::Internal, "cuptiProfilerHostConfigAddMetrics failed for chip " + chip +
                                                     ": " + cupti_result_name(*api, rc) +
                                                     " (every counter is accepted alone and together)");
  }
  if (!options.drop_invalid_counters || kept.counter_names.empty()) {
    return core::fail(
        kept.counter_names.empty() ? core::ErrorCode::Unimplemented : core::ErrorCode::InvalidArgument,
        "libcupti " + std::to_string(api->version) + " rejects counters for chip " + chip + ": " +
            join(dropped),
        "use the libcupti solscope was tested with (CUDA 13.0) or report the names");
  }
  return kept;
}

}  // namespace

struct PmConfig::Impl {
  std::shared_ptr<const CuptiApi> api;
  std::string chip;
  std::vector<std::uint8_t> availability;
  PmCounterPlan plan;
  std::vector<std::string> dropped;
  std::vector<const char*> name_array;
  std::vector<std::uint8_t> image;
  std::size_t passes = 0;
  HostObject host;  // last: deinitialized before the strings and images it may point to are freed
};

auto pm_counter_plan(core::ChipFamily family) -> PmCounterPlan {
  PmCounterPlan plan;
  for (const core::MetricDef& def : core::metric_catalog()) {
    for (std::string& name : split_counter_names(core::cupti_counter(def, family))) {
      plan.counter_names.push_back(std::move(name));
      plan.counter_metrics.push_back(def.id);
    }
  }
  return plan;
}

auto split_counter_names(std::string_view joined) -> std::vector<std::string> {
  std::vector<std::string> out;
  while (!joined.empty()) {
    const auto plus = joined.find('+');
    const std::string_view part = joined.substr(0, plus);
    if (!part.empty()) out.emplace_back(part);
    if (plus == std::string_view::npos) break;
    joined.remove_prefix(plus + 1);
  }
  return out;
}

void add_counter_values(const PmCounterPlan& plan, std::span<const double> values, core::RawSample& sample) {
  std::array<bool, core::kMetricCount> started{};
  const std::size_t n = std::min(values.size(), plan.counter_metrics.size());
  for (std::size_t i = 0; i < n; ++i) {
    const core::MetricId id = plan.counter_metrics[i];
    const std::size_t slot = core::index_of(id);
    sample.set(id, started[slot] ? sample.value(id) + values[i] : values[i]);
    started[slot] = true;
  }
}

PmConfig::PmConfig(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PmConfig::PmConfig(PmConfig&& other) noexcept = default;
auto PmConfig::operator=(PmConfig&& other) noexcept -> PmConfig& = default;
PmConfig::~PmConfig() = default;

auto PmConfig::for_chip(std::shared_ptr<const CuptiApi> api, std::string chip_name,
                        std::vector<std::uint8_t> counter_availability, PmConfigOptions options)
    -> core::Result<PmConfig> {
  const core::ChipFamily family = core::chip_family(chip_name);
  if (family == core::ChipFamily::Unknown) {
    return core::fail(
        core::ErrorCode::Unimplemented,
        "chip " + chip_name + " has no single-pass PM-sampling counter set in solscope",
        "supported: " + core::known_chip_families_text() + "; other GPUs fall back to NVML figures");
  }
  return create(std::move(api), std::move(chip_name), pm_counter_plan(family),
                std::move(counter_availability), options);
}

auto PmConfig::create(std::shared_ptr<const CuptiApi> api, std::string chip_name, PmCounterPlan plan,
                      std::vector<std::uint8_t> counter_availability, PmConfigOptions options)
    -> core::Result<PmConfig> {
  auto impl = std::make_unique<Impl>();
  impl->api = std::move(api);
  impl->chip = std::move(chip_name);
  impl->availability = std::move(counter_availability);
  impl->plan = std::move(plan);
  const CuptiApi& cupti = *impl->api;
  auto host = HostObject::create(cupti, impl->chip, impl->availability);
  if (!host) return core::propagate(host);
  impl->name_array = name_pointers(impl->plan.counter_names);
  CUptiResult rc = host->add_metrics(impl->name_array.data(), impl->name_array.size());
  if (rc != CUPTI_SUCCESS) {
    auto kept =
        without_rejected(impl->api, impl->chip, impl->availability, impl->plan, rc, options, impl->dropped);
    if (!kept) return core::propagate(kept);
    impl->plan = std::move(*kept);
    host = HostObject::create(cupti, impl->chip, impl->availability);
    if (!host) return core::propagate(host);
    impl->name_array = name_pointers(impl->plan.counter_names);
    rc = host->add_metrics(impl->name_array.data(), impl->name_array.size());
  }
  if (rc != CUPTI_SUCCESS) {
    return core::fail(core::ErrorCode::Internal, "cuptiProfilerHostConfigAddMetrics failed for chip " +
                                                     impl->chip + ": " + cupti_result_name(cupti, rc));
  }
  auto passes = host->config_image(impl->image);
  if (!passes) return core::propagate(passes);
  impl->passes = *passes;
  if (impl->passes != 1) {
    return core::fail(core::ErrorCode::Unimplemented,
                      "PM-sampling counter set for chip " + impl->chip + " needs " +
                          std::to_string(impl->passes) + " passes; PM sampling supports one",
                      "report this chip and libcupti version; solscope falls back to NVML figures");
  }
  impl->host = std::move(*host);
  return PmConfig(std::move(impl));
}

auto PmConfig::chip_name() const -> const std::string& {
  return impl_->chip;
}
auto PmConfig::plan() const -> const PmCounterPlan& {
  return impl_->plan;
}
auto PmConfig::dropped_counters() const -> std::span<const std::string> {
  return impl_->dropped;
}
auto PmConfig::config_image() const -> std::span<const std::uint8_t> {
  return impl_->image;
}
auto PmConfig::num_passes() const -> std::size_t {
  return impl_->passes;
}
auto PmConfig::counter_name_array() const -> const char** {
  return impl_->name_array.data();
}

auto PmConfig::evaluate(std::span<const std::uint8_t> counter_data, std::size_t sample_index,
                        std::span<double> values) const -> core::Result<void> {
  if (values.size() != impl_->name_array.size()) {
    return core::fail(core::ErrorCode::InvalidArgument, "evaluate needs " +
                                                            std::to_string(impl_->name_array.size()) +
                                                            " values, got " + std::to_string(values.size()));
  }
  CUpti_Profiler_Host_EvaluateToGpuValues_Params p{};
  p.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
  p.pHostObject = impl_->host.get();
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = sample_index;
  p.ppMetricNames = impl_->name_array.data();
  p.numMetrics = impl_->name_array.size();
  p.pMetricValues = values.data();
  if (CUptiResult rc = impl_->api->host_evaluate_to_gpu_values(&p); rc != CUPTI_SUCCESS) {
    return core::fail(core::ErrorCode::Internal, "cuptiProfilerHostEvaluateToGpuValues failed for sample " +
                                                     std::to_string(sample_index) + ": " +
                                                     cupti_result_name(*impl_->api, rc));
  }
  return core::ok();
}

auto check_counters(const std::shared_ptr<const CuptiApi>& api, std::string_view chip_name,
                    std::span<const std::string> names, std::span<const std::uint8_t> availability)
    -> core::Result<std::vector<PmCounterCheck>> {
  const std::string chip(chip_name);
  std::vector<PmCounterCheck> out;
  for (const std::string& name : names) {
    auto host = HostObject::create(*api, chip, availability);
    if (!host) return core::propagate(host);
    PmCounterCheck check;
    check.name = name;
    const char* one[] = {name.c_str()};
    if (CUptiResult rc = host->add_metrics(one, 1); rc != CUPTI_SUCCESS) {
      check.error = cupti_result_name(*api, rc);
    } else {
      std::vector<std::uint8_t> image;
      auto passes = host->config_image(image);
      if (!passes) return core::propagate(passes);
      check.valid = true;
      check.passes = *passes;
    }
    out.push_back(std::move(check));
  }
  return out;
}

auto count_passes(const std::shared_ptr<const CuptiApi>& api, std::string_view chip_name,
                  std::span<const std::string> names) -> core::Result<std::size_t> {
  const std::string chip(chip_name);
  auto host = HostObject::create(*api, chip, {});
  if (!host) return core::propagate(host);
  std::vector<const char*> pointers = name_pointers(names);
  if (CUptiResult rc = host->add_metrics(pointers.data(), pointers.size()); rc != CUPTI_SUCCESS) {
    return core::fail(core::ErrorCode::InvalidArgument, "chip " + chip + " rejects counters (" + join(names) +
                                                            "): " + cupti_result_name(*api, rc));
  }
  std::vector<std::uint8_t> image;
  return host->config_image(image);
}

}  // namespace solscope::nvidia
