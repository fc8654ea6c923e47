// What every importer of `solscope import` produces: the devices and raw samples of one recording, and the
// facts about it that the trace's meta table keeps (format, SOL definition, synthetic or measured).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/device_info.hpp"
#include "core/metric_domain.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "imports/line_source.hpp"

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

  auto operator+=(const ImportTally& other) -> ImportTally& {
    repeated_rows += other.repeated_rows;
    repeated_values += other.repeated_values;
    lines_above_header += other.lines_above_header;
    out_of_domain += other.out_of_domain;
    return *this;
  }
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
  /// start): samples are placed from 0 and the caller shifts them to the file's time
  /// (`solscope import`: the last sample ends at the file's modification time).
  bool relative_times = false;
  /// Columns or series the importer does not map, and how many values each had (for a note to the user).
  std::map<std::string, std::size_t> unmapped;
  /// What was left out or made unknown on the way (import_notes says it).
  ImportTally tally;
  /// How the file was read where the user should know it (one sentence each, printed as notes): e.g. an
  /// instant-query answer imported as one sample per GPU.
  std::vector<std::string> notes;
  /// The rows carry only their end time: each sample spans from the previous one of its device
  /// (span_from_previous, a device's first sample as long as its first interval or this many ns). nullopt:
  /// the rows carry their spans. Set by the streaming importers, which hand rows on before spanning them.
  std::optional<std::int64_t> span_single_ns;
};

/// Gets each sample of a streamed import as it is read; an error stops the import and becomes its result.
using SampleSink = std::function<core::Result<void>(const core::RawSample&)>;

/// span_from_previous() for a stream: each sample goes on to `sink` as soon as its span is known. A device's
/// first sample waits for the first later one of that device (its first interval), so at most one sample per
/// device is held; finish() hands on those still waiting (spanning `single_ns`), by device index. The spans
/// and the ordering rule are span_from_previous()'s: a repeated time is dropped and counted in
/// `tally.repeated_rows`; a time earlier than the previous one of its device is DataLoss.
class SpanFromPrevious {
 public:
  SpanFromPrevious(std::int64_t single_ns, SampleSink sink, ImportTally& tally)
      : single_ns_(single_ns), sink_(std::move(sink)), tally_(&tally) {}
  /// Takes the next sample (t_end_ns set; t_start_ns is set here). Errors: DataLoss when its time goes back
  /// (the order cannot be trusted); the sink's.
  [[nodiscard]] auto add(core::RawSample sample) -> core::Result<void>;
  /// Hands on the first samples still waiting. Errors: the sink's.
  [[nodiscard]] auto finish() -> core::Result<void>;

 private:
  struct Device {
    std::optional<core::RawSample> first;  ///< its first sample, until its first interval is known
    std::int64_t previous_end_ns = 0;
    std::size_t rows = 0;  ///< samples of the device so far
  };
  std::int64_t single_ns_;
  SampleSink sink_;
  ImportTally* tally_;
  std::unordered_map<std::uint32_t, Device> devices_;
};

/// Where a streaming importer hands its rows. A row with its span goes straight to the sink. A row with only
/// its end time (t_end_ns; the importer sets Recording::span_single_ns) goes through SpanFromPrevious when
/// the RowSink streams spans, or on as it is, for span_from_previous() over the whole recording afterwards
/// (the in-memory import, whose sample order stays the file's). Every row passes the shared domain check
/// (core::check_domain) here, counted in tally().
class RowSink {
 public:
  /// `span_ns`: set = stream the spans (a device's only sample spans span_ns); nullopt = leave them.
  RowSink(SampleSink sink, std::optional<std::int64_t> span_ns);
  RowSink(const RowSink&) = delete;
  auto operator=(const RowSink&) -> RowSink& = delete;
  /// A row with its span. Errors: the sink's.
  [[nodiscard]] auto spanned(const core::RawSample& row) -> core::Result<void>;
  /// A row with only its end time. Errors: the sink's.
  [[nodiscard]] auto unspanned(const core::RawSample& row) -> core::Result<void>;
  /// Hands on the rows still waiting for their span. Errors: the sink's.
  [[nodiscard]] auto finish() -> core::Result<void>;
  /// What the domain check and the spans left out so far.
  [[nodiscard]] auto tally() const -> const ImportTally& { return tally_; }

 private:
  SampleSink sink_;
  ImportTally tally_;
  std::optional<SpanFromPrevious> spans_;
};

/// The end of an in-memory import (import_dcgm_exporter, parse_*_dmon): moves `samples` into `recording`,
/// adds `rows`' tally to its own and, when the rows carry only their end time (span_single_ns), spans them
/// with span_from_previous(). Errors: `recording`'s; span_from_previous()'s.
[[nodiscard]] auto collected(core::Result<Recording> recording, std::vector<core::RawSample> samples,
                             const RowSink& rows) -> core::Result<Recording>;

/// The sink of an in-memory import: appends each sample to `samples`.
[[nodiscard]] auto collect_into(std::vector<core::RawSample>& samples) -> SampleSink;

/// Tells from the first non-empty lines whether a file declares itself synthetic, as declares_synthetic()
/// does for a whole text: feed it lines until decided() is true.
class SyntheticMark {
 public:
  void see(std::string_view line);
  [[nodiscard]] auto decided() const -> bool { return decided_; }
  [[nodiscard]] auto synthetic() const -> bool { return synthetic_; }

 private:
  bool decided_ = false;
  bool synthetic_ = false;
};

/// The read loop of every streaming importer: hands each line of `lines` (with its 1-based number) to
/// `on_line` until the end, the source's first error or `on_line`'s, and shows each to `mark` first.
/// Errors: the source's (LineSource::next) and `on_line`'s.
[[nodiscard]] auto read_lines(LineSource& lines, SyntheticMark& mark,
                              const std::function<core::Result<void>(std::size_t, std::string_view)>& on_line)
    -> core::Result<void>;

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
