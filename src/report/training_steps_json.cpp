// training_steps_json (detail/training_steps_present.hpp): the `training_steps` key of the JSON report.
#include "report/detail/training_steps_build.hpp"
#include "report/detail/training_steps_present.hpp"
#include "wire/json_number.hpp"

namespace solscope::report {
namespace {

using Json = nlohmann::ordered_json;

auto stat_json(const StepStat& s) -> Json {
  return Json{{"p50_ms", wire::number_or_null(s.p50_ms)},
              {"p90_ms", wire::number_or_null(s.p90_ms)},
              {"p99_ms", wire::number_or_null(s.p99_ms)},
              {"mean_ms", wire::number_or_null(s.mean_ms)},
              {"share_pct", wire::number_or_null(s.share_pct)}};
}

auto iteration_json(const core::KernelIteration& it) -> Json {
  Json collectives = Json::object();
  for (std::size_t c = 1; c < core::kCollectiveCount; ++c) {
    if (it.collective_ns[c] > 0) {
      collectives[std::string(core::to_string(static_cast<core::Collective>(c)))] =
          ms_of(it.collective_ns[c]);
    }
  }
  return Json{{"start_ns", it.start_ns},
              {"end_ns", it.end_ns},
              {"length_ms", ms_of(it.duration_ns())},
              {"compute_ms", ms_of(it.compute_ns)},
              {"communication_ms", ms_of(it.communication_ns)},
              {"exposed_communication_ms", ms_of(it.exposed_communication_ns)},
              {"collectives_ms", std::move(collectives)},
              {"kernels", it.kernels}};
}

void put_kernel_steps(Json& out, const GpuSteps& g) {
  out["boundary"] = std::string(core::to_string(g.boundary));
  out["nvtx_range"] = g.boundary == core::StepBoundary::Nvtx ? Json(g.nvtx_range) : Json(nullptr);
  out["iteration_count"] = g.iteration_count;
  out["kernels_used"] = g.kernels_used;
  out["kernels_left"] = g.kernels_left;
  out["iteration"] = stat_json(g.iteration);
  out["compute"] = stat_json(g.compute);
  out["communication"] = stat_json(g.communication);
  out["exposed_communication"] = stat_json(g.exposed);
  Json mix = Json::object();
  for (std::size_t c = 1; c < core::kCollectiveCount; ++c) {
    if (g.collective_pct[c] > 0.0) {
      mix[std::string(core::to_string(static_cast<core::Collective>(c)))] = g.collective_pct[c];
    }
  }
  out["collectives_pct"] = std::move(mix);
  out["median_iteration"] = g.median_iteration;
  out["median_length_ms"] = ms_of(g.median_length_ns);
  Json strip = Json::array();
  for (const auto& s : g.strip) {
    strip.push_back(
        Json{{"start_ms", ms_of(s.start_ns)}, {"end_ms", ms_of(s.end_ns)}, {"kind", to_string(s.kind)}});
  }
  out["strip"] = std::move(strip);
  Json iterations = Json::array();
  for (const auto& it : g.iterations) iterations.push_back(iteration_json(it));
  out["iterations"] = std::move(iterations);
}

auto samples_json(const GpuSteps& g) -> Json {
  const core::IterationEstimate& e = g.estimate;
  Json parts = Json::object();
  for (std::size_t p = 0; p < core::kIterationPartCount; ++p) {
    parts[std::string(core::to_string(static_cast<core::IterationPart>(p)))] =
        e.periodic ? wire::number_or_null(e.part_ratio[p] * core::kPercent) : Json(nullptr);
  }
  auto scaled = [](double v, double k) { return wire::number_or_null(v * k); };
  return Json{{"periodic", e.periodic},
              {"period_ms", scaled(e.period_s, 1e3)},
              {"jitter_ms", scaled(e.jitter_s, 1e3)},
              {"confidence", wire::number_or_null(e.confidence)},
              {"windows", g.windows},
              {"periodic_windows", g.periodic_windows},
              {"parts_pct", std::move(parts)},
              {"compute_pct", scaled(e.compute_ratio, core::kPercent)},
              {"communication_pct", scaled(e.communication_ratio, core::kPercent)},
              {"exposed_communication_pct", scaled(e.exposed_communication_ratio, core::kPercent)},
              {"communication_offset_ms", scaled(e.communication_offset_s, 1e3)},
              {"note", e.note.empty() ? Json(nullptr) : Json(std::string(e.note))}};
}

auto gpu_json(const GpuSteps& g) -> Json {
  Json out{{"index", g.device},
           {"label", g.label},
           {"source", std::string(to_string(g.source))},
           {"note", g.note.empty() ? Json(nullptr) : Json(g.note)}};
  if (g.source == StepSource::KernelLog) put_kernel_steps(out, g);
  out["from_samples"] = g.source == StepSource::Samples ? samples_json(g) : Json(nullptr);
  return out;
}

auto rank_json(const core::RankSteps& r, std::uint32_t device) -> Json {
  return Json{{"index", device},
              {"label", r.rank},
              {"iteration_ms", wire::number_or_null(r.iteration_s * 1e3)},
              {"compute_ms", wire::number_or_null(r.compute_s * 1e3)},
              {"communication_ms", wire::number_or_null(r.communication_s * 1e3)},
              {"exposed_communication_ms", wire::number_or_null(r.exposed_communication_s * 1e3)}};
}

}  // namespace

auto training_steps_json(const TrainingSteps& steps) -> nlohmann::ordered_json {
  Json out{{"markers_recorded", steps.markers_recorded}, {"markers", steps.markers}};
  Json gpus = Json::array();
  for (const auto& g : steps.gpus) gpus.push_back(gpu_json(g));
  out["gpus"] = std::move(gpus);
  out["rank_source"] = steps.ranks.empty() ? Json(nullptr) : Json(std::string(to_string(steps.rank_source)));
  Json ranks = Json::array();
  for (std::size_t i = 0; i < steps.ranks.size(); ++i)
    ranks.push_back(rank_json(steps.ranks[i], steps.rank_devices[i]));
  out["ranks"] = std::move(ranks);
  if (steps.verdict) {
    const auto& v = *steps.verdict;
    out["straggler"] = Json{{"index", steps.rank_devices[v.straggler]},
                            {"label", steps.ranks[v.straggler].rank},
                            {"spread_pct", wire::number_or_null(v.spread_pct)},
                            {"iteration_spread_pct", wire::number_or_null(v.iteration_spread_pct)}};
  } else {
    out["straggler"] = nullptr;
  }
  return out;
}

}  // namespace solscope::report
