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
#include "core/metric_domain.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"

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

/// What an import left out or made unknown, for the notes to the user (import_notes). Nothing is dropped
/// without a count here.
struct ImportTally {
  /// Samples dropped because their time repeats the previous sample of their GPU (the first is kept).
  std::size_t repeated_rows = 0;
  /// DCGM lines that gave a GPU's field a second, different value at one time (the first is kept).
  std::size_t repeated_values = 0;
  /// Lines skipped above a dmon log's first header: a shell prompt, the command line.
  std::size_t lines_above_header = 0;
  /// Values outside their metric's range (MetricDef::valid), or not numbers, made unknown (NaN, never 0).
  core::DomainTally out_of_domain;
};

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
  /// What was left out or made unknown on the way (import_notes says it).
  ImportTally tally;
  /// How the file was read where the user should know it (one sentence each, printed as notes): e.g. an
  /// instant-query answer imported as one sample per GPU.
  std::vector<std::string> notes;
};

/// The shared ordering rule of every import with timestamps. Sets each sample's t_start_ns to the t_end_ns of
/// the previous sample of the same device; the first sample of a device spans as long as the device's first
/// interval (or `single_ns` when it has one sample). A sample whose time equals the previous one of its
/// device (a repeated row) is dropped and counted in tally.repeated_rows. A sample earlier than the previous
/// one of its device means the order cannot be trusted: DataLoss naming the device and both times, and
/// nothing is changed. Keeps the order otherwise.
[[nodiscard]] auto span_from_previous(Recording& recording, std::int64_t single_ns) -> core::Result<void>;

/// The shared domain check of every import: each value outside its metric's range (core::domain_checked),
/// +-Inf included, becomes unknown and is counted in tally.out_of_domain.
void check_domains(Recording& recording);

/// One sentence per thing the import left out or made unknown (tally, unmapped columns excluded), for the
/// user: "2 rows dropped: their time repeats the previous row of their GPU (the first is kept)". Empty when
/// nothing was.
[[nodiscard]] auto import_notes(const Recording& recording) -> std::vector<std::string>;

/// True when the first non-empty line of `text` is a comment ('#') that names the data synthetic
/// ("# synthetic ..."), case-insensitive.
[[nodiscard]] auto declares_synthetic(std::string_view text) -> bool;

/// "line N: what" for errors that name a line (1-based).
[[nodiscard]] auto at_line(std::size_t line, std::string_view what) -> std::string;

}  // namespace solscope::imports
