// The one list of a sample's JSON fields, in their order (docs/http-api.md "SolSample and window JSON"). Both
// writers walk it: the document builder (sol_sample_to_json) and the direct text writer
// (append_sol_sample_json), so that the two cannot drift apart.
#pragma once

#include <cstddef>
#include <string_view>

#include "core/attainable_gap.hpp"
#include "core/device_info.hpp"
#include "core/limiter.hpp"
#include "core/metric_catalog.hpp"
#include "core/pm_yield.hpp"
#include "core/sol_sample.hpp"
#include "core/sol_terms.hpp"

namespace solscope::wire::detail {

/// Calls, in field order, on `v`: integer(key, value) for whole numbers, number(key, double) for figures
/// (NaN or infinity: null), text(key, string_view), null(key), begin_object(key) and end_object() around the
/// nested pipes and paths objects. `device` may be nullptr (then there is no uuid field).
template <class Visitor>
void visit_sample_fields(const core::SolSample& s, const core::DeviceInfo* device, Visitor& v) {
  const auto name_or_null = [&v](std::string_view key, auto value, auto none) {
    if (value == none) {
      v.null(key);
    } else {
      v.text(key, core::to_string(value));
    }
  };
  v.integer("device", s.device_index);
  if (device != nullptr && !device->uuid.empty()) v.text("uuid", device->uuid);
  v.integer("t_start_ns", s.t_start_ns);
  v.integer("t_end_ns", s.t_end_ns);
  v.text("source", core::to_string(s.source));
  v.integer("flags", s.flags);
  v.text("pm_pause", core::to_string(s.pm_pause));  // "none" when PM sampling was not paused
  v.number("compute_sol_pct", s.compute_sol_pct);
  name_or_null("compute_pipe", s.compute_pipe, core::Pipe::kCount);
  v.number("memory_sol_pct", s.memory_sol_pct);
  name_or_null("memory_path", s.memory_path, core::MemPath::kCount);
  v.text("bound", core::to_string(s.bound));
  v.begin_object("pipes");
  for (std::size_t i = 0; i < core::kPipeCount; ++i) {
    v.number(core::to_string(static_cast<core::Pipe>(i)), s.pipe_pct[i]);
  }
  v.end_object();
  v.begin_object("paths");
  for (std::size_t i = 0; i < core::kMemPathCount; ++i) {
    v.number(core::to_string(static_cast<core::MemPath>(i)), s.path_pct[i]);
  }
  v.end_object();
  v.number("dram_bytes_per_s", s.dram_bytes_per_s);
  v.number("attainable_compute_sol_pct", s.attainable_compute_sol_pct);
  v.number("attainable_memory_sol_pct", s.attainable_memory_sol_pct);
  name_or_null("attainable_limiter", s.attainable_limiter, core::Limiter::kCount);
  const core::AttainableGap gap = core::attainable_gap(s);
  v.number("attainable_compute_gap_pts", gap.compute_pts);
  v.number("attainable_memory_gap_pts", gap.memory_pts);
  for (const core::MetricDef& def : core::metric_catalog()) {
    v.number(def.name, s.metrics[core::index_of(def.id)]);
  }
}

}  // namespace solscope::wire::detail
