#include "trace/reader.hpp"

#include <utility>

#include "core/derive.hpp"
#include "trace/detail/kernel_rows.hpp"
#include "trace/detail/marker_rows.hpp"
#include "trace/detail/reader_state.hpp"
#include "trace/detail/workload_rows.hpp"
#include "trace/schema.hpp"

namespace solscope::trace {
namespace {

auto find_device(const std::vector<core::DeviceInfo>& devices, std::uint32_t index)
    -> const core::DeviceInfo* {
  for (const core::DeviceInfo& d : devices) {
    if (d.index == index) return &d;
  }
  return nullptr;
}

}  // namespace

SampleCursor::SampleCursor(std::unique_ptr<detail::CursorState> state) : state_(std::move(state)) {}
SampleCursor::SampleCursor(SampleCursor&& other) noexcept = default;
auto SampleCursor::operator=(SampleCursor&& other) noexcept -> SampleCursor& = default;
SampleCursor::~SampleCursor() = default;

auto SampleCursor::next(core::RawSample& out) -> bool {
  if (!detail::step_to_next(*state_)) return false;
  detail::read_raw(*state_, out);
  return true;
}

auto SampleCursor::next(core::SolSample& out) -> bool {
  core::RawSample raw;
  if (!next(raw)) return false;
  static const core::DeviceInfo kUnknownDevice{};
  const core::DeviceInfo* device = find_device(state_->reader->devices, raw.device_index);
  out = core::derive(raw, device != nullptr ? *device : kUnknownDevice);
  if (detail::read_stored_figures(*state_, out)) return true;
  ++state_->report.rederived_figures;
  if (!state_->damage) {
    state_->damage =
        core::Error{core::ErrorCode::DataLoss,
                    "trace " + state_->reader->path.string() + ": the stored figures of a sample at " +
                        std::to_string(raw.t_start_ns) + " ns are unreadable",
                    "they are derived again from the raw counters"};
  }
  return true;
}

auto SampleCursor::damage() const -> const std::optional<core::Error>& {
  return state_->damage;
}
auto SampleCursor::samples_read() const -> std::uint64_t {
  return state_->report.samples;
}
auto SampleCursor::report() const -> const ReadReport& {
  return state_->report;
}

Reader::Reader(std::shared_ptr<detail::ReaderState> state) : state_(std::move(state)) {}

auto Reader::open(const std::filesystem::path& path) -> core::Result<Reader> {
  auto state = detail::open_reader_state(path);
  if (!state) return core::propagate(state);
  return Reader(std::move(*state));
}

auto Reader::path() const -> const std::filesystem::path& {
  return state_->path;
}
auto Reader::metadata() const -> const TraceMetadata& {
  return state_->metadata;
}
auto Reader::devices() const -> const std::vector<core::DeviceInfo>& {
  return state_->devices;
}
auto Reader::device(std::uint32_t index) const -> const core::DeviceInfo* {
  return find_device(state_->devices, index);
}
auto Reader::sample_count() const -> std::uint64_t {
  return state_->sample_count;
}
auto Reader::recovered() const -> bool {
  return state_->recovered();
}
auto Reader::recovery_note() const -> const std::string& {
  return state_->recovery_note;
}

auto Reader::problem(const ReadReport& report) const -> std::optional<core::Error> {
  return detail::describe_read(*state_, report);
}

auto Reader::time_span() const -> core::Result<std::optional<std::pair<std::int64_t, std::int64_t>>> {
  const std::string what = "cannot read the time span of trace " + state_->path.string();
  // Rows whose interval is out of its domain are damaged rows (reader_state.hpp step_to_next), not the span.
  static const std::string sql =
      "SELECT min(t_start_ns), max(t_end_ns) FROM samples WHERE t_end_ns >= t_start_ns AND t_end_ns - "
      "t_start_ns <= " +
      std::to_string(kMaxSampleSpanNs);
  auto statement = detail::prepare(state_->db.get(), sql, what);
  if (!statement) return core::propagate(statement);
  const int rc = sqlite3_step(statement->get());
  if (rc != SQLITE_ROW) return core::fail(detail::sqlite_error(state_->db.get(), rc, what));
  if (sqlite3_column_type(statement->get(), 0) == SQLITE_NULL) return std::nullopt;
  return std::make_pair(sqlite3_column_int64(statement->get(), 0), sqlite3_column_int64(statement->get(), 1));
}

auto Reader::kernels(const KernelReadOptions& options) const -> core::Result<KernelTable> {
  if (state_->has_kernel_table)
    return detail::scan_kernels(state_->db.get(), state_->path.string(), state_->devices, options);
  return for_each_kernel(options, [](const core::KernelRecord&) {});
}

auto Reader::for_each_kernel(const KernelReadOptions& options, const KernelSink& sink) const
    -> core::Result<KernelTable> {
  if (state_->has_kernel_table) {
    return detail::scan_kernels_each(state_->db.get(), state_->path.string(), state_->devices, options, sink);
  }
  KernelTable table;
  if (state_->metadata.schema_version >= 2) {
    // A schema-2 file always has the table: its absence is damage (a lost schema entry).
    table.report.stopped = true;
    table.report.cause = "no kernels table";
    table.note = "trace " + state_->path.string() +
                 " is damaged: its kernels table is missing, no kernel "
                 "record can be read";
  }
  return table;
}

auto Reader::workloads() const -> core::Result<WorkloadTable> {
  if (state_->has_workload_table)
    return detail::scan_workloads(state_->db.get(), state_->path.string(), state_->devices);
  WorkloadTable table;
  if (state_->metadata.schema_version >= 5) {
    // A schema-5 file always has the table: its absence is damage (a lost schema entry).
    table.report.stopped = true;
    table.report.cause = "no workloads table";
    table.note = "trace " + state_->path.string() +
                 " is damaged: its workloads table is missing, no workload row can be read";
  }
  return table;
}

auto Reader::markers() const -> core::Result<MarkerTable> {
  if (state_->has_marker_table) return detail::scan_markers(state_->db.get(), state_->path.string());
  MarkerTable table;
  if (state_->metadata.schema_version >= 6) {
    // A schema-6 file always has the table: its absence is damage (a lost schema entry).
    table.note = "trace " + state_->path.string() +
                 " is damaged: its markers table is missing, no NVTX marker can be read";
  }
  return table;
}

auto Reader::cursor(const ReadOptions& options) const -> core::Result<SampleCursor> {
  auto state = detail::make_cursor_state(state_, options);
  if (!state) return core::propagate(state);
  return SampleCursor(std::move(*state));
}

namespace {

template <class Sample, class Fn>
auto visit_all(const Reader& reader, const ReadOptions& options, const Fn& fn) -> core::Result<ReadSummary> {
  auto cursor = reader.cursor(options);
  if (!cursor) return core::propagate(cursor);
  Sample sample;
  ReadSummary summary;
  while (cursor->next(sample)) {
    ++summary.samples;
    if (!fn(sample)) break;
  }
  summary.report = cursor->report();
  summary.recovered = reader.recovered() || summary.report.damaged() || cursor->damage().has_value();
  if (auto problem = reader.problem(summary.report)) summary.note = std::move(problem->message);
  return summary;
}

}  // namespace

auto Reader::for_each(const ReadOptions& options, const std::function<bool(const core::RawSample&)>& fn) const
    -> core::Result<ReadSummary> {
  return visit_all<core::RawSample>(*this, options, fn);
}

auto Reader::for_each_sol(const ReadOptions& options,
                          const std::function<bool(const core::SolSample&)>& fn) const
    -> core::Result<ReadSummary> {
  return visit_all<core::SolSample>(*this, options, fn);
}

}  // namespace solscope::trace
