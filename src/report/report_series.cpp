#include "report/report_series.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "report/report_json.hpp"
#include "wire/json_number.hpp"

namespace solscope::report {
namespace {

constexpr float kUnknownF = std::numeric_limits<float>::quiet_NaN();

struct Bucket {
  std::int64_t t_ns = 0;
  core::WeightedMean compute, memory, util;
};

void push(Series& out, std::int64_t t_ns, float compute, float memory, float util) {
  out.t_ns.push_back(t_ns);
  out.compute_sol_pct.push_back(compute);
  out.memory_sol_pct.push_back(memory);
  out.gpu_util_pct.push_back(util);
}

void flush(Series& out, const Bucket& b) {
  push(out, b.t_ns, static_cast<float>(b.compute.value()), static_cast<float>(b.memory.value()),
       static_cast<float>(b.util.value()));
}

void merge_mean(core::WeightedMean& into, const core::WeightedMean& from) {
  into.weighted_sum += from.weighted_sum;
  into.weight += from.weight;
}

}  // namespace

auto downsample_series(std::span<const PhasePoint> points, std::size_t buckets) -> Series {
  const std::vector<SampleBin> bins = bins_of(points);
  return downsample_bins(bins, buckets);
}

auto downsample_bins(std::span<const SampleBin> bins, std::size_t buckets) -> Series {
  Series out;
  if (bins.empty() || buckets == 0) return out;
  const std::int64_t start_ns = bins.front().t_start_ns;
  std::int64_t end_ns = start_ns;
  for (const auto& b : bins) end_ns = std::max(end_ns, b.max_end_ns);
  const auto count = static_cast<std::int64_t>(buckets);
  const std::int64_t width_ns = std::max<std::int64_t>((end_ns - start_ns + count - 1) / count, 1);
  Bucket bucket;
  std::int64_t index = -1;
  std::int64_t previous_end_ns = start_ns;
  for (const auto& b : bins) {
    const std::int64_t at = std::clamp<std::int64_t>((b.t_start_ns - start_ns) / width_ns, 0, count - 1);
    if (at != index) {
      if (index >= 0) flush(out, bucket);
      if (index >= 0 && b.t_start_ns - previous_end_ns > width_ns) {
        push(out, previous_end_ns, kUnknownF, kUnknownF, kUnknownF);
      }
      bucket = Bucket{.t_ns = b.t_start_ns};
      index = at;
    }
    merge_mean(bucket.compute, b.compute);
    merge_mean(bucket.memory, b.memory);
    merge_mean(bucket.util, b.util);
    previous_end_ns = std::max(previous_end_ns, b.max_end_ns);
  }
  flush(out, bucket);
  return out;
}

auto series_json(const Series& series) -> nlohmann::ordered_json {
  nlohmann::ordered_json t = nlohmann::ordered_json::array();
  nlohmann::ordered_json compute = nlohmann::ordered_json::array();
  nlohmann::ordered_json memory = nlohmann::ordered_json::array();
  nlohmann::ordered_json util = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < series.t_ns.size(); ++i) {
    t.push_back(series.t_ns[i]);
    compute.push_back(wire::number_or_null(series.compute_sol_pct[i]));
    memory.push_back(wire::number_or_null(series.memory_sol_pct[i]));
    util.push_back(wire::number_or_null(series.gpu_util_pct[i]));
  }
  return nlohmann::ordered_json{{"t_ns", std::move(t)},
                                {"compute_sol_pct", std::move(compute)},
                                {"memory_sol_pct", std::move(memory)},
                                {"gpu_util_pct", std::move(util)}};
}

auto to_json_with_series(const Report& report) -> nlohmann::ordered_json {
  nlohmann::ordered_json out = to_json(report);
  auto& gpus = out["gpus"];
  for (std::size_t i = 0; i < report.gpus.size() && i < gpus.size(); ++i) {
    gpus[i]["series"] = series_json(report.gpus[i].series);
  }
  return out;
}

}  // namespace solscope::report
