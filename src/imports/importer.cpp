#include "imports/importer.hpp"

#include "core/dcgm_fields.hpp"
#include "core/text.hpp"
#include "imports/detail/dcgm_exporter_import.hpp"
#include "imports/detail/dcgmi_dmon.hpp"
#include "imports/detail/nvidia_smi_dmon.hpp"
#include "imports/detail/prometheus_json.hpp"
#include "imports/detail/text_lines.hpp"

namespace solscope::imports {
namespace {

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

auto line_matches(std::string_view head, ImportFormat& found) -> bool {
  bool matched = false;
  for_each_line(head, [&](std::size_t, std::string_view line) {
    const std::vector<std::string_view> words = split_words(line);
    if (words.empty()) return true;
    std::string_view first = words[0];
    const bool comment = first.front() == '#';
    if (comment) first.remove_prefix(1);
    const std::string_view second = first.empty() ? (words.size() > 1 ? words[1] : "") : first;
    if (comment && (second == "Entity" || second == "entity")) {
      found = ImportFormat::DcgmiDmon;
    } else if (comment && (second == "TYPE" || second == "HELP") && words.size() > 2 &&
               words[first.empty() ? 2 : 1].starts_with(core::kDcgmSeriesPrefix)) {
      found = ImportFormat::DcgmExporter;
    } else if (comment) {
      for (const std::string_view w : words) {
        if (w == "gpu" || w == "#gpu") found = ImportFormat::NvidiaSmiDmon;
      }
      if (found != ImportFormat::NvidiaSmiDmon) return true;
    } else if (words[0].starts_with(core::kDcgmSeriesPrefix)) {
      found = ImportFormat::DcgmExporter;
    } else {
      return true;
    }
    matched = true;
    return false;
  });
  return matched;
}

}  // namespace

auto detect_format(std::string_view head, std::string_view extension) -> std::optional<ImportFormat> {
  if (head.starts_with(kSqliteMagic)) return ImportFormat::NsysSqlite;
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && head[first] == '{') return ImportFormat::PrometheusJson;
  ImportFormat found = ImportFormat::DcgmExporter;
  if (line_matches(head, found)) return found;
  if (extension == "json") return ImportFormat::PrometheusJson;
  if (extension == "sqlite" || extension == "db") return ImportFormat::NsysSqlite;
  return std::nullopt;
}

namespace {

auto run_importer(std::string_view text, ImportFormat format, std::int64_t interval_ns)
    -> core::Result<Recording> {
  // Where the text of a file enters: ill-formed UTF-8 becomes U+FFFD once here, so every name and label an
  // importer takes from it is valid text (copied only when it needs a repair).
  std::string repaired;
  if (!core::is_valid_utf8(text)) {
    repaired = core::valid_utf8(text);
    text = repaired;
  }
  const DmonOptions dmon{.interval_ns = interval_ns, .start_ns = 0};
  switch (format) {
    case ImportFormat::DcgmExporter:
      return import_dcgm_exporter(text, interval_ns);
    case ImportFormat::PrometheusJson:
      return parse_prometheus_json(text, interval_ns);
    case ImportFormat::DcgmiDmon:
      return parse_dcgmi_dmon(text, dmon);
    case ImportFormat::NvidiaSmiDmon:
      return parse_nvidia_smi_dmon(text, dmon);
    case ImportFormat::NsysSqlite:
      break;
  }
  return core::fail(core::ErrorCode::InvalidArgument,
                    "an nsys-sqlite export is read from its file, not as text");
}

}  // namespace

auto import_text(std::string_view text, ImportFormat format, std::int64_t interval_ns)
    -> core::Result<Recording> {
  auto recording = run_importer(text, format, interval_ns);
  if (recording) check_domains(*recording);
  return recording;
}

auto streams_lines(ImportFormat format) -> bool {
  return format == ImportFormat::DcgmExporter || format == ImportFormat::DcgmiDmon ||
         format == ImportFormat::NvidiaSmiDmon;
}

auto import_lines(LineSource& lines, ImportFormat format, std::int64_t interval_ns, const SampleSink& sink)
    -> core::Result<Recording> {
  const DmonOptions dmon{.interval_ns = interval_ns, .start_ns = 0};
  RowSink rows(sink, interval_ns);
  core::Result<Recording> recording =
      core::fail(core::ErrorCode::InvalidArgument,
                 "the " + std::string(to_string(format)) + " importer reads a whole file, not lines");
  switch (format) {
    case ImportFormat::DcgmExporter:
      recording = stream_dcgm_exporter(lines, interval_ns, rows);
      break;
    case ImportFormat::DcgmiDmon:
      recording = stream_dcgmi_dmon(lines, dmon, rows);
      break;
    case ImportFormat::NvidiaSmiDmon:
      recording = stream_nvidia_smi_dmon(lines, dmon, rows);
      break;
    case ImportFormat::PrometheusJson:
    case ImportFormat::NsysSqlite:
      return recording;
  }
  if (!recording) return recording;
  if (auto done = rows.finish(); !done) return core::propagate(done);
  recording->span_single_ns.reset();  // spanned here
  recording->tally += rows.tally();
  return recording;
}

}  // namespace solscope::imports
