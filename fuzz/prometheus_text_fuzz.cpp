// libFuzzer target: the Prometheus text reader (net/prometheus_text.hpp) and what discovery does with a
// serving engine's /metrics (workload/live_shape.hpp).
//
// The input holds two scrapes separated by the first NUL byte (the previous one, then the current one; no
// NUL: the same text twice). Each is parsed whole and with each engine's wanted series; the counters of both
// feed the live shape and the step it suggests, as discovery does every refresh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "net/prometheus_text.hpp"
#include "workload/detail/live_shape.hpp"

namespace {

using namespace solscope::workload;
using solscope::net::Combine;
using solscope::net::combine_series;
using solscope::net::find_series;
using solscope::net::parse_prometheus_text;
using solscope::net::PromSample;
using solscope::net::PromText;

void check_engine(EngineKind engine, std::string_view previous_text, std::string_view current_text) {
  const auto wanted = metric_names(engine);
  const PromText previous = parse_prometheus_text(previous_text, wanted);
  const PromText current = parse_prometheus_text(current_text, wanted);
  const EngineCounters before = read_engine_counters(engine, previous.samples, 100.0);
  const EngineCounters after = read_engine_counters(engine, current.samples, 105.0);
  for (const EngineCounters* prior : {static_cast<const EngineCounters*>(nullptr), &before}) {
    const LiveShape live = compute_live_shape(after, prior);
    (void)suggest_shape(live);
  }
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find('\0');
  const std::string_view previous = input.substr(0, split);
  const std::string_view current = split == std::string_view::npos ? input : input.substr(split + 1);

  const PromText all = parse_prometheus_text(current);
  if (!all.samples.empty()) {  // one name: all of them would make a long input quadratic
    const PromSample& sample = all.samples.front();
    (void)sample.label("tp_rank");
    (void)combine_series(all.samples, sample.name, Combine::Mean);
    (void)find_series(all.samples, sample.name);
  }
  for (const EngineKind engine : {EngineKind::Vllm, EngineKind::Sglang, EngineKind::Tgi}) {
    check_engine(engine, previous, current);
  }
  return 0;
}
