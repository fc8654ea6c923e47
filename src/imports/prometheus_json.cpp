#include "imports/prometheus_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/dcgm_fields.hpp"
#include "core/metric_catalog.hpp"
#include "core/units.hpp"
#include "imports/dcgm_exposition.hpp"
#include "imports/dcgmi_dmon.hpp"
#include "imports/text_lines.hpp"
#include "wire/json_fields.hpp"

namespace solscope::imports {
namespace {

using Json = nlohmann::json;

/// Latest time a point may carry (dcgm_exposition.hpp kLatestUnixSeconds).
constexpr auto kMaxUnixSeconds = static_cast<double>(kLatestUnixSeconds);
using GpuKey = std::tuple<std::string, std::string, std::string>;

/// Where one series' values go.
struct Target {
  core::MetricId metric = core::MetricId::kCount;
  double scale = 1.0;                   ///< value x scale = solscope unit
  std::optional<core::DcgmField> dcgm;  ///< DCGM field: placeholders mean "no value"
};

auto label(const Json& metric, std::string_view name) -> std::string {
  return wire::string_field(metric, name);
}

auto first_label(const Json& metric, std::initializer_list<std::string_view> names) -> std::string {
  for (const std::string_view n : names) {
    if (std::string v = label(metric, n); !v.empty()) return v;
  }
  return {};
}

/// The catalog row of a solscope series, or nullopt.
auto solscope_target(std::string_view name, const Json& metric) -> std::optional<Target> {
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

/// The sample value of one point [time, "value"]; Prometheus writes values as strings ("NaN", "+Inf" too).
auto point_value(const Json& point, double& time_s, double& value) -> bool {
  if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_string()) return false;
  time_s = point[0].get<double>();
  const std::string& text = point[1].get_ref<const std::string&>();
  if (text == "NaN" || text == "+Inf" || text == "-Inf") {
    value = std::nan("");
    return std::isfinite(time_s) && time_s >= 0 && time_s < kMaxUnixSeconds;
  }
  const auto parsed = parse_finite(text);
  if (!parsed) return false;
  value = *parsed;
  return std::isfinite(time_s) && time_s >= 0 && time_s < kMaxUnixSeconds;
}

struct Builder {
  Recording recording;
  std::map<GpuKey, std::uint32_t> indices;
  std::map<std::pair<std::uint32_t, std::int64_t>, core::RawSample> samples;
  std::map<std::uint32_t, core::SourceKind> solscope_source;
  bool any_dcgm = false;
  bool any_solscope = false;

  auto device_for(const Json& metric) -> std::uint32_t {
    const GpuKey key{first_label(metric, {"Hostname", "hostname", "instance"}), label(metric, "gpu"),
                     label(metric, "GPU_I_ID")};
    auto [it, fresh] = indices.try_emplace(key, static_cast<std::uint32_t>(recording.devices.size()));
    if (fresh) recording.devices.push_back(core::DeviceInfo{.index = it->second});
    core::DeviceInfo& d = recording.devices[it->second];
    if (d.host.empty()) d.host = std::get<0>(key);
    if (d.uuid.empty()) d.uuid = label(metric, "UUID");
    if (d.name.empty()) d.name = label(metric, "modelName");
    if (d.mig_profile.empty()) d.mig_profile = label(metric, "GPU_I_PROFILE");
    if (d.mig_instance_id < 0 && !std::get<2>(key).empty()) {
      const auto id = parse_finite(std::get<2>(key));
      if (id && *id >= 0 && *id < 1e6) d.mig_instance_id = static_cast<std::int32_t>(*id);
    }
    if (d.attribution.empty()) {
      const std::string ns = first_label(metric, {"namespace", "exported_namespace"});
      const std::string pod = first_label(metric, {"pod", "exported_pod"});
      const std::string container = first_label(metric, {"container", "exported_container"});
      if (!ns.empty() || !pod.empty() || !container.empty()) d.attribution = ns + "/" + pod + "/" + container;
    }
    return it->second;
  }
};

auto parse_error(const Json::parse_error& e, std::string_view text) -> core::Error {
  const std::size_t offset = std::min(e.byte > 0 ? e.byte - 1 : 0, text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t line = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  const std::size_t last_nl = before.rfind('\n');
  const std::size_t column = offset - (last_nl == std::string_view::npos ? 0 : last_nl + 1) + 1;
  std::string what = e.what();
  if (const auto at = what.find("parse error"); at != std::string::npos) what = what.substr(at);
  return core::Error{core::ErrorCode::DataLoss,
                     at_line(line, "column " + std::to_string(column) + ": invalid JSON (" + what + ")"),
                     "give the saved body of a /api/v1/query_range answer"};
}

auto read_series(Builder& b, const Json& series, std::size_t index) -> core::Result<void> {
  const std::string where = "data.result[" + std::to_string(index) + "]";
  if (!series.is_object() || !series.contains("metric") || !series["metric"].is_object() ||
      !series.contains("values") || !series["values"].is_array()) {
    return core::fail(core::ErrorCode::DataLoss, where + ": a series needs \"metric\" and \"values\"");
  }
  const Json& metric = series["metric"];
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
    b.recording.unmapped[name.empty() ? std::string("(no __name__)") : name] += series["values"].size();
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
  const Json& values = series["values"];
  for (std::size_t i = 0; i < values.size(); ++i) {
    double time_s = 0;
    double value = 0;
    if (!point_value(values[i], time_s, value)) {
      return core::fail(core::ErrorCode::DataLoss, where + ".values[" + std::to_string(i) +
                                                       "]: expected [unix seconds, \"number\"], found " +
                                                       imports::quoted(values[i].dump()));
    }
    const auto ms = static_cast<std::int64_t>(std::llround(time_s * 1000.0));
    auto [it, fresh] = b.samples.try_emplace({device, ms});
    core::RawSample& raw = it->second;
    if (fresh) {
      raw.device_index = device;
      raw.t_end_ns = ms * 1'000'000;
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

auto parse_prometheus_json(std::string_view text) -> core::Result<Recording> {
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    return core::fail(parse_error(e, text));
  } catch (const Json::exception& e) {
    return core::fail(core::ErrorCode::DataLoss, std::string("invalid JSON: ") + e.what());
  }
  const auto hint =
      "save the body of /api/v1/query_range (not /api/v1/query), e.g. curl -o FILE "
      "'http://prometheus:9090/api/v1/query_range?query=...&start=...&end=...&step=...'";
  if (!doc.is_object() || wire::string_field(doc, "status") != "success" || !doc.contains("data") ||
      !doc["data"].is_object()) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "not a successful Prometheus API answer (no \"status\": \"success\" with \"data\")",
                      hint);
  }
  const Json& data = doc["data"];
  if (wire::string_field(data, "resultType") != "matrix" || !data.contains("result") ||
      !data["result"].is_array()) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "the answer's resultType is not \"matrix\" (a query_range answer)", hint);
  }
  Builder b;
  for (std::size_t i = 0; i < data["result"].size(); ++i) {
    if (auto done = read_series(b, data["result"][i], i); !done) return core::propagate(done);
  }
  if (b.samples.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "the answer holds no DCGM_FI_* or solscope_* series",
                      "query dcgm-exporter's series, e.g. {__name__=~\"DCGM_FI_PROF_.*\"}");
  }
  std::vector<core::RawSample> samples;
  samples.reserve(b.samples.size());
  for (auto& [key, raw] : b.samples) {
    const auto source = b.solscope_source.find(raw.device_index);
    raw.source = source != b.solscope_source.end() ? source->second : core::SourceKind::Dcgm;
    samples.push_back(raw);
  }
  std::stable_sort(samples.begin(), samples.end(), [](const core::RawSample& x, const core::RawSample& y) {
    return x.t_end_ns < y.t_end_ns;
  });
  span_from_previous(samples, core::kNsPerS);
  b.recording.samples = std::move(samples);
  b.recording.sol_definition = sol_definition(b);
  return std::move(b.recording);
}

}  // namespace solscope::imports
