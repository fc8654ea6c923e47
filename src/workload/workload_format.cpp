// Workload records and their text: the per-GPU results of discovery and `solscope devices --workloads`.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "workload/detail/engine_layout.hpp"
#include "workload/detail/engine_state.hpp"

namespace solscope::workload {
namespace {

constexpr std::size_t kMaxCommandChars = 100;

auto shorten(const std::string& text) -> std::string {
  if (text.size() <= kMaxCommandChars) return text;
  return text.substr(0, kMaxCommandChars - 3) + "...";
}

auto engine_status(const detail::EngineState& state, const std::string& model) -> std::string {
  const std::string engine(to_string(state.launch.engine));
  if (state.endpoint_ok) {
    return fmt::format("found {} serving {} on :{}", engine, model.empty() ? "an unnamed model" : model,
                       state.port);
  }
  if (!state.launch.entry_point) {
    return fmt::format("{} process {} found, but not its API server or launcher (parent not visible)", engine,
                       state.pid);
  }
  if (model.empty()) {
    return fmt::format("{} (pid {}) found, but its endpoint did not answer: {}", engine, state.pid,
                       state.probe_problem);
  }
  return fmt::format("{} (pid {}) serves {} per its command line, but its endpoint did not answer: {}",
                     engine, state.pid, model, state.probe_problem);
}

auto tensor_parallel_of(const detail::EngineState& state, std::size_t gpu_count) -> int {
  if (state.endpoint_ok && state.endpoint.tensor_parallel > 0) return state.endpoint.tensor_parallel;
  if (state.launch.tensor_parallel > 0) return state.launch.tensor_parallel;
  // vLLM's --tensor-parallel-size and SGLang's --tp-size default to 1; TGI shards over every visible GPU.
  if (state.launch.entry_point && state.launch.engine != EngineKind::Tgi) return 1;
  return static_cast<int>(gpu_count);
}

auto process_line(const ProcessInfo& p) -> std::string {
  std::string line =
      fmt::format("  process {} ({})", p.pid, p.user.empty() ? std::string("user unknown") : p.user);
  // Appends, not " " + std::string: g++ 12 -O3 flags that with a false -Wrestrict (GCC bug 105329).
  if (p.command.empty()) {
    line += " command unreadable";
  } else {
    line += ' ';
    line += shorten(p.command);
  }
  if (!p.container_id.empty()) line += " container " + p.container_id.substr(0, 12);
  if (!p.pod_uid.empty()) line += " pod " + p.pod_uid;
  if (!p.problems.empty()) {
    line += " [";
    for (std::size_t i = 0; i < p.problems.size(); ++i) line += (i == 0 ? "" : "; ") + p.problems[i];
    line += "]";
  }
  return line + "\n";
}

auto live_line(const LiveShape& live) -> std::string {
  auto number = [](double value, const char* unit) {
    return std::isfinite(value) ? fmt::format("{:.1f} {}", value, unit) : fmt::format("n/a {}", unit);
  };
  return fmt::format("  live: {}, {}; {}, {}; KV {}; mean context {}\n",
                     number(live.running_requests, "running"), number(live.waiting_requests, "waiting"),
                     number(live.prompt_tokens_per_s, "prompt tok/s"),
                     number(live.generation_tokens_per_s, "generated tok/s"), number(live.kv_usage_pct, "%"),
                     number(live.mean_context_tokens, "tokens"));
}

auto serve_text(const ServeShape& serve, std::int64_t budget, const LiveShape& live) -> std::string {
  std::string text =
      fmt::format("isl {} osl {} concurrency {}, token budget {}", serve.input_tokens, serve.output_tokens,
                  serve.concurrency, budget > 0 ? std::to_string(budget) : std::string("engine default"));
  if (std::isfinite(live.engine_flops_per_s)) {
    text += fmt::format("; engine FLOP estimate {:.1f} TFLOP/s per GPU", live.engine_flops_per_s / 1e12);
  }
  return text;
}

auto shape_text(const WorkloadShape& shape) -> std::string {
  return fmt::format("{} batch {} context {} prompt {}", to_string(shape.phase), shape.batch, shape.context,
                     shape.prompt);
}

}  // namespace

namespace detail {

auto gpu_list(std::span<const std::uint32_t> gpus) -> std::string {
  std::string out;
  for (const std::uint32_t gpu : gpus) out.append(out.empty() ? "" : ",").append(std::to_string(gpu));
  return out;
}

auto engine_workload(const EngineState& state, std::uint32_t gpu_index, std::vector<std::uint32_t> gpus,
                     std::vector<ProcessInfo> processes) -> Workload {
  Workload w;
  w.gpu_index = gpu_index;
  w.source = WorkloadSource::Discovered;
  w.engine = state.launch.engine;
  w.processes = std::move(processes);
  w.engine_pid = state.launch.entry_point ? state.pid : 0;
  w.host = state.host;
  w.port = state.port;
  w.endpoint_ok = state.endpoint_ok;
  w.served_name = state.endpoint_ok ? state.endpoint.served_name : state.launch.served_model_name;
  w.model = state.endpoint_ok && !state.endpoint.model.empty() ? state.endpoint.model : state.launch.model;
  w.config_path = state.config_path;
  w.config_problem = state.config_problem;
  EngineLaunch launch = state.launch;
  if (state.endpoint_ok) {
    if (state.endpoint.data_parallel > 0) launch.data_parallel = state.endpoint.data_parallel;
    if (state.endpoint.expert_parallel > 0) launch.expert_parallel = state.endpoint.expert_parallel;
    if (state.endpoint.pipeline_parallel > 0) launch.pipeline_parallel = state.endpoint.pipeline_parallel;
    if (state.endpoint.dp_attention) launch.dp_attention = *state.endpoint.dp_attention;
  }
  const EngineLayout layout = engine_layout(launch, tensor_parallel_of(state, gpus.size()));
  w.tensor_parallel = layout.tensor_parallel;
  w.expert_parallel = layout.expert_parallel;
  w.attention_dp = layout.attention_dp;
  w.pipeline_parallel = layout.pipeline_parallel;
  w.fallback_tensor_parallel = layout.fallback_tensor_parallel;
  w.layout_note = layout.note;
  w.max_model_len = state.endpoint_ok && state.endpoint.max_model_len > 0 ? state.endpoint.max_model_len
                                                                          : state.launch.max_model_len;
  w.live = state.live;
  w.metrics_problem = state.metrics_problem;
  if (state.endpoint_ok && state.metrics_problem.empty()) {
    w.shape = suggest_shape(state.live);
    w.serve = suggest_serve(state.live);
  }
  w.max_batched_tokens = state.launch.max_batched_tokens;
  w.status = engine_status(state, w.model);
  w.gpus = std::move(gpus);
  return w;
}

auto unknown_workload(std::uint32_t gpu_index, std::vector<ProcessInfo> processes) -> Workload {
  Workload w;
  w.gpu_index = gpu_index;
  w.gpus = {gpu_index};
  if (processes.empty()) {
    w.status = fmt::format("no processes on GPU {}", gpu_index);
    return w;
  }
  const ProcessInfo& first = processes.front();
  const std::string who = first.user.empty() ? std::string{} : " (" + first.user + ")";
  const std::string what =
      first.command.empty() ? std::string("an unreadable command") : shorten(first.command);
  w.status = fmt::format(
      "no serving engine: pid {}{} runs {}; declare the workload in the config file for a ceiling", first.pid,
      who, what);
  w.processes = std::move(processes);
  return w;
}

}  // namespace detail

auto format_workloads(std::span<const Workload> workloads) -> std::string {
  if (workloads.empty()) return "no GPUs\n";
  std::string out;
  for (const Workload& w : workloads) {
    out += fmt::format("GPU {}: {}\n", w.gpu_index, w.status);
    for (const ProcessInfo& p : w.processes) out += process_line(p);
    if (w.source == WorkloadSource::None) continue;
    std::string engine =
        w.engine == EngineKind::None ? std::string("engine unknown") : std::string(to_string(w.engine));
    if (w.engine_pid != 0) engine += fmt::format(" pid {}", w.engine_pid);
    if (w.tensor_parallel > 0) engine += fmt::format(", tp {}", w.tensor_parallel);
    if (w.expert_parallel > 1) engine += fmt::format(", ep {}", w.expert_parallel);
    if (w.attention_dp > 1) engine += fmt::format(", attention dp {}", w.attention_dp);
    if (w.pipeline_parallel > 1) engine += fmt::format(", pp {}", w.pipeline_parallel);
    engine += " on GPUs " + detail::gpu_list(w.gpus);
    if (w.max_model_len > 0) engine += fmt::format(", max_model_len {}", w.max_model_len);
    if (!w.served_name.empty() && w.served_name != w.model) engine += ", served as \"" + w.served_name + "\"";
    out += "  engine: " + engine + "\n";
    if (!w.layout_note.empty()) out += "  layout: " + w.layout_note + "\n";
    out += w.config_path.empty() ? "  config.json: not found: " + w.config_problem + "\n"
                                 : "  config.json: " + w.config_path + "\n";
    if (w.endpoint_ok) {
      out += w.metrics_problem.empty() ? live_line(w.live) : "  live: n/a: " + w.metrics_problem + "\n";
    }
    out += w.shape ? "  step shape: " + shape_text(*w.shape) + "\n"
                   : std::string("  step shape: n/a (idle or unknown)\n");
    if (w.serve) out += "  serving: " + serve_text(*w.serve, w.max_batched_tokens, w.live) + "\n";
  }
  return out;
}

}  // namespace solscope::workload
