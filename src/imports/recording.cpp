#include "imports/detail/recording.hpp"

#include "core/duration.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>

namespace solscope::imports {
namespace {

constexpr std::array kFormatNames{
    std::pair{ImportFormat::DcgmExporter, std::string_view("dcgm-exporter")},
    std::pair{ImportFormat::PrometheusJson, std::string_view("prometheus-json")},
    std::pair{ImportFormat::DcgmiDmon, std::string_view("dcgmi-dmon")},
    std::pair{ImportFormat::NvidiaSmiDmon, std::string_view("nvidia-smi-dmon")},
    std::pair{ImportFormat::NsysSqlite, std::string_view("nsys-sqlite")}};

/// The order of one device's samples as span_from_previous reads them.
struct DeviceOrder {
  std::int64_t first_end_ns = 0;
  std::int64_t last_end_ns = 0;
  std::int64_t first_gap_ns = 0;  ///< 0 until a later time shows
  std::size_t rows = 0;           ///< samples of the device so far
};

auto counted(std::uint64_t n, std::string_view noun) -> std::string {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

auto device_label(const Recording& recording, std::uint32_t index) -> std::string {
  if (index < recording.devices.size() && !recording.devices[index].name.empty()) {
    return recording.devices[index].name;
  }
  return "device " + std::to_string(index);
}

/// DataLoss: row `row` (1-based, of its device `label`) ends `back_ns` before the row read before it.
auto went_back(const std::string& label, std::size_t row, std::int64_t back_ns)
    -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::DataLoss,
                    label + ": its row " + std::to_string(row) + " is " + core::format_duration(back_ns) +
                        " earlier than row " + std::to_string(row - 1) +
                        ": the time goes back, so the order of the rows cannot be trusted",
                    "cut the recording where its time goes back (a clock change?) and import each part");
}

}  // namespace

auto to_string(ImportFormat format) -> std::string_view {
  for (const auto& [f, name] : kFormatNames) {
    if (f == format) return name;
  }
  return "unknown";
}

auto import_format_from_string(std::string_view name) -> std::optional<ImportFormat> {
  for (const auto& [f, n] : kFormatNames) {
    if (n == name) return f;
  }
  return std::nullopt;
}

auto import_format_names() -> std::string {
  std::string out;
  for (const auto& [f, name] : kFormatNames) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

auto span_from_previous(Recording& recording, std::int64_t single_ns) -> core::Result<void> {
  std::vector<core::RawSample>& samples = recording.samples;
  // First pass: the order check, and each device's first interval (gap between its first two times).
  std::unordered_map<std::uint32_t, DeviceOrder> order;
  for (const core::RawSample& s : samples) {
    auto [it, fresh] = order.try_emplace(s.device_index, DeviceOrder{s.t_end_ns, s.t_end_ns, 0, 0});
    DeviceOrder& o = it->second;
    ++o.rows;
    if (fresh) continue;
    if (s.t_end_ns < o.last_end_ns)
      return went_back(device_label(recording, s.device_index), o.rows, o.last_end_ns - s.t_end_ns);
    if (o.first_gap_ns == 0 && s.t_end_ns > o.first_end_ns) o.first_gap_ns = s.t_end_ns - o.first_end_ns;
    o.last_end_ns = s.t_end_ns;
  }
  std::unordered_map<std::uint32_t, std::int64_t> previous_end;
  std::vector<core::RawSample> kept;
  kept.reserve(samples.size());
  for (core::RawSample& s : samples) {
    auto prev = previous_end.find(s.device_index);
    if (prev == previous_end.end()) {
      const std::int64_t gap = order.at(s.device_index).first_gap_ns;
      s.t_start_ns = s.t_end_ns - (gap == 0 ? single_ns : gap);
    } else {
      s.t_start_ns = prev->second;
    }
    if (s.t_end_ns <= s.t_start_ns) {  // the time repeats the previous one of this device
      ++recording.tally.repeated_rows;
      continue;
    }
    previous_end[s.device_index] = s.t_end_ns;
    kept.push_back(s);
  }
  samples = std::move(kept);
  return core::ok();
}

void check_domains(Recording& recording) {
  for (core::RawSample& s : recording.samples) core::check_domain(s, recording.tally.out_of_domain);
}

auto import_notes(const Recording& recording) -> std::vector<std::string> {
  const ImportTally& t = recording.tally;
  std::vector<std::string> notes;
  if (t.lines_above_header > 0) {
    notes.push_back(counted(t.lines_above_header, "line") +
                    " above the first header skipped (a shell prompt or the command line, not data)");
  }
  if (t.repeated_rows > 0) {
    notes.push_back(counted(t.repeated_rows, "row") +
                    " dropped: the time repeats the previous row of the same GPU (the first is kept)");
  }
  if (t.repeated_values > 0) {
    notes.push_back(counted(t.repeated_values, "line") +
                    " dropped: a second, different value of a GPU's field at the same time (the first is "
                    "kept)");
  }
  if (const std::uint64_t n = t.out_of_domain.total(); n > 0) {
    notes.push_back(
        counted(n, "value") +
        " outside the metric's range or not a number, made unknown (never 0): " + t.out_of_domain.describe());
  }
  return notes;
}

auto SpanFromPrevious::add(core::RawSample sample) -> core::Result<void> {
  auto [it, fresh] = devices_.try_emplace(sample.device_index);
  Device& d = it->second;
  ++d.rows;
  if (!fresh && sample.t_end_ns < d.previous_end_ns) {
    return went_back("GPU " + std::to_string(sample.device_index), d.rows,
                     d.previous_end_ns - sample.t_end_ns);
  }
  if (fresh) {
    d.first = sample;
    d.previous_end_ns = sample.t_end_ns;
    return core::ok();
  }
  if (sample.t_end_ns == d.previous_end_ns) {  // the time repeats the previous one of this device
    ++tally_->repeated_rows;
    return core::ok();
  }
  if (d.first) {
    core::RawSample first = *d.first;
    d.first.reset();
    first.t_start_ns = first.t_end_ns - (sample.t_end_ns - first.t_end_ns);
    if (auto ok = sink_(first); !ok) return ok;
  }
  sample.t_start_ns = d.previous_end_ns;
  d.previous_end_ns = sample.t_end_ns;
  return sink_(sample);
}

auto SpanFromPrevious::finish() -> core::Result<void> {
  std::vector<std::uint32_t> waiting;
  for (const auto& [device, d] : devices_) {
    if (d.first) waiting.push_back(device);
  }
  std::sort(waiting.begin(), waiting.end());
  for (const std::uint32_t device : waiting) {
    core::RawSample first = *devices_[device].first;
    devices_[device].first.reset();
    first.t_start_ns = first.t_end_ns - single_ns_;
    if (first.t_end_ns <= first.t_start_ns) {
      ++tally_->repeated_rows;
      continue;
    }
    if (auto ok = sink_(first); !ok) return ok;
  }
  return core::ok();
}

RowSink::RowSink(SampleSink sink, std::optional<std::int64_t> span_ns) : sink_(std::move(sink)) {
  if (span_ns) spans_.emplace(*span_ns, sink_, tally_);
}

auto RowSink::spanned(const core::RawSample& row) -> core::Result<void> {
  core::RawSample checked = row;
  core::check_domain(checked, tally_.out_of_domain);
  return sink_(checked);
}

auto RowSink::unspanned(const core::RawSample& row) -> core::Result<void> {
  core::RawSample checked = row;
  core::check_domain(checked, tally_.out_of_domain);
  return spans_ ? spans_->add(std::move(checked)) : sink_(checked);
}

auto collected(core::Result<Recording> recording, std::vector<core::RawSample> samples, const RowSink& rows)
    -> core::Result<Recording> {
  if (!recording) return recording;
  recording->samples = std::move(samples);
  recording->tally += rows.tally();
  if (const auto single_ns = recording->span_single_ns) {
    recording->span_single_ns.reset();
    if (auto spanned = span_from_previous(*recording, *single_ns); !spanned) return core::propagate(spanned);
  }
  return recording;
}

auto RowSink::finish() -> core::Result<void> {
  return spans_ ? spans_->finish() : core::ok();
}

auto collect_into(std::vector<core::RawSample>& samples) -> SampleSink {
  return [&samples](const core::RawSample& s) -> core::Result<void> {
    samples.push_back(s);
    return core::ok();
  };
}

void SyntheticMark::see(std::string_view line) {
  if (decided_) return;
  const std::size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return;
  decided_ = true;
  line = line.substr(first);
  if (line.front() != '#') return;
  line.remove_prefix(1);
  const std::size_t word = line.find_first_not_of(" \t");
  synthetic_ =
      word != std::string_view::npos && core::to_lower_ascii(line.substr(word)).starts_with("synthetic");
}

auto read_lines(LineSource& lines, SyntheticMark& mark,
                const std::function<core::Result<void>(std::size_t, std::string_view)>& on_line)
    -> core::Result<void> {
  for (;;) {
    auto line = lines.next();
    if (!line) return core::propagate(line);
    if (!*line) return core::ok();
    mark.see(**line);
    if (auto ok = on_line(lines.line_number(), **line); !ok) return ok;
  }
}

auto declares_synthetic(std::string_view text) -> bool {
  SyntheticMark mark;
  while (!text.empty() && !mark.decided()) {
    const std::size_t eol = text.find('\n');
    mark.see(text.substr(0, eol));
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
  return mark.synthetic();
}

auto at_line(std::size_t line, std::string_view what) -> std::string {
  return "line " + std::to_string(line) + ": " + std::string(what);
}

}  // namespace solscope::imports
