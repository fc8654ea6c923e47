// PM-sampling configuration on the host side: from a CUPTI chip name and the metric catalog to the counter
// list, the profiler host object (also the evaluator of decoded samples) and the one-pass config image.
//
// Works without a GPU or driver: cuptiProfilerHostInitialize takes a chip name (doc section 1.3 and 8), which
// is what tests/sources/nvidia/cupti_config_test.cpp uses to check every chip's counter set. Only host-side
// CUPTI is called here. Source: docs/design/cupti-pm-sampling.md sections 1.3, 2 and 3.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/chip.hpp"
#include "core/metric_id.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"

namespace solscope::nvidia {

struct CuptiApi;

/// The CUPTI counters to configure, one entry per counter name, each with the catalog metric its value adds
/// to. A catalog name joined with '+' gives several entries for one metric; their values are summed.
struct PmCounterPlan {
  std::vector<std::string> counter_names;       ///< exact CUPTI metric names, e.g. "dram__throughput.avg..."
  std::vector<core::MetricId> counter_metrics;  ///< same length: the metric each counter feeds
};

/// The counters of every catalog metric that has a name for `family` (core::cupti_counter), in catalog order;
/// empty for ChipFamily::Unknown. Pure.
[[nodiscard]] auto pm_counter_plan(core::ChipFamily family) -> PmCounterPlan;

/// Splits a catalog counter field on '+' ("a+b" -> {"a", "b"}); empty parts are dropped. Pure.
[[nodiscard]] auto split_counter_names(std::string_view joined) -> std::vector<std::string>;

/// Writes evaluated counter values into `sample`: each planned metric becomes the sum of its counters' values
/// (NaN if any part is NaN); metrics outside the plan are left as they are. `values` has one entry per
/// plan.counter_names (shorter spans leave the remaining metrics untouched). Pure.
void add_counter_values(const PmCounterPlan& plan, std::span<const double> values, core::RawSample& sample);

/// How strict PmConfig::create is about counter names.
struct PmConfigOptions {
  /// Drop names libcupti rejects (ConfigAddMetrics fails: INVALID_PARAMETER in CUPTI 13.0,
  /// INVALID_METRIC_NAME in older releases; the culprits are found one by one as XLA does) and configure the
  /// rest; dropped_counters() lists them. When false, any invalid name is an error.
  bool drop_invalid_counters = true;
};

/// A profiler host object with its one-pass PM-sampling config image. Move-only RAII: destruction calls
/// cuptiProfilerHostDeinitialize. The config image buffer lives as long as this object and is never rewritten
/// (CUPTI keeps the pointer passed to cuptiPmSamplingSetConfig: doc section 1.3), so keep the PmConfig alive
/// until cuptiPmSamplingDisable. Not thread-safe.
class PmConfig {
 public:
  /// Builds the config for `plan` on `chip_name` ("GH100"): cuptiProfilerHostInitialize with
  /// CUPTI_PROFILER_TYPE_PM_SAMPLING (and `counter_availability` when not empty), ConfigAddMetrics,
  /// GetConfigImageSize/GetConfigImage, GetNumOfPasses. Errors: Unimplemented (unknown chip name, no valid
  /// counter, or more than one pass: the message names the chip and the pass count), InvalidArgument (invalid
  /// counter names when not dropping; the message lists them), Internal (another CUPTI failure, named).
  [[nodiscard]] static auto create(std::shared_ptr<const CuptiApi> api, std::string chip_name,
                                   PmCounterPlan plan, std::vector<std::uint8_t> counter_availability = {},
                                   PmConfigOptions options = {}) -> core::Result<PmConfig>;

  /// create() with pm_counter_plan(core::chip_family(chip_name)). Unimplemented for chips without a counter
  /// set.
  [[nodiscard]] static auto for_chip(std::shared_ptr<const CuptiApi> api, std::string chip_name,
                                     std::vector<std::uint8_t> counter_availability = {},
                                     PmConfigOptions options = {}) -> core::Result<PmConfig>;

  PmConfig(PmConfig&& other) noexcept;
  auto operator=(PmConfig&& other) noexcept -> PmConfig&;
  PmConfig(const PmConfig&) = delete;
  auto operator=(const PmConfig&) -> PmConfig& = delete;
  ~PmConfig();

  [[nodiscard]] auto chip_name() const -> const std::string&;
  /// The configured counters (the requested plan minus dropped_counters()).
  [[nodiscard]] auto plan() const -> const PmCounterPlan&;
  /// Names libcupti rejected and that were left out.
  [[nodiscard]] auto dropped_counters() const -> std::span<const std::string>;
  /// The config image for cuptiPmSamplingSetConfig; stable address for the life of this object.
  [[nodiscard]] auto config_image() const -> std::span<const std::uint8_t>;
  /// Passes the config needs: always 1 for a created PmConfig.
  [[nodiscard]] auto num_passes() const -> std::size_t;
  /// plan().counter_names as the `const char**` array CUPTI takes (ppMetricNames/pMetricNames); CUPTI only
  /// reads it. Stable for the life of this object.
  [[nodiscard]] auto counter_name_array() const -> const char**;

  /// Evaluates every planned counter of sample `sample_index` of a decoded counter-data image with ONE call
  /// of cuptiProfilerHostEvaluateToGpuValues; `values` must hold plan().counter_names.size() doubles. Errors:
  /// InvalidArgument (wrong `values` size), Internal (CUPTI failure, named).
  [[nodiscard]] auto evaluate(std::span<const std::uint8_t> counter_data, std::size_t sample_index,
                              std::span<double> values) const -> core::Result<void>;

 private:
  struct Impl;
  explicit PmConfig(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// One counter name checked on its own against a chip (for tests and `solscope devices --metrics`).
struct PmCounterCheck {
  std::string name;
  bool valid = false;      ///< ConfigAddMetrics accepted it
  std::size_t passes = 0;  ///< passes it needs alone; 0 when invalid
  std::string error;       ///< CUPTI's error for an invalid name
};

/// Checks each name alone in a fresh host object for `chip_name` (what XLA does to find bad names), with the
/// device's counter availability image when one is given (cuptiPmSamplingGetCounterAvailability: a counter
/// the device cannot give there, such as NVLink on a GPU without links, is then invalid too). Errors:
/// Unimplemented (chip unknown to this libcupti), Internal (other CUPTI failures).
[[nodiscard]] auto check_counters(const std::shared_ptr<const CuptiApi>& api, std::string_view chip_name,
                                  std::span<const std::string> names,
                                  std::span<const std::uint8_t> availability = {})
    -> core::Result<std::vector<PmCounterCheck>>;

/// Passes that `names` together need on `chip_name` (no limit; used to probe alternatives). Errors as
/// check_counters, plus InvalidArgument when a name is invalid.
[[nodiscard]] auto count_passes(const std::shared_ptr<const CuptiApi>& api, std::string_view chip_name,
                                std::span<const std::string> names) -> core::Result<std::size_t>;

}  // namespace solscope::nvidia
