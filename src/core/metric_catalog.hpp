// The metric catalog: one table that names every figure solscope samples, per chip and per source.
//
// Each `MetricDef` gives the snake_case name (unit in the name), a 5-character column label, the unit, its
// role in SOL (compute pipe, memory path, activity, interconnect, device state), the Prometheus family and
// scale to base units, a help sentence, the exact CUPTI PM-sampling counter name per chip family, the NVML
// GPM metric id, and the NVML call. The TUI columns, trace `metrics` table, JSON and /metrics are generated
// from it.
//
// Sources: CUPTI names from docs/design/cupti-pm-sampling.md section 3 (each family's set compiles to one
// pass with the CUDA 13.0 profiler host API; tests/sources/nvidia/cupti_config_test.cpp re-checks it); GPM
// ids from nvml.h `nvmlGpmMetricId_t` (NVML API 13, go-nvml gen/nvml/nvml.h), GPM rates there are MiB/s; NVML
// calls from the NVML API reference.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/chip.hpp"
#include "core/metric_id.hpp"

namespace solscope::core {

/// Unit of a metric's value in RawSample and SolSample.
enum class Unit : std::uint8_t { Percent, BytesPerSecond, Megahertz, Watts, Celsius, Bytes };

/// What a metric means for SOL.
enum class MetricRole : std::uint8_t {
  ComputePipe,   ///< `group` is a Pipe; the busiest pipe sets Compute SOL
  MemoryPath,    ///< `group` is a MemPath; the busiest path sets Memory SOL
  Activity,      ///< SM active, occupancy, GR active, classic utilization
  Interconnect,  ///< PCIe and NVLink byte rates
  DeviceState,   ///< clocks, power, temperature, memory
};

/// CUPTI PM-sampling counter names of one metric per chip family ("" = not available on that family). A name
/// made of several counters joined by '+' is their sum (NVLink request + response bytes on GH100).
struct CuptiNames {
  std::string_view ga100;
  std::string_view ga10x;
  std::string_view gh100;
  std::string_view gb100;
  std::string_view gb110;
  std::string_view gb20x;
};

/// The values a metric can take, in its unit, the tolerance for counter skew included. NaN, an infinity or a
/// number outside [min, max] is not a measurement: core::domain_checked (core/metric_domain.hpp) makes it
/// unknown wherever figures enter from outside (imports, the dcgm-exporter source).
struct ValueRange {
  double min = 0;  ///< smallest valid value
  double max = 0;  ///< largest valid value
};

/// How far a sampled percentage of peak may stray outside 0-100 % and still be a measurement: counter skew at
/// the edges of a short sample (docs/design/cupti-pm-sampling.md section 7) dips slightly below 0 and passes
/// 100 by up to half again (157 % SM active in tests/data/real/h100-proof/workload.sqlite). So -1 % to 200 %.
inline constexpr double kPercentToleranceBelow = 1.0;
inline constexpr double kPercentToleranceAbove = 100.0;
/// Percent of peak: 0-100 %, tolerance included (above).
inline constexpr ValueRange kPercentRange{-kPercentToleranceBelow, 100.0 + kPercentToleranceAbove};
/// Byte rates: 0 to 100 TB/s, over ten times the fastest path of any GPU (HBM3e about 8 TB/s, NVLink 5 1.8
/// TB/s).
inline constexpr ValueRange kByteRateRange{0.0, 1e14};
/// Clocks: 0 to 100,000 MHz (nvidia-smi counts GDDR7 memory clocks near 14,000 MHz).
inline constexpr ValueRange kClockRange{0.0, 1e5};
/// Board power and its limit: 0 to 10,000 W (a GPU board draws at most about 1,400 W today).
inline constexpr ValueRange kPowerRange{0.0, 1e4};
/// Die temperature: -50 to 200 C (GPUs shut down near 100 C).
inline constexpr ValueRange kTemperatureRange{-50.0, 200.0};
/// Device memory: 0 to 1 PiB (2^50 bytes; the largest GPU memory is 288 GB today).
inline constexpr ValueRange kMemoryBytesRange{0.0, 0x1p50};

/// One row of the catalog. All fields are compile-time constants.
struct MetricDef {
  MetricId id;
  std::string_view name;   ///< snake_case, unit suffix: "tensor_pipe_pct"
  std::string_view label;  ///< at most 5 characters, for table columns: "TENSR"
  Unit unit;
  MetricRole role;
  std::uint8_t group;          ///< Pipe (ComputePipe) or MemPath (MemoryPath) value; 0 otherwise
  std::string_view prom_name;  ///< Prometheus family in base units; pipes and paths share one family per role
  double prom_scale;      ///< value x prom_scale = Prometheus base unit (0.01: % -> ratio; 1e6: MHz -> Hz)
  std::string_view help;  ///< one sentence: what it measures and where it comes from
  CuptiNames cupti;       ///< PM-sampling counter names per family
  std::uint16_t gpm_metric_id;  ///< nvmlGpmMetricId_t, 0 = none
  double gpm_scale;             ///< GPM value x gpm_scale = this metric's unit (MiB/s -> B/s: 1048576)
  std::string_view nvml_query;  ///< the NVML call that yields it, "" = none
  ValueRange valid;             ///< the values it can take, tolerance included (ValueRange)
};

/// The whole catalog, indexed by MetricId (row i has id i).
/// Prometheus names of the two SOL series solscope exports per GPU (src/server, 0-1 of peak) and the fleet
/// view reads back (src/fleet); the other series take their names from the catalog's prom_name.
inline constexpr std::string_view kPromComputeSolName = "solscope_compute_sol_ratio";
inline constexpr std::string_view kPromMemorySolName = "solscope_memory_sol_ratio";

[[nodiscard]] auto metric_catalog() -> std::span<const MetricDef>;

/// The row of one metric.
[[nodiscard]] auto metric_def(MetricId id) -> const MetricDef&;

/// The id of a metric by its catalog name, or MetricId::kCount if there is none.
[[nodiscard]] auto metric_by_name(std::string_view name) -> MetricId;

/// The counter name(s) of a metric on a family; "" when unavailable or for ChipFamily::Unknown.
[[nodiscard]] auto cupti_counter(const MetricDef& def, ChipFamily family) -> std::string_view;

/// Lowercase unit name: "pct", "bytes_per_s", "mhz", "w", "c", "bytes".
[[nodiscard]] auto to_string(Unit unit) -> std::string_view;

}  // namespace solscope::core
