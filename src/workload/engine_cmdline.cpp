#include "workload/detail/engine_cmdline.hpp"

#include <algorithm>
#include <initializer_list>

#include "core/enum_table.hpp"
#include "core/text.hpp"
#include "workload/detail/file_read.hpp"
#include "workload/process_info.hpp"

namespace solscope::workload {
namespace {

// The TGI launcher's `--model-id` default (TGI docs, launcher arguments).
constexpr std::string_view kTgiDefaultModel = "bigscience/bloom-560m";

auto basename(std::string_view path) -> std::string_view {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

auto starts_with(std::string_view text, std::string_view prefix) -> bool {
  return text.substr(0, prefix.size()) == prefix;
}

/// The program a command runs: a script or executable (basename), or a Python module, and where its own
/// arguments start.
struct Program {
  std::string_view name;
  bool module = false;
  std::size_t rest = 0;
};

auto locate_program(const std::vector<std::string>& args) -> Program {
  if (args.empty()) return {};
  const std::string_view first = basename(args[0]);
  if (!starts_with(first, "python")) return {first, false, 1};
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "-m" && i + 1 < args.size()) return {args[i + 1], true, i + 2};
    if (starts_with(arg, "-m") && arg.size() > 2) return {arg.substr(2), true, i + 1};
    if (arg == "-c") return {};  // inline code: nothing to recognise
    if (arg == "-X" || arg == "-W") {
      ++i;
      continue;
    }
    if (!starts_with(arg, "-")) return {basename(arg), false, i + 1};
  }
  return {};
}

/// Reads options of the form `--name value` and `--name=value` from args[begin..].
class Options {
 public:
  Options(const std::vector<std::string>& args, std::size_t begin) : args_(args), begin_(begin) {}

  /// The value of the last occurrence of any of `names` (each spelled with dashes), or nullopt.
  [[nodiscard]] auto get(std::initializer_list<std::string_view> names) const -> std::optional<std::string> {
    std::optional<std::string> found;
    for (std::size_t i = begin_; i < args_.size(); ++i) {
      const Spelled o = spelled(args_[i]);
      if (!o.option || std::find(names.begin(), names.end(), o.name) == names.end()) continue;
      if (o.value) {
        found = std::string(*o.value);
      } else if (i + 1 < args_.size()) {
        found = args_[i + 1];
      }
    }
    return found;
  }

  /// Whether a boolean flag is on: its last occurrence among `names` or their `--no-` forms (argparse's
  /// BooleanOptionalAction, which vLLM uses) wins; `--name=false`/`=0` turns it off.
  [[nodiscard]] auto flag(std::initializer_list<std::string_view> names) const -> bool {
    bool on = false;
    for (std::size_t i = begin_; i < args_.size(); ++i) {
      Spelled o = spelled(args_[i]);
      const bool negated = starts_with(o.name, "--no-");
      if (negated) o.name = "--" + o.name.substr(5);
      if (!o.option || std::find(names.begin(), names.end(), o.name) == names.end()) continue;
      on = !negated && o.value != "false" && o.value != "False" && o.value != "0";
    }
    return on;
  }

 private:
  /// One argument split as an option: its name with dashes for underscores, and the value after `=`.
  struct Spelled {
    bool option = false;
    std::string name;
    std::optional<std::string_view> value;
  };

  static auto spelled(std::string_view arg) -> Spelled {
    if (!starts_with(arg, "-")) return {};
    const auto eq = arg.find('=');
    Spelled o{.option = true, .name = std::string(arg.substr(0, eq))};
    std::replace(o.name.begin(), o.name.end(), '_', '-');
    if (eq != std::string_view::npos) o.value = arg.substr(eq + 1);
    return o;
  }

 private:
  const std::vector<std::string>& args_;
  std::size_t begin_;
};

auto parse_bounded(const std::optional<std::string>& text, std::int64_t max) -> std::int64_t {
  std::int64_t value = 0;
  if (!text || !detail::parse_int(detail::trim(*text), 1, max, value)) return 0;
  return value;
}

auto parse_port(const std::optional<std::string>& text) -> std::optional<std::uint16_t> {
  const std::int64_t value = parse_bounded(text, 65535);
  if (value == 0) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

/// The first positional argument after `subcommand` at args[at], or empty.
auto positional_after(const std::vector<std::string>& args, std::size_t at, std::string_view subcommand)
    -> std::string {
  if (at >= args.size() || args[at] != subcommand) return {};
  if (at + 1 < args.size() && !starts_with(args[at + 1], "-")) return args[at + 1];
  return {};
}

auto vllm_launch(const std::vector<std::string>& args, std::size_t rest, bool serve) -> EngineLaunch {
  EngineLaunch out;
  out.engine = EngineKind::Vllm;
  out.entry_point = true;
  const Options options(args, rest);
  out.model = serve ? positional_after(args, rest, "serve") : std::string{};
  if (out.model.empty()) out.model = options.get({"--model"}).value_or("");
  out.served_model_name = options.get({"--served-model-name"}).value_or("");
  out.host = options.get({"--host"}).value_or("");
  out.port = parse_port(options.get({"--port"}));
  out.tensor_parallel =
      static_cast<int>(parse_bounded(options.get({"--tensor-parallel-size", "-tp"}), kMaxParallel));
  out.pipeline_parallel =
      static_cast<int>(parse_bounded(options.get({"--pipeline-parallel-size", "-pp"}), kMaxParallel));
  out.data_parallel =
      static_cast<int>(parse_bounded(options.get({"--data-parallel-size", "-dp"}), kMaxParallel));
  if (options.flag({"--enable-expert-parallel", "-ep"})) {
    // vLLM: "the EP size is automatically calculated" as TP x DP (Expert Parallel Deployment docs).
    const int dp = std::max(out.data_parallel, 1);
    out.expert_parallel = static_cast<int>(std::min<std::int64_t>(
        static_cast<std::int64_t>(std::max(out.tensor_parallel, 1)) * dp, kMaxParallel));
    out.dp_attention = dp > 1;
  }
  out.max_model_len = parse_bounded(options.get({"--max-model-len"}), kMaxContextTokens);
  out.max_batched_tokens = parse_bounded(options.get({"--max-num-batched-tokens"}), kMaxContextTokens);
  return out;
}

auto sglang_launch(const std::vector<std::string>& args, std::size_t rest) -> EngineLaunch {
  EngineLaunch out;
  out.engine = EngineKind::Sglang;
  out.entry_point = true;
  const Options options(args, rest);
  out.model = options.get({"--model-path", "--model"}).value_or("");
  out.served_model_name = options.get({"--served-model-name"}).value_or("");
  out.host = options.get({"--host"}).value_or("");
  out.port = parse_port(options.get({"--port"}));
  out.tensor_parallel = static_cast<int>(
      parse_bounded(options.get({"--tp-size", "--tensor-parallel-size", "--tp"}), kMaxParallel));
  out.pipeline_parallel = static_cast<int>(
      parse_bounded(options.get({"--pp-size", "--pipeline-parallel-size", "--pp"}), kMaxParallel));
  out.data_parallel = static_cast<int>(
      parse_bounded(options.get({"--dp-size", "--data-parallel-size", "--dp"}), kMaxParallel));
  out.expert_parallel = static_cast<int>(
      parse_bounded(options.get({"--ep-size", "--expert-parallel-size", "--ep"}), kMaxParallel));
  out.dp_attention = options.flag({"--enable-dp-attention"});
  out.max_model_len = parse_bounded(options.get({"--context-length"}), kMaxContextTokens);
  out.max_batched_tokens = parse_bounded(options.get({"--chunked-prefill-size"}), kMaxContextTokens);
  return out;
}

auto tgi_launch(const std::vector<std::string>& args, std::size_t rest,
                const std::vector<std::string>& environ) -> EngineLaunch {
  EngineLaunch out;
  out.engine = EngineKind::Tgi;
  out.entry_point = true;
  const Options options(args, rest);
  auto flag_or_env = [&](std::string_view flag, std::string_view env) -> std::optional<std::string> {
    if (auto value = options.get({flag})) return value;
    return env_value(environ, env);
  };
  out.model = flag_or_env("--model-id", "MODEL_ID").value_or(std::string(kTgiDefaultModel));
  out.host = options.get({"--hostname"}).value_or("");
  out.port = parse_port(flag_or_env("--port", "PORT"));
  out.tensor_parallel =
      static_cast<int>(parse_bounded(flag_or_env("--num-shard", "NUM_SHARD"), kMaxParallel));
  out.max_model_len = parse_bounded(flag_or_env("--max-total-tokens", "MAX_TOTAL_TOKENS"), kMaxContextTokens);
  out.max_batched_tokens =
      parse_bounded(flag_or_env("--max-batch-prefill-tokens", "MAX_BATCH_PREFILL_TOKENS"), kMaxContextTokens);
  return out;
}

}  // namespace

constexpr core::EnumNames<EngineKind, 4> kEngineNames({"none", "vLLM", "SGLang", "TGI"}, "none");

auto to_string(EngineKind engine) -> std::string_view {
  return kEngineNames(engine);
}

auto engine_from_string(std::string_view name) -> std::optional<EngineKind> {
  const std::string low = core::to_lower_ascii(name);
  if (low == "vllm") return EngineKind::Vllm;
  if (low == "sglang") return EngineKind::Sglang;
  if (low == "tgi") return EngineKind::Tgi;
  return std::nullopt;
}

constexpr core::EnumTable<EngineKind, std::uint16_t, 4> kDefaultPorts({0, 8000, 30000, 3000}, 0);

auto default_port(EngineKind engine) -> std::uint16_t {
  return kDefaultPorts(engine);
}

auto detect_engine(const std::vector<std::string>& args, const std::vector<std::string>& environ)
    -> EngineLaunch {
  if (args.empty()) return {};
  // Retitled workers: the whole title sits in args[0] (setproctitle overwrites the argument area).
  if (starts_with(args[0], "VLLM::")) return {.engine = EngineKind::Vllm};
  if (starts_with(args[0], "sglang::")) return {.engine = EngineKind::Sglang};
  const Program program = locate_program(args);
  if (program.name.empty()) return {};
  const bool next_is_serve = program.rest < args.size() && args[program.rest] == "serve";
  if (program.module) {
    if (program.name == "vllm.entrypoints.openai.api_server") return vllm_launch(args, program.rest, false);
    if (program.name == "vllm.entrypoints.cli.main" && next_is_serve)
      return vllm_launch(args, program.rest, true);
    if (program.name == "sglang.launch_server") return sglang_launch(args, program.rest);
    return {};
  }
  if (program.name == "vllm" && next_is_serve) return vllm_launch(args, program.rest, true);
  if (program.name == "sglang" && next_is_serve) return sglang_launch(args, program.rest + 1);
  if (program.name == "text-generation-launcher") return tgi_launch(args, program.rest, environ);
  if (program.name == "text-generation-server") {
    EngineLaunch shard{.engine = EngineKind::Tgi};
    shard.model = positional_after(args, program.rest, "serve");
    return shard;
  }
  return {};
}

}  // namespace solscope::workload
