#include "cli/ceiling/ceiling_command.hpp"
#include "attainable/model_config_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "ceiling/capacity.hpp"
#include "ceiling/ceiling.hpp"
#include "ceiling/default_gpu_specs.hpp"
#include "ceiling/serving.hpp"
#include "cli/ceiling/ceiling_capacity.hpp"
#include "cli/ceiling/ceiling_report.hpp"
#include "cli/ceiling/ceiling_serve_report.hpp"
#include "cli/config/bind.hpp"
#include "core/text.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "runtime/text_file.hpp"

namespace solscope::app {
namespace {

using core::ErrorCode;

auto usage(core::Error error) -> core::Unexpected<Failure> {
  return core::fail(Failure{std::move(error), kExitUsage});
}

auto usage(std::string message, std::string hint) -> core::Unexpected<Failure> {
  return usage(core::Error{ErrorCode::InvalidArgument, std::move(message), std::move(hint)});
}

auto file_error(core::Error error) -> core::Unexpected<Failure> {
  return core::fail(Failure{std::move(error), kExitFailure});
}

/// --model: a config.json, or a directory holding one (a Hugging Face snapshot folder).
auto resolve_config_path(const std::string& model) -> Outcome<std::filesystem::path> {
  if (model.empty()) return usage("--model is empty", "pass a config.json or a directory holding one");
  std::filesystem::path path(model);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    path /= "config.json";
    if (!std::filesystem::exists(path, ec)) {
      return file_error(core::Error{ErrorCode::NotFound, "no config.json in directory " + model,
                                    "pass the model's snapshot folder or its config.json"});
    }
  }
  return path;
}

auto load_database(const CeilingArgs& args) -> Outcome<ceiling::GpuDatabase> {
  if (args.gpu_specs.empty()) {
    auto db = ceiling::parse_gpu_database(ceiling::default_gpu_specs_json(), "built-in");
    if (!db) return core::fail(Failure{db.error(), kExitFailure});
    return std::move(*db);
  }
  auto text =
      read_text_file(args.gpu_specs, "GPU spec file", "pass a file in the format of data/gpu_specs.json");
  if (!text) return file_error(text.error());
  auto db = ceiling::parse_gpu_database(*text, args.gpu_specs);
  if (!db) return file_error(db.error());
  return std::move(*db);
}

auto list_names(const ceiling::GpuDatabase& db) -> std::string {
  std::string names;
  for (std::string_view name : ceiling::gpu_names(db)) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

auto resolve_gpu(const CeilingArgs& args, const ceiling::GpuDatabase& db)
    -> Outcome<const ceiling::GpuSpec*> {
  if (args.gpu == "auto") {
    if (!args.detect_gpu) {
      return core::fail(Failure{core::Error{ErrorCode::Unavailable, "--gpu auto needs a GPU",
                                            "pass --gpu NAME (one of " + list_names(db) + ")"},
                                kExitNoGpu});
    }
    auto name = args.detect_gpu();
    if (!name) return core::fail(Failure{name.error(), kExitNoGpu});
    auto gpu = ceiling::find_gpu(db, *name);
    if (!gpu) {
      return usage("the GPU found here ('" + *name + "') is not in the spec database",
                   "pass --gpu NAME (one of " + list_names(db) + "), or add it with --gpu-specs FILE");
    }
    return *gpu;
  }
  if (args.gpu.empty())
    return usage("--gpu is empty", "pass --gpu NAME (one of " + list_names(db) + ") or auto");
  auto gpu = ceiling::find_gpu(db, args.gpu);
  if (!gpu) return usage(gpu.error());
  return *gpu;
}

/// --dtype / --kv-dtype: "auto" or one of the given dtypes.
auto parse_dtype_flag(std::string_view flag, const std::string& value)
    -> Outcome<std::optional<ceiling::Dtype>> {
  if (value == "auto") return std::optional<ceiling::Dtype>{};
  const auto d = ceiling::dtype_from_string(value);
  using ceiling::Dtype;
  if (!d || (*d != Dtype::Bf16 && *d != Dtype::Fp16 && *d != Dtype::Fp32 && *d != Dtype::Fp8)) {
    return usage(std::string(flag) + " '" + value + "' is not a dtype the model runs",
                 "use auto, bf16, fp16, fp32 or fp8");
  }
  return std::optional<ceiling::Dtype>{d};
}

auto parse_phase(const std::string& value) -> Outcome<ceiling::Phase> {
  if (auto p = core::phase_from_string(value)) return *p;
  const std::vector<std::string> phases{"prefill", "decode", "train"};
  const std::string guess = closest_match(value, phases);
  return usage(
      "unknown --phase '" + value + "'",
      (guess.empty() ? std::string() : "did you mean '" + guess + "'? ") + "use prefill, decode or train");
}

/// --ep, --dp-attention, --pp, --pp-microbatches (ranges are checked by the option table and by
/// ceiling::parallel_layout, whose errors name the value).
void set_parallelism(const CeilingArgs& args, ceiling::Workload& w) {
  // Clamped only to what an int holds; parallel_layout() names an out-of-range value in its error.
  static constexpr std::int64_t kIntLimit = 1'000'000'000;
  auto narrow = [](std::int64_t v) { return static_cast<int>(std::clamp(v, -kIntLimit, kIntLimit)); };
  w.expert_parallel = narrow(args.ep);
  w.dp_attention = args.dp_attention;
  w.pipeline_parallel = narrow(args.pp);
  w.pp_microbatches = narrow(args.pp_microbatches);
}

auto make_workload(const CeilingArgs& args, ceiling::Phase phase) -> Outcome<ceiling::Workload> {
  if (args.tp < 1 || args.tp > ceiling::kMaxTensorParallel) {
    return usage("--tp " + std::to_string(args.tp) + " is out of range",
                 "use 1 to " + std::to_string(ceiling::kMaxTensorParallel) + " GPUs");
  }
  if (!std::isnan(args.sm_clock_mhz) &&
      !(args.sm_clock_mhz >= ceiling::kMinSmClockMhz && args.sm_clock_mhz <= ceiling::kMaxSmClockMhz)) {
    return usage("--sm-clock-mhz " + std::to_string(args.sm_clock_mhz) + " is out of range",
                 fmt::format("use {} to {}", ceiling::kMinSmClockMhz, ceiling::kMaxSmClockMhz));
  }
  if (!std::isnan(args.tokens_per_s) && !(args.tokens_per_s >= 0 && std::isfinite(args.tokens_per_s))) {
    return usage("--tokens-per-s must be a finite number >= 0", "give the measured tokens per second");
  }
  auto step = ceiling::make_step(phase, args.batch, args.context, args.prompt);
  if (!step) return usage(step.error());
  auto dtype = parse_dtype_flag("--dtype", args.dtype);
  if (!dtype) return core::propagate(dtype);
  auto kv = parse_dtype_flag("--kv-dtype", args.kv_dtype);
  if (!kv) return core::propagate(kv);
  ceiling::Workload w;
  w.step = std::move(*step);
  w.tensor_parallel = static_cast<int>(args.tp);
  w.dtype = *dtype;
  w.kv_dtype = *kv;
  w.sm_clock_mhz = args.sm_clock_mhz;
  set_parallelism(args, w);
  return w;
}

/// `--serve`: the steady-state serving mix (ceiling/serving.hpp) instead of one step.
auto run_serve(const CeilingArgs& args, const ceiling::GpuDatabase& db, const ceiling::GpuSpec& gpu,
               const ceiling::ModelArch& arch, const ceiling::Workload& base, const std::string& path,
               std::ostream& out) -> Outcome<void> {
  const ceiling::ServeTraffic traffic{args.isl, args.osl, args.concurrency, args.max_batched_tokens};
  auto result = ceiling::evaluate_serving(db, gpu, arch, base, traffic);
  if (!result) return usage(result.error());
  const ServeReportInput report{*result, gpu, arch, path};
  out << (args.json ? render_serve_json(report)
                    : core::terminal_safe(render_serve_text(report), core::LineBreaks::Keep));
  return {};
}

auto run(const CeilingArgs& args, std::ostream& out) -> Outcome<void> {
  auto phase = parse_phase(args.phase);
  if (!phase) return core::propagate(phase);
  if (args.serve && *phase != ceiling::Phase::Decode) {
    return usage("--serve models a mix of prefill and decode steps; it takes no --phase",
                 "drop --phase, or drop --serve to model one step");
  }
  if (auto checked = check_capacity_options(args); !checked) return checked;
  auto workload = make_workload(args, *phase);
  if (!workload) return core::propagate(workload);
  auto db = load_database(args);
  if (!db) return core::propagate(db);
  auto gpu = resolve_gpu(args, *db);
  if (!gpu) return core::propagate(gpu);
  auto path = resolve_config_path(args.model);
  if (!path) return core::propagate(path);
  auto arch = load_model_arch(*path, "pass a config.json or a directory holding one");
  if (!arch) return file_error(arch.error());
  if (args.serve && wants_capacity(args)) {
    return run_capacity(args, CapacityInput{*db, **gpu, *arch, *workload, path->string()}, out);
  }
  if (args.serve) return run_serve(args, *db, **gpu, *arch, *workload, path->string(), out);
  auto result = ceiling::evaluate(*db, **gpu, *arch, *workload);
  if (!result) return usage(result.error());
  const CeilingReportInput report{*result,    **gpu,        *arch,       path->string(),   *phase,
                                  args.batch, args.context, args.prompt, args.tokens_per_s};
  // The text names models and paths from config files: terminal_safe() keeps escapes off the terminal.
  out << (args.json ? render_ceiling_json(report)
                    : core::terminal_safe(render_ceiling_text(report), core::LineBreaks::Keep));
  return {};
}

}  // namespace

void add_ceiling_options(CLI::App& sub, CeilingArgs& args) {
  sub.add_option("--gpu", args.gpu, "GPU to model: a name such as H100-SXM5-80GB or A100, or auto")
      ->required();
  sub.add_option("--model", args.model, "the model's config.json, or a directory holding one")->required();
  using config::Scope;
  config::add_option(sub, Scope::Ceiling, "--tp", args.tp);
  sub.add_option("--phase", args.phase, "prefill, decode or train (default decode)");
  config::add_option(sub, Scope::Ceiling, "--batch", args.batch);
  config::add_option(sub, Scope::Ceiling, "--context", args.context);
  config::add_option(sub, Scope::Ceiling, "--prompt", args.prompt);
  sub.add_option("--dtype", args.dtype, "weights and GEMM math: auto (config.json), bf16, fp16, fp32, fp8");
  sub.add_option("--kv-dtype", args.kv_dtype, "KV-cache dtype: auto, bf16, fp16, fp32, fp8");
  config::add_option(sub, Scope::Ceiling, "--sm-clock-mhz", args.sm_clock_mhz);
  config::add_option(sub, Scope::Ceiling, "--tokens-per-s", args.tokens_per_s);
  config::add_option(sub, Scope::Ceiling, "--ep", args.ep);
  config::add_option(sub, Scope::Ceiling, "--dp-attention", args.dp_attention);
  config::add_option(sub, Scope::Ceiling, "--pp", args.pp);
  config::add_option(sub, Scope::Ceiling, "--pp-microbatches", args.pp_microbatches);
  sub.add_flag(
      "--serve", args.serve,
      "model steady-state serving (continuous batching, chunked prefill) instead of one --phase step");
  config::add_option(sub, Scope::Ceiling, "--isl", args.isl);
  config::add_option(sub, Scope::Ceiling, "--osl", args.osl);
  config::add_integer_or_word(sub, Scope::Ceiling, "--concurrency", args.concurrency, args.concurrency_max);
  config::add_option(sub, Scope::Ceiling, "--max-batched-tokens", args.max_batched_tokens);
  config::add_option(sub, Scope::Ceiling, "--max-tpot-ms", args.max_tpot_ms);
  config::add_option(sub, Scope::Ceiling, "--max-ttft-ms", args.max_ttft_ms);
  config::add_optional_integer(sub, Scope::Ceiling, "--sweep", args.sweep_points,
                               ceiling::kDefaultSweepPoints);
  sub.add_option("--gpu-specs", args.gpu_specs, "GPU spec file replacing the built-in data/gpu_specs.json");
  sub.add_flag("--json", args.json, "print JSON");
  sub.add_flag("--csv", args.csv, "with --sweep: print the sweep's table as CSV");
  config::add_option(sub, Scope::Ceiling, "--html", args.html);
  config::add_option(sub, Scope::Ceiling, "--force", args.force);
}

auto run_ceiling(const CeilingArgs& args, std::ostream& out, std::ostream& err) -> int {
  auto outcome = run(args, out);
  if (outcome) return kExitOk;
  print_error(err, outcome.error().error);
  return outcome.error().exit_code;
}

}  // namespace solscope::app
