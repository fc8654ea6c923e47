#include "wire/iteration_json.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/kernel_steps.hpp"
#include "core/units.hpp"
#include "wire/json_fields.hpp"
#include "wire/json_number.hpp"

namespace solscope::wire {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

namespace {

constexpr auto kNsPerSecond = static_cast<double>(core::kNsPerS);

auto part_at(std::size_t i) -> core::IterationPart {
  return static_cast<core::IterationPart>(i);
}

/// The part named `name` (core::to_string(IterationPart)); nullopt for any other text.
auto part_named(std::string_view name) -> std::optional<core::IterationPart> {
  for (std::size_t i = 0; i < core::kIterationPartCount; ++i) {
    if (core::to_string(part_at(i)) == name) return part_at(i);
  }
  return std::nullopt;
}

/// The strip of `json` (kIterationStripBins known part names), or nullopt.
auto read_strip(const Json& json)
    -> std::optional<std::array<core::IterationPart, core::kIterationStripBins>> {
  const auto it = json.find("strip");
  if (it == json.end() || !it->is_array() || it->size() != core::kIterationStripBins) return std::nullopt;
  std::array<core::IterationPart, core::kIterationStripBins> strip{};
  for (std::size_t i = 0; i < strip.size(); ++i) {
    const Json& bin = (*it)[i];
    const auto part = bin.is_string() ? part_named(bin.get_ref<const std::string&>()) : std::nullopt;
    if (!part) return std::nullopt;
    strip[i] = *part;
  }
  return strip;
}

}  // namespace

auto iteration_to_json(const core::IterationEstimate& e) -> OrderedJson {
  const auto known = [&e](double v) { return number_or_null(e.periodic ? v : core::kUnknown); };
  OrderedJson out = OrderedJson::object();
  out["periodic"] = e.periodic;
  out["period_s"] = known(e.period_s);
  out["jitter_s"] = known(e.jitter_s);
  out["confidence"] = number_or_null(e.confidence);
  out["window_s"] = number_or_null(static_cast<double>(e.window_ns) / kNsPerSecond);
  out["estimated_at_ns"] = e.estimated_at_ns;
  OrderedJson parts = OrderedJson::object();
  for (std::size_t i = 0; i < core::kIterationPartCount; ++i) {
    parts[std::string(core::to_string(part_at(i)))] = known(e.part_ratio[i]);
  }
  out["parts"] = std::move(parts);
  out["compute_ratio"] = known(e.compute_ratio);
  out["communication_ratio"] = known(e.communication_ratio);
  out["exposed_communication_ratio"] = known(e.exposed_communication_ratio);
  out["communication_offset_s"] = known(e.communication_offset_s);
  OrderedJson strip = OrderedJson::array();
  if (e.periodic) {
    for (const core::IterationPart part : e.strip) strip.push_back(std::string(core::to_string(part)));
  }
  out["strip"] = std::move(strip);
  out["note"] = e.note;
  return out;
}

auto iteration_from_json(const Json& json) -> core::IterationEstimate {
  core::IterationEstimate e;
  if (!json.is_object()) return e;
  e.note = string_field(json, "note");
  e.confidence = number_field(json, "confidence");
  e.estimated_at_ns = integer_field<std::int64_t>(json, "estimated_at_ns", 0);
  const double window_s = number_field(json, "window_s", 0.0);
  e.window_ns = window_s > 0.0 ? static_cast<std::int64_t>(std::llround(window_s * kNsPerSecond)) : 0;
  const auto periodic = json.find("periodic");
  const auto strip = read_strip(json);
  e.periodic = periodic != json.end() && periodic->is_boolean() && periodic->get<bool>() && strip.has_value();
  if (!e.periodic) return e;
  e.strip = *strip;
  e.period_s = number_field(json, "period_s");
  e.jitter_s = number_field(json, "jitter_s");
  const auto parts = json.find("parts");
  for (std::size_t i = 0; i < core::kIterationPartCount; ++i) {
    e.part_ratio[i] =
        parts == json.end() ? core::kUnknown : number_field(*parts, core::to_string(part_at(i)));
  }
  e.compute_ratio = number_field(json, "compute_ratio");
  e.communication_ratio = number_field(json, "communication_ratio");
  e.exposed_communication_ratio = number_field(json, "exposed_communication_ratio");
  e.communication_offset_s = number_field(json, "communication_offset_s");
  return e;
}

auto job_steps_to_json(const core::JobSteps& job) -> OrderedJson {
  OrderedJson ranks = OrderedJson::array();
  for (std::size_t i = 0; i < job.ranks.size(); ++i) {
    const core::RankSteps& r = job.ranks[i];
    ranks.push_back(OrderedJson{{"device", job.devices[i]},
                                {"rank", r.rank},
                                {"iteration_s", number_or_null(r.iteration_s)},
                                {"compute_s", number_or_null(r.compute_s)},
                                {"communication_s", number_or_null(r.communication_s)},
                                {"exposed_communication_s", number_or_null(r.exposed_communication_s)}});
  }
  OrderedJson out = OrderedJson::object();
  out["ranks"] = std::move(ranks);
  out["not_periodic"] = job.not_periodic;
  if (job.verdict && job.verdict->straggler < job.ranks.size()) {
    const std::size_t s = job.verdict->straggler;
    out["straggler"] = OrderedJson{{"device", job.devices[s]}, {"rank", job.ranks[s].rank}};
    out["spread_pct"] = number_or_null(job.verdict->spread_pct);
    out["iteration_spread_pct"] = number_or_null(job.verdict->iteration_spread_pct);
  } else {
    out["straggler"] = nullptr;
    out["spread_pct"] = nullptr;
    out["iteration_spread_pct"] = nullptr;
  }
  return out;
}

}  // namespace solscope::wire
