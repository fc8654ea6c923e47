#include "cli/config/option_table.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ceiling/capacity.hpp"
#include "ceiling/serving.hpp"
#include "ceiling/workload.hpp"
#include "core/duration.hpp"
#include "core/pm_yield.hpp"
#include "core/units.hpp"
#include "fleet/prometheus_fleet.hpp"
#include "runtime/options.hpp"
#include "server/server.hpp"
#include "sources/dcgm/dcgm_exporter_source.hpp"

namespace solscope::app::config {
namespace {

/// The whole of `text` as a double (from_chars: also "nan", "inf", "-1", "1e3"); nullopt otherwise.
auto parse_number(std::string_view text) -> std::optional<double> {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

auto number(double v) -> std::string {
  return fmt::format("{}", v);
}
auto integer(std::int64_t v) -> std::string {
  return std::to_string(v);
}
auto listen_default() -> std::string {
  return std::string(server::kDefaultListenHost) + ":" + std::to_string(server::kDefaultDaemonPort);
}

/// The fastest replay: trace seconds per second.
constexpr double kMaxReplaySpeed = 1000.0;
/// --tokens-per-s: above any measured speed of one model (1e12 tokens/s).
constexpr double kMaxTokensPerS = 1e12;
/// `check --seconds`: a phase keeps samples after its two 100 ms ramp edges (kRampEdgeNs) from 0.5 s on.
constexpr double kMinCheckSeconds = 0.5;
constexpr double kMaxCheckSeconds = 60.0;
/// `fleet --since`: 1 min (4 steps of 15 s) to 90 days; `--refresh` up to 1 h; `--gpu-limit` up to 1,000,000.
constexpr double kMinFleetWindowS = 60.0;
constexpr double kMaxFleetWindowS = 90.0 * 86400.0;
constexpr double kMaxFleetRefreshS = 3600.0;
constexpr double kMaxFleetGpus = 1e6;
constexpr auto kMs = static_cast<double>(core::kNsPerMs);
constexpr auto kS = static_cast<double>(core::kNsPerS);

/// The Prometheus options, one definition for `fleet` and for `serve --prometheus`: kind, default, range and
/// sources are the same for both (one SOLSCOPE_PROMETHEUS_* variable each); only the words differ, `serve`
/// reading them as an optional extra ("with --prometheus: ...") and `fleet` as what the command is about.
auto prometheus_options(Scope scope) -> std::vector<OptionSpec> {
  const bool serve = scope == Scope::Serve;
  return {
      {.name = "--prometheus",
       .scope = scope,
       .kind = Kind::Text,
       .help =
           serve ? "also serve the fleet view (/api/v1/fleet, /fleet.html) read from this Prometheus server "
                   "(http:// or https:// URL)"
                 : "Prometheus server URL (http[s]://HOST:PORT[/PREFIX])",
       .from_config = true},
      {.name = "--selector",
       .scope = scope,
       .kind = Kind::Text,
       .help = serve ? "with --prometheus: PromQL label matchers of the fleet's series, e.g. {cluster=\"a\"}"
                     : "PromQL label matchers added to every query, e.g. '{cluster=\"a\"}'",
       .default_text = "all series",
       .from_config = true},
      {.name = "--since",
       .scope = scope,
       .kind = Kind::Duration,
       .help = serve ? "with --prometheus: the fleet view's window, ending now"
                     : "window of the means and busy-idle hours, ending now",
       .default_text = format_duration(kDefaultFleetWindowNs),
       .min = kMinFleetWindowS * kS,
       .max = kMaxFleetWindowS * kS,
       .from_config = true},
      {.name = "--prometheus-token-file",
       .scope = scope,
       .kind = Kind::Text,
       .help = "with --prometheus: file holding the bearer token sent to Prometheus",
       .from_env = true,
       .from_config = true},
      {.name = "--prometheus-ca",
       .scope = scope,
       .kind = Kind::Text,
       .help = "with --prometheus: PEM file of the CA that signed an https:// Prometheus' certificate",
       .default_text = "the system's CAs",
       .from_env = true,
       .from_config = true},
  };
}

auto global_options() -> std::vector<OptionSpec> {
  using enum Kind;
  const std::string dcgm_interval = format_duration(sources::kDcgmMinIntervalNs);
  return {
      {"--config", Scope::Global, Text, "TOML file of option defaults, read when it exists",
       "$XDG_CONFIG_HOME/solscope/config.toml or ~/.config/solscope/config.toml", 0, 0, true, false},
      {"--devices", Scope::Global, DeviceList, "GPU indices to sample, e.g. 0,2 or 0-3", "all", 0, 0, true,
       true},
      {"--interval", Scope::Global, Duration, "sampling interval", format_duration(kDefaultIntervalNs),
       static_cast<double>(core::kMinSampleIntervalNs), static_cast<double>(core::kMaxSampleIntervalNs), true,
       true},
      {"--json", Scope::Global, Flag, "print JSON Lines of SOL samples on stdout", "", 0, 0, true, true},
      {"--replay", Scope::Global, Text, "sample from a recorded trace instead of the GPUs", "", 0, 0, true,
       true},
      {"--workloads", Scope::Global, Text, "TOML file of [[workload]] declarations",
       "~/.config/solscope/workloads.toml", 0, 0, true, true},
      {"--no-workloads", Scope::Global, Flag, "no workload discovery and no attainable SOL", "", 0, 0, true,
       true},
      {"--job-mapping-dir", Scope::Global, Text,
       "directory of dcgm-exporter-style job mapping files: a file per GPU index (0, 1, ...) whose lines are "
       "the IDs of the jobs on that GPU (the workload's hpc_job)",
       "", 0, 0, true, true},
      {"--connect", Scope::Global, Text, "show a running `solscope serve` (HOST:PORT)", "", 0, 0, true, true},
      {"--dcgm-exporter", Scope::Global, Text,
       "read the GPUs from NVIDIA dcgm-exporter at this URL (e.g. http://127.0.0.1:9400/metrics) instead of "
       "their counters, where DCGM profiling holds them; --interval " +
           dcgm_interval + " or more (default " + dcgm_interval + " with it)",
       "", 0, 0, true, true},
      {"--dcgm-exporter-token-file", Scope::Global, Text, "file holding a bearer token for --dcgm-exporter",
       "", 0, 0, true, true},
      {"--dcgm-exporter-ca", Scope::Global, Text, "PEM file of the CA that signed an https --dcgm-exporter",
       "the system's CAs", 0, 0, true, true},
      {"--pm-policy", Scope::Global, Text,
       "yield: give the GPU counters to a profiler (ncu, nsys, DCGM profiling) while it runs; hold: keep "
       "them (a manual pause still works); never: no PM sampling (GPM or NVML only)",
       std::string(core::to_string(core::PmPolicy::kYield)), 0, 0, true, true},
  };
}

auto serve_options() -> std::vector<OptionSpec> {
  using enum Kind;
  std::vector<OptionSpec> rows{
      {"--listen", Scope::Serve, Text, "ADDRESS:PORT to listen on (port 0 = any free port)", listen_default(),
       0, 0, true, true},
      {"--token-file", Scope::Serve, Text, "file holding the bearer token (required off loopback)", "", 0, 0,
       true, true},
      {"--tls-cert", Scope::Serve, Text, "PEM certificate: serve HTTPS (with --tls-key)", "", 0, 0, true,
       true},
      {"--tls-key", Scope::Serve, Text, "PEM private key of --tls-cert", "", 0, 0, true, true},
      {"--hostname", Scope::Serve, Text,
       "the `hostname` label and API host: in Kubernetes the node's name (gethostname() is the pod's), so "
       "that it joins dcgm-exporter's label",
       "this machine's host name", 0, 0, true, true},
      {"--max-clients", Scope::Serve, Integer, "concurrent live-stream clients",
       integer(server::kDefaultMaxStreamClients), 1, static_cast<double>(server::kMaxStreamClientsLimit),
       true, true},
      {"--client-queue", Scope::Serve, Integer, "events queued per stream client",
       integer(server::kDefaultStreamQueueEvents), 1, static_cast<double>(server::kMaxStreamQueueEvents),
       true, true},
      {"--max-connections", Scope::Serve, Integer, "connections served at once, streams included",
       integer(server::kDefaultMaxConnections), 1, static_cast<double>(server::kMaxConnectionsLimit), true,
       true},
      {"--max-connections-per-address", Scope::Serve, Integer,
       "open connections per client address; 429 beyond", integer(server::kDefaultMaxConnectionsPerAddress),
       1, static_cast<double>(server::kMaxConnectionsLimit), true, true},
      {"--speed", Scope::Serve, Number, "with --replay: 1 = real time, 0 = as fast as possible", "1", 0,
       kMaxReplaySpeed, false, true},
      {"--loop", Scope::Serve, Flag, "with --replay: start again at the end", "", 0, 0, false, true},
  };
  for (OptionSpec& row : prometheus_options(Scope::Serve)) rows.push_back(std::move(row));
  return rows;
}

/// The options of record, replay, report, run and import.
auto trace_options() -> std::vector<OptionSpec> {
  using enum Kind;
  return {
      {"--duration", Scope::Record, Duration, "stop after this long, e.g. 30s or 5m", "until stopped", kMs,
       static_cast<double>(core::kMaxDurationNs), false, false},
      {"--speed", Scope::Record, Number, "with --replay: 1 = real time, 0 = as fast as possible", "1", 0,
       kMaxReplaySpeed, false, true},

      {"--speed", Scope::Replay, Number, "1 = real time, 0 = as fast as possible", "1, or 0 with --json", 0,
       kMaxReplaySpeed, false, true},
      {"--loop", Scope::Replay, Flag, "start again at the end", "", 0, 0, false, true},

      {"--html", Scope::Report, Text, "also write the report as one self-contained HTML page to this file",
       "", 0, 0, false, false},
      {"--force", Scope::Report, Flag, "replace an existing --html file", "", 0, 0, false, false},
      {"--output", Scope::Run, Text, "keep the trace in this file", "a temporary trace, removed at the end",
       0, 0, false, false},
      {"--force", Scope::Run, Flag, "replace an existing --output or --html file", "", 0, 0, false, false},
      {"--html", Scope::Run, Text, "also write the HTML report to this file", "", 0, 0, false, false},
      {"--no-kernels", Scope::Run, Flag, "no kernel log (no injection library in the command)", "", 0, 0,
       false, true},

      {"--output", Scope::Import, Text, "the trace to write", "", 0, 0, false, false},
      {"--from", Scope::Import, Text,
       "the recording's format: dcgm-exporter, prometheus-json, dcgmi-dmon, nvidia-smi-dmon or nsys-sqlite",
       "detected from the content", 0, 0, false, false},
      {"--delay", Scope::Import, Duration,
       "collection interval of a log without timestamps (dmon -d), and the span of a single scrape or "
       "instant query",
       format_duration(kDefaultImportDelayNs), kMs, static_cast<double>(core::kNsPerHour), false, true},
      {"--force", Scope::Import, Flag, "replace an existing --output file", "", 0, 0, false, false},
  };
}

auto ceiling_options() -> std::vector<OptionSpec> {
  using enum Kind;
  return {
      {"--tp", Scope::Ceiling, Integer, "tensor-parallel degree", "1", 1, ceiling::kMaxTensorParallel},
      {"--batch", Scope::Ceiling, Integer, "requests per step, or sequences per training step", "1", 1,
       static_cast<double>(ceiling::kMaxBatch)},
      {"--context", Scope::Ceiling, Integer, "tokens already in each request's KV cache", "0", 0,
       static_cast<double>(ceiling::kMaxTokens)},
      {"--prompt", Scope::Ceiling, Integer, "new tokens per request for prefill, sequence length for train",
       "0", 0, static_cast<double>(ceiling::kMaxTokens)},
      {"--sm-clock-mhz", Scope::Ceiling, Number, "SM clock for the peaks", "the datasheet's",
       ceiling::kMinSmClockMhz, ceiling::kMaxSmClockMhz},
      {"--isl", Scope::Ceiling, Integer, "with --serve: prompt tokens per request", "1024", 1,
       static_cast<double>(ceiling::kMaxServeSequenceTokens)},
      {"--osl", Scope::Ceiling, Integer, "with --serve: generated tokens per request", "256", 1,
       static_cast<double>(ceiling::kMaxServeSequenceTokens)},
      {.name = "--concurrency",
       .scope = Scope::Ceiling,
       .kind = Integer,
       .help = "with --serve: requests in flight, or max: the most output tokens/s that fits in memory",
       .default_text = "64",
       .min = 1,
       .max = static_cast<double>(ceiling::kMaxBatch),
       .word = kConcurrencyMax},
      {"--max-tpot-ms", Scope::Ceiling, Number,
       "with --serve: choose the concurrency with the most output tokens/s whose TPOT (time per output "
       "token) "
       "stays within this many ms",
       "", ceiling::kMinLatencyLimitS * core::kKilo, ceiling::kMaxLatencyLimitS * core::kKilo},
      {"--max-ttft-ms", Scope::Ceiling, Number,
       "with --serve: choose the concurrency with the most output tokens/s whose TTFT (time to first token) "
       "stays within this many ms",
       "", ceiling::kMinLatencyLimitS * core::kKilo, ceiling::kMaxLatencyLimitS * core::kKilo},
      {.name = "--sweep",
       .scope = Scope::Ceiling,
       .kind = Integer,
       .help = "with --serve: a table over concurrency from 1 to the memory limit (geometric), of this many "
               "points",
       .default_text = integer(ceiling::kDefaultSweepPoints),
       .min = ceiling::kMinSweepPoints,
       .max = ceiling::kMaxSweepPoints,
       .value_optional = true},
      {"--html", Scope::Ceiling, Text,
       "with --sweep: also write the sweep as one self-contained HTML page (throughput against "
       "interactivity) "
       "to this file",
       "", 0, 0},
      {"--force", Scope::Ceiling, Flag, "replace an existing --html file", "", 0, 0},
      {"--max-batched-tokens", Scope::Ceiling, Integer,
       "with --serve: token budget per step (vLLM --max-num-batched-tokens)",
       "vLLM serve's: 8192 on GPUs of 70 GiB or more except A100, else 2048", 1,
       static_cast<double>(ceiling::kMaxBatchedTokens)},
      {"--tokens-per-s", Scope::Ceiling, Number, "a measured speed of the whole TP group, for its MFU", "", 0,
       kMaxTokensPerS},
      {"--ep", Scope::Ceiling, Integer,
       "expert-parallel degree: routed experts split whole over this many GPUs", "1", 1,
       ceiling::kMaxExpertParallel},
      {"--dp-attention", Scope::Ceiling, Flag,
       "attention data-parallel across the EP group: ep / tp ranks, each with its share of the requests", "",
       0, 0},
      {"--pp", Scope::Ceiling, Integer, "pipeline-parallel stages (layers split)", "1", 1,
       ceiling::kMaxPipelineParallel},
      {"--pp-microbatches", Scope::Ceiling, Integer, "microbatches per step under --pp", "the --pp degree", 1,
       ceiling::kMaxMicrobatches},
  };
}

auto fleet_options() -> std::vector<OptionSpec> {
  using enum Kind;
  std::vector<OptionSpec> rows = prometheus_options(Scope::Fleet);
  std::vector<OptionSpec> own{
      {"--refresh", Scope::Fleet, Duration, "time between fleet refreshes in the terminal view",
       format_duration(kDefaultFleetRefreshNs), kS, kMaxFleetRefreshS * kS, false, true},
      {"--at", Scope::Fleet, Text, "end of the window: Unix seconds or YYYY-MM-DDTHH:MM:SSZ", "now", 0, 0,
       false, false},
      {"--step-series", Scope::Fleet, Flag,
       "fetch every GPU's step series and reduce the window here, not in Prometheus (240x the data; checks)",
       "", 0, 0, false, false},
      {"--by", Scope::Fleet, Text,
       "roll the GPUs up by workload: namespace, pod or job (Slurm); prints a table (or --json) and exits",
       "one row per GPU", 0, 0, false, false},
      {"--job-label", Scope::Fleet, Text,
       "the Prometheus label that names a GPU's job for the iteration stragglers (pod, hpc_job, any label)",
       "namespace/pod, else the host", 0, 0, false, false},
      {"--gpu-limit", Scope::Fleet, Integer, "most GPUs read; past it whole hosts are left out, with a note",
       integer(static_cast<std::int64_t>(fleet::kDefaultGpuLimit)), 1, kMaxFleetGpus, false, true},
  };
  for (OptionSpec& row : own) rows.push_back(std::move(row));
  return rows;
}

auto check_options() -> std::vector<OptionSpec> {
  using enum Kind;
  return {
      {"--seconds", Scope::Check, Number, "length of each calibration phase in seconds", "2",
       kMinCheckSeconds, kMaxCheckSeconds, false, true},
      {"--source", Scope::Check, Text, "counter source to check: pm, gpm, nvml or all", "all", 0, 0, false,
       true},
      {"--output", Scope::Check, Text, "keep the check's trace in this SQLite file", "", 0, 0, false, false},
      {"--no-overhead", Scope::Check, Flag, "skip the sampling-overhead runs", "", 0, 0, false, true},
  };
}

/// `solscope profile pause|resume|status`: the daemon's PM pause (docs/http-api.md "/api/v1/profiling").
auto profile_options() -> std::vector<OptionSpec> {
  using enum Kind;
  return {
      {"--url", Scope::Profile, Text, "the daemon's URL (http[s]://HOST:PORT)", "http://" + listen_default(),
       0, 0, false, true},
      {"--token-file", Scope::Profile, Text, "file holding the daemon's bearer token (as serve's)", "", 0, 0,
       true, true},
      {"--for", Scope::Profile, Duration, "with pause: how long the pause lasts (it always ends)",
       format_duration(core::kDefaultPmPauseNs), kS, static_cast<double>(core::kMaxPmPauseNs), false, false},
      {"--devices", Scope::Profile, DeviceList, "with pause: GPU indices to pause, e.g. 0,2", "all", 0, 0,
       false, false},
      {"--json", Scope::Profile, Flag, "print the daemon's JSON answer (GET /api/v1/profiling's document)",
       "", 0, 0, false, false},
  };
}

auto build_table() -> std::vector<OptionSpec> {
  std::vector<OptionSpec> table;
  for (auto part : {global_options, serve_options, trace_options, ceiling_options, fleet_options,
                    check_options, profile_options}) {
    for (OptionSpec& row : part()) table.push_back(std::move(row));
  }
  return table;
}

auto range_text(const OptionSpec& spec) -> std::string {
  switch (spec.kind) {
    case Kind::Duration:
      return format_duration(static_cast<std::int64_t>(spec.min)) + " to " +
             format_duration(static_cast<std::int64_t>(spec.max));
    case Kind::Number:
    case Kind::Integer:
      return number(spec.min) + " to " + number(spec.max) +
             (spec.word.empty() ? std::string() : " or " + std::string(spec.word));
    default:
      return {};
  }
}

auto check_number(const OptionSpec& spec, std::string_view text) -> std::string {
  if (!spec.word.empty() && text == spec.word) return {};
  const std::string range = "give " + range_text(spec);
  const auto parsed = parse_number(text);
  if (!parsed) return "'" + std::string(text) + "' is not a number (" + range + ")";
  const double v = *parsed;
  if (!std::isfinite(v)) return std::string(text) + " is not a finite number (" + range + ")";
  if (v < 0) return std::string(text) + " is negative (" + range + ")";
  if (spec.kind == Kind::Integer && v != std::floor(v)) {
    return std::string(text) + " is not a whole number (" + range + ")";
  }
  if (v < spec.min || v > spec.max) return std::string(text) + " is out of range (" + range + ")";
  return {};
}

}  // namespace

auto option_table() -> std::span<const OptionSpec> {
  static const std::vector<OptionSpec> table = build_table();
  return table;
}

auto find_option(Scope scope, std::string_view name) -> const OptionSpec* {
  for (const OptionSpec& spec : option_table()) {
    if (spec.scope == scope && spec.name == name) return &spec;
  }
  return nullptr;
}

auto scope_name(Scope scope) -> std::string_view {
  switch (scope) {
    case Scope::Global:
      return "";
    case Scope::Serve:
      return "serve";
    case Scope::Record:
      return "record";
    case Scope::Replay:
      return "replay";
    case Scope::Ceiling:
      return "ceiling";
    case Scope::Check:
      return "check";
    case Scope::Report:
      return "report";
    case Scope::Run:
      return "run";
    case Scope::Import:
      return "import";
    case Scope::Fleet:
      return "fleet";
    case Scope::Profile:
      return "profile";
  }
  return "";
}

auto env_name(const OptionSpec& spec) -> std::string {
  std::string out = "SOLSCOPE_";
  for (char c : spec.name.substr(2)) out += c == '-' ? '_' : static_cast<char>(std::toupper(c));
  return out;
}

auto config_key(const OptionSpec& spec) -> std::string {
  const std::string key(spec.name.substr(2));
  return spec.scope == Scope::Global ? key : std::string(scope_name(spec.scope)) + "." + key;
}

auto help_text(const OptionSpec& spec) -> std::string {
  std::vector<std::string> notes;
  if (!spec.default_text.empty()) notes.push_back("default " + spec.default_text);
  if (const std::string range = range_text(spec); !range.empty()) notes.push_back(range);
  if (spec.from_config) notes.push_back("config " + config_key(spec));
  std::string out = spec.help;
  if (notes.empty()) return out;
  out += " (";
  for (std::size_t i = 0; i < notes.size(); ++i) out += (i == 0 ? "" : "; ") + notes[i];
  return out + ")";
}

auto parse_duration_value(const OptionSpec& spec, std::string_view text) -> core::Result<std::int64_t> {
  const std::string range = "give " + range_text(spec);
  auto ns = core::parse_duration_ns(text);
  if (!ns) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      ns.error().message + " (" + range + ", e.g. 100ms, 0.5s, 5m)");
  }
  if (static_cast<double>(*ns) < spec.min || static_cast<double>(*ns) > spec.max) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      std::string(text) + " is out of range (" + range + ")");
  }
  return *ns;
}

auto check_value(const OptionSpec& spec, std::string_view text) -> std::string {
  switch (spec.kind) {
    case Kind::Number:
    case Kind::Integer:
      return check_number(spec, text);
    case Kind::Duration: {
      auto ns = parse_duration_value(spec, text);
      return ns ? std::string() : ns.error().message;
    }
    case Kind::DeviceList: {
      auto list = parse_device_list(text);
      return list ? std::string() : list.error().message + " (" + list.error().hint + ")";
    }
    case Kind::Flag:
    case Kind::Text:
      return {};
  }
  return {};
}

}  // namespace solscope::app::config
