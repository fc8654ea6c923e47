// What every importer of `solscope import` produces: the devices and raw samples of one recording, and the
// facts about it that the trace's meta table keeps (format, SOL definition, synthetic or measured).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.hpp"
#include "core/raw_sample.hpp"

namespace solscope::imports {

/// The formats `solscope import` reads (`--from NAME`).
enum class ImportFormat : std::uint8_t {
  DcgmExporter,    ///< "dcgm-exporter": dcgm-exporter's text exposition, one scrape or many with timestamps
  PrometheusJson,  ///< "prometheus-json": a saved /api/v1/query_range (matrix) or /api/v1/query (vector)
                   ///< answer
  DcgmiDmon,       ///< "dcgmi-dmon": the text `dcgmi dmon -e ...` prints
  NvidiaSmiDmon,   ///< "nvidia-smi-dmon": the text `nvidia-smi dmon [--gpm-metrics ...]` prints
  NsysSqlite,      ///< "nsys-sqlite": `nsys export --type sqlite` of a report with GPU metrics sampling
};

/// "dcgm-exporter", "prometheus-json", "dcgmi-dmon", "nvidia-smi-dmon", "nsys-sqlite".
[[nodiscard]] auto to_string(ImportFormat format) -> std::string_view;
/// Inverse of to_string; nullopt for any other name.
[[nodiscard]] auto import_format_from_string(std::string_view name) -> std::optional<ImportFormat>;
/// Every format name, comma-separated, for messages: "dcgm-exporter, prometheus-json, ...".
[[nodiscard]] auto import_format_names() -> std::string;

/// One imported recording.
struct Recording {
  std::vector<core::DeviceInfo> devices;  ///< index 0, 1, ... in first-seen order
  std::vector<core::RawSample> samples;   ///< per device in time order; t_start_ns < t_end_ns
  /// How Compute and Memory SOL follow from what the format holds (meta sol_definition).
  std::string sol_definition;
  /// The file itself says it is generated (a leading "# synthetic" comment line): meta synthetic = 1.
  bool synthetic = false;
  /// The format carries no wall-clock time (a dmon log without Date/Time, an nsys export without its session
  /// start): samples are placed from 0 and the caller shifts them (imports::shift_times) to the file's time.
  bool relative_times = false;
  /// Columns or series the importer does not map, and how many values each had (for a note to the user).
  std::map<std::string, std::size_t> unmapped;
  /// How the file was read where the user should know it (one sentence each, printed as notes): e.g. an
  /// instant-query answer imported as one sample per GPU.
  std::vector<std::string> notes;
};

/// Sets each sample's t_start_ns to the t_end_ns of the previous sample of the same device; the first
/// sample of a device spans as long as the device's first interval (or `single_ns` when it has one sample).
/// Samples whose span would not be positive (a repeated timestamp) are dropped. Keeps the order otherwise.
void span_from_previous(std::vector<core::RawSample>& samples, std::int64_t single_ns);

/// True when the first non-empty line of `text` is a comment ('#') that names the data synthetic
/// ("# synthetic ..."), case-insensitive.
[[nodiscard]] auto declares_synthetic(std::string_view text) -> bool;

/// "line N: what" for errors that name a line (1-based).
[[nodiscard]] auto at_line(std::size_t line, std::string_view what) -> std::string;

}  // namespace solscope::imports
