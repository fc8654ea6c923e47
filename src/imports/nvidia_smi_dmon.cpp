#include "imports/detail/nvidia_smi_dmon.hpp"

#include <array>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/metric_catalog.hpp"
#include "imports/detail/text_lines.hpp"
#include "net/time_limits.hpp"

namespace solscope::imports {
namespace {

/// GPM column names nvidia-smi prints, by NVML GPM metric id (several spellings across driver releases).
constexpr std::array<std::pair<std::string_view, std::uint16_t>, 17> kGpmNames{{
    {"gract", 1},
    {"smutil", 2},
    {"smocc", 3},
    {"intutil", 4},
    {"integer", 4},
    {"anytensor", 5},
    {"mmaact", 5},
    {"tensor", 5},
    {"dfmatensor", 6},
    {"hmmatensor", 7},
    {"immatensor", 9},
    {"dram", 10},
    {"dramact", 10},
    {"fp64", 11},
    {"fp32", 12},
    {"fp16", 13},
    {"fp16act", 13},
}};

/// Classic dmon columns solscope keeps.
constexpr std::array<std::pair<std::string_view, core::MetricId>, 6> kClassic{{
    {"pwr", core::MetricId::PowerW},
    {"gtemp", core::MetricId::TemperatureC},
    {"sm", core::MetricId::GpuUtil},
    {"mem", core::MetricId::MemCopyUtil},
    {"mclk", core::MetricId::MemClockMhz},
    {"pclk", core::MetricId::SmClockMhz},
}};

enum class Role : std::uint8_t { Gpu, Date, Time, Metric, Ignored };

struct Column {
  std::string name;
  Role role = Role::Ignored;
  core::MetricId metric = core::MetricId::kCount;
  double scale = 1.0;
};

auto gpm_metric(std::string_view name) -> std::optional<std::pair<core::MetricId, double>> {
  for (const auto& [n, id] : kGpmNames) {
    if (n != name) continue;
    for (const core::MetricDef& def : core::metric_catalog()) {
      if (def.gpm_metric_id == id) return std::pair{def.id, def.gpm_scale};
    }
  }
  return std::nullopt;
}

/// Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's days_from_civil algorithm).
auto days_from_civil(std::int64_t y, unsigned m, unsigned d) -> std::int64_t {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/// "YYYYMMDD" and "HH:MM:SS" as ns since the epoch (UTC); nullopt when either is malformed or the year is
/// outside 1970-2200 (ns since the epoch fit an int64 until 2262).
auto parse_date_time(std::string_view date, std::string_view time) -> std::optional<std::int64_t> {
  auto digits = [](std::string_view s) -> std::optional<unsigned> {
    unsigned v = 0;
    for (const char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    return s.empty() ? std::nullopt : std::optional<unsigned>(v);
  };
  if (date.size() != 8 || time.size() != 8 || time[2] != ':' || time[5] != ':') return std::nullopt;
  const auto y = digits(date.substr(0, 4)), mo = digits(date.substr(4, 2)), d = digits(date.substr(6, 2));
  const auto h = digits(time.substr(0, 2)), mi = digits(time.substr(3, 2)), s = digits(time.substr(6, 2));
  if (!y || !mo || !d || !h || !mi || !s || *y < 1970 || *y > net::kLatestYear || *mo < 1 || *mo > 12 ||
      *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *s > 60) {
    return std::nullopt;
  }
  const std::int64_t seconds = days_from_civil(*y, *mo, *d) * 86400 + *h * 3600 + *mi * 60 + *s;
  return seconds * core::kNsPerS;
}

struct SmiState {
  const DmonOptions& options;
  RowSink& rows;
  Recording recording;  ///< all but the samples
  std::uint64_t row_count = 0;
  EntityDevices devices;
  std::vector<std::string> names;  ///< the names line, waiting for its units line
  std::optional<std::vector<Column>> columns;
  bool any_gpm = false;
  bool timed = false;  ///< Date and Time columns: rows carry their time
  std::set<std::uint32_t> in_interval;
  std::int64_t interval = 0;
};

/// Builds the columns from the names line and the units line under it.
void set_columns(SmiState& st, const std::vector<std::string_view>& units) {
  std::vector<Column> columns;
  bool has_date = false;
  bool has_time = false;
  for (std::size_t i = 0; i < st.names.size(); ++i) {
    Column c{.name = st.names[i]};
    const std::string_view unit = i < units.size() ? units[i] : std::string_view{};
    if (c.name == "gpu") {
      c.role = Role::Gpu;
    } else if (c.name == "Date") {
      c.role = Role::Date;
      has_date = true;
    } else if (c.name == "Time") {
      c.role = Role::Time;
      has_time = true;
    } else if (unit.starts_with("GPM:")) {
      st.any_gpm = true;
      if (const auto m = gpm_metric(c.name); m && unit == "GPM:%") {
        c.role = Role::Metric;
        c.metric = m->first;
        c.scale = m->second;
      }
    } else {
      for (const auto& [n, id] : kClassic) {
        if (n == c.name) {
          c.role = Role::Metric;
          c.metric = id;
        }
      }
    }
    columns.push_back(std::move(c));
  }
  st.timed = has_date && has_time;
  st.columns = std::move(columns);
  st.names.clear();
}

auto parse_row(SmiState& st, std::size_t number, const std::vector<std::string_view>& words)
    -> core::Result<void> {
  auto bad = [number](const std::string& what) {
    return core::fail(core::ErrorCode::DataLoss, at_line(number, what));
  };
  if (!st.columns) return bad("a row between the names line and its units line");
  if (words.size() != st.columns->size()) {
    return bad("expected " + std::to_string(st.columns->size()) + " columns as in the header, found " +
               std::to_string(words.size()));
  }
  core::RawSample raw;
  std::optional<std::uint32_t> gpu;
  std::string_view date;
  std::string_view time;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const Column& column = (*st.columns)[i];
    if (column.role == Role::Date) date = words[i];
    if (column.role == Role::Time) time = words[i];
    if (column.role == Role::Date || column.role == Role::Time || is_blank_value(words[i])) continue;
    const auto value = parse_finite(words[i]);
    if (!value) return bad("column " + column.name + ": " + quoted(words[i]) + " is not a number");
    if (column.role == Role::Gpu) {
      if (*value < 0 || *value > 1e6 || *value != static_cast<double>(static_cast<std::uint32_t>(*value))) {
        return bad("column gpu: " + quoted(words[i]) + " is not a GPU index");
      }
      gpu = static_cast<std::uint32_t>(*value);
    } else if (column.role == Role::Metric) {
      raw.set(column.metric, *value * column.scale);
    } else {
      ++st.recording.unmapped[column.name];
    }
  }
  if (!gpu) return bad("no GPU index in the gpu column");
  raw.device_index = st.devices.index_of("gpu " + std::to_string(*gpu), [&](std::uint32_t index) {
    core::DeviceInfo d;
    d.index = index;
    d.name = "GPU " + std::to_string(*gpu) + " (nvidia-smi dmon)";
    return d;
  });
  raw.source = st.any_gpm ? core::SourceKind::Gpm : core::SourceKind::NvmlOnly;
  if (st.timed) {
    const auto at = parse_date_time(date, time);
    if (!at) return bad("date and time " + quoted(date) + " " + quoted(time) + " are not YYYYMMDD HH:MM:SS");
    raw.t_end_ns = *at;
  } else {
    if (!st.in_interval.insert(raw.device_index).second) {
      ++st.interval;
      if (!interval_fits(st.interval, st.options))
        return bad("too many intervals for --delay: their times overflow");
      st.in_interval = {raw.device_index};
    }
    raw.t_end_ns = st.options.start_ns + st.interval * st.options.interval_ns;
    raw.t_start_ns = raw.t_end_ns - st.options.interval_ns;
  }
  ++st.row_count;
  return st.timed ? st.rows.unspanned(raw) : st.rows.spanned(raw);
}

/// Handles a '#' line: the names line (it has a "gpu" column) or the units line under it.
void header_line(SmiState& st, std::vector<std::string_view> words) {
  words[0].remove_prefix(1);
  if (words[0].empty()) words.erase(words.begin());
  if (!st.names.empty()) {
    set_columns(st, words);
    return;
  }
  for (const std::string_view w : words) {
    if (w == "gpu") {
      st.names.assign(words.begin(), words.end());
      return;
    }
  }
}

}  // namespace

auto stream_nvidia_smi_dmon(LineSource& lines, const DmonOptions& options, RowSink& rows)
    -> core::Result<Recording> {
  SmiState st{.options = options, .rows = rows};
  SyntheticMark mark;
  auto read = read_lines(lines, mark, [&](std::size_t number, std::string_view line) -> core::Result<void> {
    const std::vector<std::string_view> words = split_words(line);
    if (words.empty()) return core::ok();
    if (words.front().front() == '#') {
      header_line(st, words);
      return core::ok();
    }
    if (!st.columns && st.names.empty()) {  // above the first header: a shell prompt, the command line
      ++st.recording.tally.lines_above_header;
      return core::ok();
    }
    return parse_row(st, number, words);
  });
  if (!read) return core::propagate(read);
  if (!st.columns) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "no \"# gpu ...\" header with its units line: not an nvidia-smi dmon log",
                      "give the output of `nvidia-smi dmon --gpm-metrics ...`, or --from another format");
  }
  if (st.row_count == 0) {
    return core::fail(core::ErrorCode::InvalidArgument, "no sample rows under the header",
                      "the log holds no interval; record longer (`nvidia-smi dmon -c N`)");
  }
  if (st.timed) st.recording.span_single_ns = options.interval_ns;
  st.recording.devices = st.devices.take();
  st.recording.sol_definition = st.any_gpm
                                    ? std::string(kGpmSolDefinition)
                                    : std::string("nvml: no SOL (nvidia-smi dmon without GPM columns)");
  st.recording.synthetic = mark.synthetic();
  st.recording.relative_times = !st.timed;
  return std::move(st.recording);
}

auto parse_nvidia_smi_dmon(std::string_view text, const DmonOptions& options) -> core::Result<Recording> {
  TextLines lines(text);
  std::vector<core::RawSample> samples;
  RowSink rows(collect_into(samples), std::nullopt);
  auto recording = stream_nvidia_smi_dmon(lines, options, rows);  // before samples moves
  return collected(std::move(recording), std::move(samples), rows);
}

}  // namespace solscope::imports
