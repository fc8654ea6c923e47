// The option values that the sampling commands share and the runtime consumes (the source to open, its
// interval and devices, workload discovery). The command line (src/cli) binds them, parsed and range-checked
// once; the runtime and the attainable SOL read them typed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/pm_yield.hpp"
#include "runtime/options.hpp"

namespace solscope::app {

/// Options shared by the sampling commands (each also read from an environment variable SOLSCOPE_* and the
/// config file), parsed and range-checked once where they are bound (config/bind.hpp).
struct CommonOptions {
  std::vector<std::uint32_t> devices;  ///< --devices / SOLSCOPE_DEVICES "0,2" or "0-3": sorted; empty = all
  /// --interval / SOLSCOPE_INTERVAL: sampling interval in ns, 1 ms to 60 s; empty when no layer gives one:
  /// the source's default then applies (sampling_interval_ns(), source_factory.hpp).
  std::optional<std::int64_t> interval_ns;
  bool json = false;          ///< --json: JSON Lines of SolSamples on stdout
  std::string replay;         ///< --replay FILE / SOLSCOPE_REPLAY: sample from a trace instead of the GPUs
  std::string dcgm_exporter;  ///< --dcgm-exporter URL: scrape dcgm-exporter instead of the GPUs
  std::string dcgm_exporter_token_file;  ///< --dcgm-exporter-token-file FILE: its bearer token
  std::string dcgm_exporter_ca;          ///< --dcgm-exporter-ca FILE: PEM CA of an https exporter
  /// --pm-policy yield|hold|never / SOLSCOPE_PM_POLICY: whether PM sampling gives the counters to a profiler
  /// on this node (yield), keeps them (hold, a manual pause still works) or is never used (never: GPM or
  /// NVML only; source_config_from). Live NVIDIA sources only (docs/design/sol-metrics.md "Pause states").
  core::PmPolicy pm_policy = core::PmPolicy::kYield;
};

/// Workload discovery and the attainable SOL it feeds (README "Attainable SOL and workloads"); live sources
/// only.
struct WorkloadOptions {
  /// --workloads FILE / SOLSCOPE_WORKLOADS: a TOML file of `[[workload]]` declarations; empty = the default
  /// $XDG_CONFIG_HOME/solscope/workloads.toml (or ~/.config/solscope/workloads.toml) when it exists.
  std::string file;
  bool disabled = false;  ///< --no-workloads: no discovery and no attainable SOL
  /// --job-mapping-dir DIR / SOLSCOPE_JOB_MAPPING_DIR: dcgm-exporter-style job mapping files (a file per GPU
  /// index, a job ID per line), the GPU's Slurm job (workload::read_job_mapping); empty = none.
  std::string job_mapping_dir;
};

}  // namespace solscope::app
