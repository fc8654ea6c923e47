#include "sources/nvidia/detail/gpm_reader.hpp"

#include <algorithm>
#include <utility>

#include "core/metric_catalog.hpp"
#include "sources/nvidia/nvml_reader.hpp"

namespace solscope::nvidia {
namespace {

auto device_label(std::uint32_t index) -> std::string {
  return "device " + std::to_string(index);
}

auto sample_error(const NvmlApi& api, std::uint32_t index, const char* call, nvml::Return rc)
    -> core::Unexpected<core::Error> {
  if (rc == nvml::kErrorGpuIsLost) {
    return core::fail(core::ErrorCode::Unavailable,
                      device_label(index) + " lost: " + nvml_error_text(api, rc), std::string(kGpuLostHint));
  }
  return core::fail(core::ErrorCode::Unavailable,
                    device_label(index) + ": " + call + " failed: " + nvml_error_text(api, rc));
}

}  // namespace

auto query_gpm_support(const NvmlApi& api, nvml::Device device) -> GpmSupportInfo {
  if (!api.has_gpm()) {
    return {.supported = false,
            .reason = "this driver's NVML has no GPM functions (update the NVIDIA driver)"};
  }
  nvml::GpmSupport support{.version = nvml::kGpmSupportVersion, .is_supported_device = 0};
  const nvml::Return rc = api.gpm_query_device_support(device, &support);
  if (rc != nvml::kSuccess) {
    return {.supported = false, .reason = "nvmlGpmQueryDeviceSupport failed: " + nvml_error_text(api, rc)};
  }
  if (support.is_supported_device == 0) {
    return {.supported = false, .reason = "GPM is not supported on this GPU (Hopper and newer only)"};
  }
  return {.supported = true, .reason = {}};
}

auto gpm_metric_maps() -> std::vector<GpmMetricMap> {
  std::vector<GpmMetricMap> maps;
  for (const core::MetricDef& def : core::metric_catalog()) {
    if (def.gpm_metric_id != 0)
      maps.push_back({.id = def.id, .gpm_metric_id = def.gpm_metric_id, .scale = def.gpm_scale});
  }
  return maps;
}

GpmReader::GpmReader(NvmlApi api, nvml::Device device, std::uint32_t device_index)
    : api_(std::move(api)),
      device_(device),
      device_index_(device_index),
      metrics_(gpm_metric_maps()),
      request_(std::make_unique<nvml::GpmMetricsGet>()) {}

auto GpmReader::open(NvmlApi api, nvml::Device device, std::uint32_t device_index, std::int64_t now_ns,
                     std::optional<unsigned int> gpu_instance_id) -> core::Result<GpmReader> {
  if (const GpmSupportInfo support = query_gpm_support(api, device); !support.supported) {
    return core::fail(core::ErrorCode::Unimplemented, device_label(device_index) + ": " + support.reason);
  }
  if (gpu_instance_id && api.gpm_mig_sample_get == nullptr) {
    return core::fail(core::ErrorCode::Unimplemented,
                      device_label(device_index) +
                          ": this driver's NVML has no nvmlGpmMigSampleGet (update the NVIDIA driver)");
  }
  GpmReader reader(std::move(api), device, device_index);
  reader.gpu_instance_id_ = gpu_instance_id;
  const NvmlApi& fns = reader.api_;
  for (nvml::GpmSample* buffer : {&reader.previous_, &reader.current_}) {
    if (const nvml::Return rc = fns.gpm_sample_alloc(buffer); rc != nvml::kSuccess) {
      *buffer = nullptr;
      return sample_error(fns, device_index, "nvmlGpmSampleAlloc", rc);
    }
  }
  if (const nvml::Return rc = reader.take(reader.previous_); rc != nvml::kSuccess) {
    return sample_error(fns, device_index,
                        reader.gpu_instance_id_ ? "nvmlGpmMigSampleGet" : "nvmlGpmSampleGet", rc);
  }
  reader.previous_ns_ = now_ns;
  return reader;
}

GpmReader::GpmReader(GpmReader&& other) noexcept
    : api_(std::move(other.api_)),
      device_(other.device_),
      device_index_(other.device_index_),
      gpu_instance_id_(other.gpu_instance_id_),
      previous_(std::exchange(other.previous_, nullptr)),
      current_(std::exchange(other.current_, nullptr)),
      previous_ns_(other.previous_ns_),
      lost_(other.lost_),
      metrics_(std::move(other.metrics_)),
      request_(std::move(other.request_)) {}

auto GpmReader::operator=(GpmReader&& other) noexcept -> GpmReader& {
  if (this != &other) {
    release();
    api_ = std::move(other.api_);
    device_ = other.device_;
    device_index_ = other.device_index_;
    gpu_instance_id_ = other.gpu_instance_id_;
    previous_ = std::exchange(other.previous_, nullptr);
    current_ = std::exchange(other.current_, nullptr);
    previous_ns_ = other.previous_ns_;
    lost_ = other.lost_;
    metrics_ = std::move(other.metrics_);
    request_ = std::move(other.request_);
  }
  return *this;
}

GpmReader::~GpmReader() {
  release();
}

auto GpmReader::take(nvml::GpmSample sample) -> nvml::Return {
  return gpu_instance_id_ ? api_.gpm_mig_sample_get(device_, *gpu_instance_id_, sample)
                          : api_.gpm_sample_get(device_, sample);
}

void GpmReader::release() {
  for (nvml::GpmSample* buffer : {&previous_, &current_}) {
    if (*buffer != nullptr && api_.gpm_sample_free != nullptr) (void)api_.gpm_sample_free(*buffer);
    *buffer = nullptr;
  }
}

auto GpmReader::sample(std::int64_t now_ns) -> core::Result<std::optional<core::RawSample>> {
  if (lost_) return sample_error(api_, device_index_, "nvmlGpmSampleGet", nvml::kErrorGpuIsLost);
  if (now_ns - previous_ns_ < kGpmMinIntervalNs) return std::optional<core::RawSample>{};
  if (const nvml::Return rc = take(current_); rc != nvml::kSuccess) {
    lost_ = rc == nvml::kErrorGpuIsLost;
    return sample_error(api_, device_index_, gpu_instance_id_ ? "nvmlGpmMigSampleGet" : "nvmlGpmSampleGet",
                        rc);
  }
  core::RawSample out;
  out.device_index = device_index_;
  out.t_start_ns = previous_ns_;
  out.t_end_ns = now_ns;
  out.source = core::SourceKind::Gpm;
  const nvml::Return rc = compute(out);
  // The new sample becomes the start of the next interval whatever the metrics call said.
  std::swap(previous_, current_);
  previous_ns_ = now_ns;
  if (rc != nvml::kSuccess) {
    lost_ = rc == nvml::kErrorGpuIsLost;
    return sample_error(api_, device_index_, "nvmlGpmMetricsGet", rc);
  }
  return std::optional<core::RawSample>{out};
}

auto GpmReader::compute(core::RawSample& out) -> nvml::Return {
  nvml::GpmMetricsGet& req = *request_;
  req = nvml::GpmMetricsGet{};
  req.version = nvml::kGpmMetricsGetVersion;
  req.num_metrics = static_cast<unsigned int>(std::min(metrics_.size(), req.metrics.size()));
  req.sample1 = previous_;
  req.sample2 = current_;
  for (std::size_t i = 0; i < req.num_metrics; ++i) req.metrics[i].metric_id = metrics_[i].gpm_metric_id;
  const nvml::Return rc = api_.gpm_metrics_get(&req);
  if (rc != nvml::kSuccess) return rc;
  std::vector<unsigned int> unsupported;
  for (std::size_t i = 0; i < req.num_metrics; ++i) {
    const nvml::GpmMetric& metric = req.metrics[i];
    if (metric.nvml_return == nvml::kSuccess) {
      out.set(metrics_[i].id, metric.value * metrics_[i].scale);
    } else if (metric.nvml_return == nvml::kErrorNotSupported) {
      unsupported.push_back(metrics_[i].gpm_metric_id);
    }
  }
  std::erase_if(metrics_, [&](const GpmMetricMap& m) {
    return std::find(unsupported.begin(), unsupported.end(), m.gpm_metric_id) != unsupported.end();
  });
  return rc;
}

}  // namespace solscope::nvidia
