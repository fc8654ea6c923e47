#include "trace/export.hpp"

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <ostream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/metric_catalog.hpp"
#include "core/sol_terms.hpp"
#include "wire/sample_json.hpp"

namespace solscope::trace {
namespace {

constexpr std::string_view kCsvFixedColumns =
    "device,uuid,t_start_ns,t_end_ns,source,flags,compute_sol_pct,compute_pipe,memory_sol_pct,memory_path,"
    "bound,"
    "dram_bytes_per_s,attainable_compute_sol_pct,attainable_memory_sol_pct,pm_pause,gpu,parent_uuid,mig_"
    "profile,"
    "mig_instance_id";

/// The first characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection": `=`, `+`,
/// `-`, `@`, tab and carriage return).
constexpr std::string_view kCsvFormulaStarts = "=+-@\t\r";

/// Rows are written to the stream in chunks of about this many bytes.
constexpr std::size_t kChunkBytes = 1 << 16;

/// True when `text` is a whole finite number as a spreadsheet reads one ("-5", "+1.5e3"): such a cell is
/// data, not a formula.
auto is_number(std::string_view text) -> bool {
  const std::string copy(text);
  char* end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  return !copy.empty() && end == copy.c_str() + copy.size() && std::isfinite(v) &&
         copy.find_first_of(" \t\r\n") == std::string::npos;
}

}  // namespace

void append_csv_cell(std::string& line, std::string_view text) {
  const bool formula =
      !text.empty() && kCsvFormulaStarts.find(text.front()) != std::string_view::npos && !is_number(text);
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos;
  if (quote) line += '"';
  if (formula) line += '\'';
  if (!quote) {
    line += text;
    return;
  }
  for (const char c : text) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

namespace {

void append_number(std::string& line, double v) {
  if (!std::isnan(v)) fmt::format_to(std::back_inserter(line), "{}", v);
}

template <class Enum>
void append_name(std::string& line, Enum value, Enum none) {
  if (value != none) append_csv_cell(line, core::to_string(value));
}

/// The device's MIG columns: ",gpu,parent_uuid,mig_profile,mig_instance_id" (empty cells when unknown or a
/// whole GPU; gpu is core::DeviceInfo::gpu_number(), the physical GPU).
void append_device_columns(std::string& line, const core::DeviceInfo* device) {
  if (device == nullptr) {
    line += ",,,,";
    return;
  }
  fmt::format_to(std::back_inserter(line), ",{},", device->gpu_number());
  append_csv_cell(line, device->parent_uuid);
  line += ',';
  append_csv_cell(line, device->mig_profile);
  line += ',';
  if (device->mig_instance_id >= 0) fmt::format_to(std::back_inserter(line), "{}", device->mig_instance_id);
}

void append_csv_row(std::string& line, const core::SolSample& s, const core::DeviceInfo* device) {
  fmt::format_to(std::back_inserter(line), "{},", s.device_index);
  if (device != nullptr) append_csv_cell(line, device->uuid);
  fmt::format_to(std::back_inserter(line), ",{},{},", s.t_start_ns, s.t_end_ns);
  append_csv_cell(line, core::to_string(s.source));
  fmt::format_to(std::back_inserter(line), ",{},", s.flags);
  append_number(line, s.compute_sol_pct);
  line += ',';
  append_name(line, s.compute_pipe, core::Pipe::kCount);
  line += ',';
  append_number(line, s.memory_sol_pct);
  line += ',';
  append_name(line, s.memory_path, core::MemPath::kCount);
  line += ',';
  append_csv_cell(line, core::to_string(s.bound));
  for (const double v : {s.dram_bytes_per_s, s.attainable_compute_sol_pct, s.attainable_memory_sol_pct}) {
    line += ',';
    append_number(line, v);
  }
  line += ',';
  append_name(line, s.pm_pause, core::PmPauseReason::kNone);
  append_device_columns(line, device);
  for (const core::MetricDef& def : core::metric_catalog()) {
    line += ',';
    append_number(line, s.metrics[core::index_of(def.id)]);
  }
  line += '\n';
}

auto flush_chunk(std::ostream& out, std::string& chunk) -> bool {
  out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  chunk.clear();
  return static_cast<bool>(out);
}

auto stream_failed(const Reader& reader, std::string_view format) -> core::Error {
  return core::Error{core::ErrorCode::Unavailable,
                     "cannot write the " + std::string(format) + " export of trace " +
                         reader.path().string() + ": the output stream failed",
                     "check free space and that the output is writable"};
}

/// Streams every selected sample through `row` into `out`, chunked.
template <class RowFn>
auto export_rows(const Reader& reader, std::ostream& out, const ReadOptions& options, std::string chunk,
                 std::string_view format, const RowFn& row) -> core::Result<ReadSummary> {
  bool stream_ok = true;
  auto summary = reader.for_each_sol(options, [&](const core::SolSample& s) {
    row(chunk, s, reader.device(s.device_index));
    if (chunk.size() >= kChunkBytes) stream_ok = flush_chunk(out, chunk);
    return stream_ok;
  });
  if (stream_ok) stream_ok = flush_chunk(out, chunk);
  if (!summary) return summary;
  if (!stream_ok) return core::fail(stream_failed(reader, format));
  return summary;
}

}  // namespace

auto export_csv(const Reader& reader, std::ostream& out, const ReadOptions& options)
    -> core::Result<ReadSummary> {
  std::string header(kCsvFixedColumns);
  for (const core::MetricDef& def : core::metric_catalog()) {
    header += ',';
    header += def.name;
  }
  header += '\n';
  return export_rows(reader, out, options, std::move(header), "CSV", append_csv_row);
}

auto export_jsonl(const Reader& reader, std::ostream& out, const ReadOptions& options)
    -> core::Result<ReadSummary> {
  return export_rows(reader, out, options, std::string{}, "JSON Lines",
                     [](std::string& chunk, const core::SolSample& s, const core::DeviceInfo* device) {
                       wire::append_sol_sample_json(chunk, s, device);
                       chunk += '\n';
                     });
}

}  // namespace solscope::trace
