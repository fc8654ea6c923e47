#include "imports/detail/prometheus_json.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "core/dcgm_fields.hpp"
#include "core/metric_catalog.hpp"
#include "core/units.hpp"
#include "imports/detail/dcgmi_dmon.hpp"
#include "imports/detail/text_lines.hpp"
#include "net/dcgm_exposition.hpp"
#include "net/prom_query.hpp"
#include "wire/json_fields.hpp"

namespace solscope::imports {
namespace {

using Labels = std::map<std::string, std::string>;
using GpuKey = std::tuple<std::string, std::string, std::string>;

/// Where one series' values go.
struct Target {
  core::MetricId metric = core::MetricId::kCount;
  double scale = 1.0;                   ///< value x scale = solscope unit
  std::optional<core::DcgmField> dcgm;  ///< DCGM field: placeholders mean "no value"
};

auto label(const Labels& metric, std::string_view name) -> std::string {
  const auto it = metric.find(std::string(name));
  return it != metric.end() ? it->second : std::string();
}

auto first_label(const Labels& metric, std::initializer_list<std::string_view> names) -> std::string {
  for (const std::string_view n : names) {
    if (std::string v = label(metric, n); !v.empty()) return v;
  }
  return {};
}

/// The catalog row of a solscope series, or nullopt.
auto solscope_target(std::string_view name, const Labels& metric) -> std::optional<Target> {
  for (const core::MetricDef& def : core::metric_catalog()) {
    if (def.prom_name != name || def.prom_scale == 0) continue;
    if (def.role == core::MetricRole::ComputePipe) {
      const auto pipe = core::pipe_from_string(label(metric, "pipe"));
      if (!pipe || def.group != static_cast<std::uint8_t>(*pipe)) continue;
    } else if (def.role == core::MetricRole::MemoryPath) {
      const auto path = core::mem_path_from_string(label(metric, "path"));
      if (!path || def.group != static_cast<std::uint8_t>(*path)) continue;
    }
    return Target{def.id, 1.0 / def.prom_scale, std::nullopt};
  }
  return std::nullopt;
}

/// Fills the fields of `d` still unknown from `seen` (another series of the same device, whose labels may
/// carry more: a solscope_* series has no modelName).
void fill_unknown(core::DeviceInfo& d, const core::DeviceInfo& seen) {
  const auto fill = [](std::string& into, const std::string& from) {
    if (into.empty()) into = from;
  };
  fill(d.host, seen.host);
  fill(d.uuid, seen.uuid);
  fill(d.parent_uuid, seen.parent_uuid);
  fill(d.name, seen.name);
  fill(d.pci_bus_id, seen.pci_bus_id);
  fill(d.mig_profile, seen.mig_profile);
  if (d.gpu_index < 0) d.gpu_index = seen.gpu_index;
  if (d.mig_instance_id < 0) d.mig_instance_id = seen.mig_instance_id;
  if (std::isnan(d.mig_sm_share)) d.mig_sm_share = seen.mig_sm_share;
  if (std::isnan(d.mig_memory_share)) d.mig_memory_share = seen.mig_memory_share;
}

struct Builder {
  Recording recording;
  std::map<GpuKey, std::uint32_t> indices;
  /// By (Unix ms, device): in the time order of the trace, so no sort is needed.
  std::map<std::pair<std::int64_t, std::uint32_t>, core::RawSample> samples;
  std::map<std::uint32_t, core::SourceKind> solscope_source;
  bool any_dcgm = false;
  bool any_solscope = false;

  auto device_for(const Labels& metric) -> std::uint32_t {
    const net::DcgmDeviceLabels labels{.host = first_label(metric, {"Hostname", "hostname", "instance"}),
                                       .gpu = label(metric, "gpu"),
                                       .uuid = label(metric, "UUID"),
                                       .model = label(metric, "modelName"),
                                       .pci_bus_id = label(metric, "pci_bus_id"),
                                       .mig_profile = label(metric, "GPU_I_PROFILE"),
                                       .mig_id = label(metric, "GPU_I_ID")};
    const GpuKey key{labels.host, labels.gpu, labels.mig_id};
    auto [it, fresh] = indices.try_emplace(key, static_cast<std::uint32_t>(recording.devices.size()));
    if (fresh) recording.devices.push_back(core::DeviceInfo{.index = it->second});
    core::DeviceInfo& d = recording.devices[it->second];
    fill_unknown(d, net::dcgm_device_identity(labels, it->second));
    if (d.attribution.empty()) {
      const std::string ns = first_label(metric, {"namespace", "exported_namespace"});
      const std::string pod = first_label(metric, {"pod", "exported_pod"});
      const std::string container = first_label(metric, {"container", "exported_container"});
      if (!ns.empty() || !pod.empty() || !container.empty()) d.attribution = ns + "/" + pod + "/" + container;
    }
    return it->second;
  }
};

auto read_series(Builder& b, net::PromSeries& series, std::size_t index, net::PromSeriesForm form)
    -> core::Result<void> {
  const std::string where = "data.result[" + std::to_string(index) + "]";
  const bool range = form == net::PromSeriesForm::Range;
  if (!series.has_metric || series.form != form) {
    return core::fail(core::ErrorCode::DataLoss,
                      where + ": a series needs \"metric\" and " + (range ? "\"values\"" : "\"value\""));
  }
  const Labels& metric = series.labels;
  const std::string name = label(metric, "__name__");
  std::optional<Target> target;
  bool is_info = false;
  if (name.starts_with(core::kDcgmSeriesPrefix)) {
    if (const auto field = core::dcgm_field_by_name(name))
      target = Target{field->metric, field->scale, field};
  } else if (name == "solscope_gpu_info") {
    is_info = true;
  } else if (name.starts_with("solscope_")) {
    target = solscope_target(name, metric);
  }
  if (!target && !is_info) {
    b.recording.unmapped[name.empty() ? std::string("(no __name__)") : name] += series.sent_points;
    return core::ok();
  }
  const std::uint32_t device = b.device_for(metric);
  if (is_info) {
    b.any_solscope = true;
    b.solscope_source[device] =
        core::source_kind_from_string(label(metric, "source")).value_or(core::SourceKind::Replay);
    return core::ok();
  }
  (target->dcgm ? b.any_dcgm : b.any_solscope) = true;
  if (!target->dcgm && !b.solscope_source.contains(device))
    b.solscope_source[device] = core::SourceKind::Replay;
  if (series.bad_point) {
    const std::string at =
        range ? where + ".values[" + std::to_string(series.bad_point->index) + "]" : where + ".value";
    return core::fail(core::ErrorCode::DataLoss, at + ": expected [unix seconds, \"number\"], found " +
                                                     imports::quoted(series.bad_point->json));
  }
  for (const auto& [t_ns, value] : series.points) {  // "+Inf", "-Inf": the shared domain check counts them
    auto [it, fresh] = b.samples.try_emplace({t_ns / 1'000'000, device});
    core::RawSample& raw = it->second;
    if (fresh) {
      raw.device_index = device;
      raw.t_end_ns = t_ns;
    }
    const double v = target->dcgm ? core::dcgm_value(*target->dcgm, value) : value * target->scale;
    if (!std::isnan(v) || std::isnan(raw.value(target->metric))) raw.set(target->metric, v);
  }
  return core::ok();
}

auto sol_definition(const Builder& b) -> std::string {
  std::string out;
  if (b.any_solscope) out = "solscope series: SOL as the recording solscope derived it (its source per GPU)";
  if (b.any_dcgm) out += (out.empty() ? "" : "; ") + std::string(kDcgmSolDefinition);
  return out;
}

}  // namespace

auto parse_prometheus_json(std::string_view text, std::int64_t single_ns) -> core::Result<Recording> {
  const auto hint =
      "save the body of /api/v1/query_range (or of /api/v1/query for one instant), e.g. curl -o FILE "
      "'http://prometheus:9090/api/v1/query_range?query=...&start=...&end=...&step=...'";
  auto answer = net::parse_prom_query_answer(text);
  if (!answer) {
    core::Error error = std::move(answer.error());
    error.hint =
        error.code == core::ErrorCode::ResourceExhausted
            ? "save a smaller answer: fewer series (a narrower selector), a shorter range or a longer step"
            : "give the saved body of a /api/v1/query_range answer";
    return core::fail(std::move(error));
  }
  if (answer->status != "success" || !answer->has_data) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "not a successful Prometheus API answer (no \"status\": \"success\" with \"data\")",
                      hint);
  }
  const bool instant = answer->result_type == "vector";
  if ((answer->result_type != "matrix" && !instant) || !answer->has_result) {
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "the answer's resultType is not \"matrix\" (a query_range answer) or \"vector\" (a query "
        "answer)",
        hint);
  }
  const auto form = instant ? net::PromSeriesForm::Instant : net::PromSeriesForm::Range;
  Builder b;
  for (std::size_t i = 0; i < answer->series.size(); ++i) {
    if (auto done = read_series(b, answer->series[i], i, form); !done) return core::propagate(done);
  }
  if (b.samples.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "the answer holds no DCGM_FI_* or solscope_* series",
                      "query dcgm-exporter's series, e.g. {__name__=~\"DCGM_FI_PROF_.*\"}");
  }
  std::vector<core::RawSample> samples;
  samples.reserve(b.samples.size());
  while (!b.samples.empty()) {  // each node freed as its sample moves out: one copy held at a time
    core::RawSample& raw = b.samples.begin()->second;
    const auto source = b.solscope_source.find(raw.device_index);
    raw.source = source != b.solscope_source.end() ? source->second : core::SourceKind::Dcgm;
    samples.push_back(raw);
    b.samples.erase(b.samples.begin());
  }
  if (instant) {
    b.recording.notes.push_back(
        fmt::format("an instant-query answer (resultType vector): one sample per GPU at its time, spanning "
                    "--delay ({} s)",
                    static_cast<double>(single_ns) / static_cast<double>(core::kNsPerS)));
  }
  b.recording.samples = std::move(samples);
  if (auto spanned = span_from_previous(b.recording, single_ns); !spanned) return core::propagate(spanned);
  b.recording.sol_definition = sol_definition(b);
  return std::move(b.recording);
}

}  // namespace solscope::imports
