#include "imports/detail/recording.hpp"

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

void span_from_previous(std::vector<core::RawSample>& samples, std::int64_t single_ns) {
  // First pass: each device's first interval (gap between its first two samples).
  std::unordered_map<std::uint32_t, std::int64_t> first_end;
  std::unordered_map<std::uint32_t, std::int64_t> first_gap;
  for (const core::RawSample& s : samples) {
    auto [it, fresh] = first_end.try_emplace(s.device_index, s.t_end_ns);
    if (!fresh && !first_gap.contains(s.device_index) && s.t_end_ns > it->second) {
      first_gap[s.device_index] = s.t_end_ns - it->second;
    }
  }
  std::unordered_map<std::uint32_t, std::int64_t> previous_end;
  std::vector<core::RawSample> kept;
  kept.reserve(samples.size());
  for (core::RawSample& s : samples) {
    auto prev = previous_end.find(s.device_index);
    if (prev == previous_end.end()) {
      const auto gap = first_gap.find(s.device_index);
      s.t_start_ns = s.t_end_ns - (gap == first_gap.end() ? single_ns : gap->second);
    } else {
      s.t_start_ns = prev->second;
    }
    if (s.t_end_ns <= s.t_start_ns) continue;
    previous_end[s.device_index] = s.t_end_ns;
    kept.push_back(s);
  }
  samples = std::move(kept);
}

auto SpanFromPrevious::add(core::RawSample sample) -> core::Result<void> {
  auto [it, fresh] = devices_.try_emplace(sample.device_index);
  Device& d = it->second;
  if (fresh) {
    d.first = sample;
    d.previous_end_ns = sample.t_end_ns;
    return core::ok();
  }
  if (d.first) {
    if (sample.t_end_ns <= d.first->t_end_ns) {  // no span after the first: dropped, as span_from_previous
      ++dropped_;
      return core::ok();
    }
    core::RawSample first = *d.first;
    d.first.reset();
    first.t_start_ns = first.t_end_ns - (sample.t_end_ns - first.t_end_ns);
    if (auto ok = sink_(first); !ok) return ok;
  }
  sample.t_start_ns = d.previous_end_ns;
  if (sample.t_end_ns <= sample.t_start_ns) {
    ++dropped_;
    return core::ok();
  }
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
      ++dropped_;
      continue;
    }
    if (auto ok = sink_(first); !ok) return ok;
  }
  return core::ok();
}

RowSink::RowSink(SampleSink sink, std::optional<std::int64_t> span_ns) : sink_(std::move(sink)) {
  if (span_ns) spans_.emplace(*span_ns, sink_);
}

auto RowSink::spanned(const core::RawSample& row) -> core::Result<void> {
  return sink_(row);
}

auto RowSink::unspanned(const core::RawSample& row) -> core::Result<void> {
  return spans_ ? spans_->add(row) : sink_(row);
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
