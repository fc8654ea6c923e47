#include "imports/detail/dcgm_exporter_import.hpp"

#include <charconv>
#include <string>
#include <vector>

#include "core/dcgm_fields.hpp"
#include "imports/detail/dcgmi_dmon.hpp"
#include "net/dcgm_exposition.hpp"
#include "net/prometheus_text.hpp"

namespace solscope::imports {
namespace {

/// `error` with its leading "line K: " counted from line `first_line` of the file (K counts from 1 within
/// the scrape's text).
auto renumbered(core::Error error, std::size_t first_line) -> core::Error {
  constexpr std::string_view kLine = "line ";
  if (!error.message.starts_with(kLine)) return error;
  std::size_t k = 0;
  const char* begin = error.message.data() + kLine.size();
  const auto [end, ec] = std::from_chars(begin, error.message.data() + error.message.size(), k);
  if (ec != std::errc() || k == 0) return error;
  error.message = std::string(kLine) + std::to_string(k + first_line - 1) + std::string(end);
  return error;
}

/// The scrape being gathered and what the log has shown so far.
struct ScrapeLog {
  RowSink& rows;
  net::DcgmDeviceIndex index;
  Recording recording;  ///< all but the samples
  std::string scrape;   ///< the lines of the current scrape, '\n'-terminated
  std::size_t scrape_first_line = 0;
  bool scrape_has_samples = false;             ///< the current scrape holds a DCGM_FI_* sample line
  std::int64_t scrape_ms = net::kNoTimestamp;  ///< its timestamp
  std::optional<std::int64_t> previous_ms;     ///< the timestamp of the scrape before it
  std::size_t first_sample_line = 0;           ///< the log's first DCGM_FI_* sample line; 0 before it
  bool stamped = false;                        ///< that line carries a timestamp
  std::uint64_t row_count = 0;

  /// Parses the current scrape and hands on one sample per GPU.
  auto flush() -> core::Result<void> {
    if (scrape.empty()) return core::ok();
    auto parsed = net::parse_dcgm_scrape(scrape, index);
    if (!parsed) return core::fail(renumbered(parsed.error(), scrape_first_line));
    const bool untimed = parsed->timestamp_ms == net::kNoTimestamp;
    if (recording.devices.size() < index.size()) recording.devices.resize(index.size());
    for (const net::DcgmGpuSample& gpu : parsed->gpus) {
      if (gpu.device.index < recording.devices.size()) recording.devices[gpu.device.index] = gpu.device;
      core::RawSample raw = gpu.sample;
      // parse_dcgm_scrape refused timestamps outside 1970-2200, so the ns below fit an int64.
      raw.t_end_ns = untimed ? 0 : parsed->timestamp_ms * 1'000'000;
      ++row_count;
      if (auto ok = rows.unspanned(raw); !ok) return ok;
    }
    for (const auto& [name, count] : parsed->unknown_names) recording.unmapped[name] += count;
    recording.tally.repeated_values += parsed->repeated_values;
    if (scrape_has_samples && !untimed) previous_ms = scrape_ms;
    scrape.clear();
    scrape_has_samples = false;
    return core::ok();
  }

  /// Checks a DCGM_FI_* sample line against the log so far; starts a new scrape at a new timestamp.
  auto sample_line(std::size_t number, std::int64_t timestamp_ms) -> core::Result<void> {
    const bool has = timestamp_ms != net::kNoTimestamp;
    if (first_sample_line == 0) {
      first_sample_line = number;
      stamped = has;
    } else if (has != stamped) {
      return core::fail(
          core::ErrorCode::DataLoss,
          "line " + std::to_string(number) + ": " + (has ? "has" : "has no") + " timestamp, unlike line " +
              std::to_string(first_sample_line),
          "either every sample line carries a timestamp (many scrapes) or none does (one scrape)");
    }
    if (scrape_has_samples && timestamp_ms != scrape_ms) {
      if (auto ok = flush(); !ok) return ok;
    }
    if (has && previous_ms && timestamp_ms <= *previous_ms) {
      return core::fail(core::ErrorCode::DataLoss,
                        "line " + std::to_string(number) + ": timestamp " + std::to_string(timestamp_ms) +
                            " ms is not after the previous scrape's (" + std::to_string(*previous_ms) +
                            " ms)",
                        "a scrape log holds its scrapes in time order, the lines of each together; sort it "
                        "by timestamp");
    }
    scrape_has_samples = true;
    scrape_ms = timestamp_ms;
    return core::ok();
  }

  /// Adds one line of the log.
  auto line(std::size_t number, std::string_view text) -> core::Result<void> {
    const net::PromText parsed = net::parse_prometheus_text(text);
    if (parsed.samples.size() == 1 && parsed.samples[0].name.starts_with(core::kDcgmSeriesPrefix)) {
      if (auto ok = sample_line(number, parsed.samples[0].timestamp_ms); !ok) return ok;
    }
    if (scrape.empty()) scrape_first_line = number;
    if (scrape.size() + text.size() + 1 > kMaxScrapeBytes) {
      return core::fail(core::ErrorCode::ResourceExhausted,
                        "line " + std::to_string(number) + ": one scrape holds more than 64 MiB",
                        "a dcgm-exporter page is far smaller; give sample lines with timestamps (one "
                        "scrape per timestamp)");
    }
    scrape.append(text);
    scrape.push_back('\n');
    return core::ok();
  }
};

}  // namespace

auto stream_dcgm_exporter(LineSource& lines, std::int64_t single_ns, RowSink& rows)
    -> core::Result<Recording> {
  ScrapeLog log{.rows = rows};
  SyntheticMark mark;
  auto read = read_lines(lines, mark,
                         [&](std::size_t number, std::string_view line) { return log.line(number, line); });
  if (!read) return core::propagate(read);
  if (log.first_sample_line == 0 && log.scrape.empty()) {
    auto none = net::parse_dcgm_scrape("", log.index);  // says "no DCGM_FI_* series"
    if (!none) return core::fail(none.error());
  }
  if (auto ok = log.flush(); !ok) return core::propagate(ok);
  Recording recording = std::move(log.recording);
  for (std::size_t i = 0; i < recording.devices.size(); ++i) {
    recording.devices[i].index = static_cast<std::uint32_t>(i);
  }
  recording.relative_times = !log.stamped;
  recording.span_single_ns = single_ns;
  recording.sol_definition = std::string(kDcgmSolDefinition);
  recording.synthetic = mark.synthetic();
  return recording;
}

auto import_dcgm_exporter(std::string_view text, std::int64_t single_ns) -> core::Result<Recording> {
  TextLines lines(text);
  std::vector<core::RawSample> samples;
  RowSink rows(collect_into(samples), std::nullopt);
  auto recording = stream_dcgm_exporter(lines, single_ns, rows);  // before samples moves
  return collected(std::move(recording), std::move(samples), rows);
}

}  // namespace solscope::imports
