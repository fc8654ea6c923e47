#include "imports/detail/dcgmi_dmon.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/dcgm_fields.hpp"
#include "imports/detail/text_lines.hpp"

namespace solscope::imports {
namespace {

/// One column of the current header: the field it holds, or nullopt for one solscope does not map.
struct Column {
  std::string tag;
  std::optional<core::DcgmField> field;
};

/// The columns of a "#Entity ..." header line; nullopt when `line` is not one.
auto header_columns(std::string_view line) -> std::optional<std::vector<Column>> {
  std::vector<std::string_view> words = split_words(line);
  if (words.empty() || words[0].front() != '#') return std::nullopt;
  words[0].remove_prefix(1);
  if (words[0].empty()) words.erase(words.begin());
  if (words.empty() || (words[0] != "Entity" && words[0] != "entity")) return std::nullopt;
  std::vector<Column> columns;
  for (std::size_t i = 1; i < words.size(); ++i) {
    Column c{std::string(words[i]), core::dcgm_field_by_tag(words[i])};
    if (!c.field) {
      if (const auto id = parse_finite(words[i]); id && *id >= 0 && *id < 65536) {
        c.field = core::dcgm_field_by_id(static_cast<std::uint32_t>(*id));
      }
    }
    columns.push_back(std::move(c));
  }
  return columns;
}

auto make_entity_device(std::string_view type, std::uint32_t id, std::uint32_t index) -> core::DeviceInfo {
  core::DeviceInfo d;
  d.index = index;
  d.name = std::string(type) + " " + std::to_string(id) + " (dcgmi dmon)";
  if (type == "GPU-I") d.mig_instance_id = static_cast<std::int32_t>(id);
  return d;
}

struct DmonState {
  const DmonOptions& options;
  RowSink& rows;
  Recording recording;  ///< all but the samples
  std::uint64_t row_count = 0;
  EntityDevices devices;
  std::optional<std::vector<Column>> columns;
  std::set<std::uint32_t> in_interval;
  std::int64_t interval = 0;
};

auto parse_row(DmonState& st, std::size_t number, const std::vector<std::string_view>& words)
    -> core::Result<void> {
  auto bad = [number](const std::string& what) {
    return core::fail(core::ErrorCode::DataLoss, at_line(number, what));
  };
  const auto id = words.size() >= 2 ? parse_finite(words[1]) : std::nullopt;
  if (!id || *id < 0 || *id > 1e6 || *id != static_cast<double>(static_cast<std::uint32_t>(*id))) {
    return bad("expected an entity such as \"GPU 0\", found " + quoted(words[0]));
  }
  if (words.size() != st.columns->size() + 2) {
    return bad("expected " + std::to_string(st.columns->size()) + " values after the entity, found " +
               std::to_string(words.size() - 2));
  }
  const auto entity_id = static_cast<std::uint32_t>(*id);
  const std::uint32_t device = st.devices.index_of(
      std::string(words[0]) + " " + std::to_string(entity_id),
      [&](std::uint32_t index) { return make_entity_device(words[0], entity_id, index); });
  if (!st.in_interval.insert(device).second) {  // the entity shows again: the next interval begins
    ++st.interval;
    if (!interval_fits(st.interval, st.options))
      return bad("too many intervals for --delay: their times overflow");
    st.in_interval = {device};
  }
  core::RawSample raw;
  raw.device_index = device;
  raw.source = core::SourceKind::Dcgm;
  raw.t_end_ns = st.options.start_ns + st.interval * st.options.interval_ns;
  raw.t_start_ns = raw.t_end_ns - st.options.interval_ns;
  for (std::size_t i = 0; i < st.columns->size(); ++i) {
    const Column& column = (*st.columns)[i];
    const std::string_view word = words[i + 2];
    if (is_blank_value(word)) continue;
    const auto value = parse_finite(word);
    if (!value) return bad("column " + column.tag + ": " + quoted(word) + " is not a number");
    if (!column.field) {
      ++st.recording.unmapped[column.tag];
      continue;
    }
    raw.set(column.field->metric, core::dcgm_value(*column.field, *value));
  }
  ++st.row_count;
  return st.rows.spanned(raw);
}

/// One line of the log.
auto parse_line(DmonState& st, std::size_t number, std::string_view line) -> core::Result<void> {
  const std::vector<std::string_view> words = split_words(line);
  if (words.empty()) return core::ok();
  if (auto columns = header_columns(line)) {
    st.columns = std::move(columns);
    return core::ok();
  }
  if (words.front().front() == '#') return core::ok();                                 // another comment
  if (words.size() == 1 && (words[0] == "ID" || words[0] == "Id")) return core::ok();  // under the header
  if (!st.columns) {  // above the first header: a shell prompt, the command line
    ++st.recording.tally.lines_above_header;
    return core::ok();
  }
  return parse_row(st, number, words);
}

}  // namespace

auto stream_dcgmi_dmon(LineSource& lines, const DmonOptions& options, RowSink& rows)
    -> core::Result<Recording> {
  DmonState st{
      .options = options, .rows = rows, .recording = {}, .devices = {}, .columns = {}, .in_interval = {}};
  SyntheticMark mark;
  auto read = read_lines(
      lines, mark, [&](std::size_t number, std::string_view line) { return parse_line(st, number, line); });
  if (!read) return core::propagate(read);
  if (!st.columns) {
    return core::fail(core::ErrorCode::InvalidArgument, "no \"#Entity\" header: not a dcgmi dmon log",
                      "give the output of `dcgmi dmon -e FIELDS`, or --from another format");
  }
  if (st.row_count == 0) {
    return core::fail(core::ErrorCode::InvalidArgument, "no sample rows under the \"#Entity\" header",
                      "the log holds no interval; record longer (`dcgmi dmon -e ... -c N`)");
  }
  st.recording.devices = st.devices.take();
  st.recording.sol_definition = std::string(kDcgmSolDefinition);
  st.recording.synthetic = mark.synthetic();
  st.recording.relative_times = true;
  return std::move(st.recording);
}

auto parse_dcgmi_dmon(std::string_view text, const DmonOptions& options) -> core::Result<Recording> {
  TextLines lines(text);
  std::vector<core::RawSample> samples;
  RowSink rows(collect_into(samples), std::nullopt);
  auto recording = stream_dcgmi_dmon(lines, options, rows);  // before samples moves
  return collected(std::move(recording), std::move(samples), rows);
}

}  // namespace solscope::imports
