// Reader::open: probe the file, connect read-only (with the immutable and writable_schema fallbacks), check
// that it is a solscope trace of a readable schema, and load devices, metrics and counts.
#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <set>
#include <string>

#include "core/metric_catalog.hpp"
#include "trace/detail/columns.hpp"
#include "trace/detail/file_probe.hpp"
#include "trace/detail/reader_state.hpp"
#include "trace/detail/wal_probe.hpp"
#include "trace/detail/whole_pages_vfs.hpp"
#include "trace/schema.hpp"

namespace solscope::trace::detail {
namespace {

namespace fs = std::filesystem;

/// Marks `state` recovered for the reason `what` ("is damaged (...)", "has a damaged devices table"), added
/// to any reason found before.
void mark_recovered(ReaderState& state, const std::string& what) {
  if (!state.recovery_what.empty()) state.recovery_what += "; it ";
  state.recovery_what += what;
}

/// Reads the table names; returns the SQLite result code (SQLITE_OK on success).
auto read_table_names(sqlite3* db, std::set<std::string, std::less<>>& names) -> int {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type = 'table'", -1, &raw, nullptr);
  Statement statement(raw);
  if (rc != SQLITE_OK) return rc;
  while ((rc = sqlite3_step(raw)) == SQLITE_ROW) names.emplace(column_text(raw, 0));
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/// Opens with `query` and reads the schema; on damage retries with writable_schema, which makes SQLite read a
/// file shorter than its header declares instead of refusing it (btree.c lockBtree), and marks the state.
auto connect(ReaderState& state, const FileProbe& probe, std::string query,
             std::set<std::string, std::less<>>& tables) -> core::Result<Connection> {
  const std::string what = "cannot read trace " + state.path.string();
  const char* vfs = nullptr;
  if (probe.page_size_bytes > 0 && probe.size_bytes % probe.page_size_bytes != 0) {
    vfs = whole_pages_vfs_name();
    query += "&" + std::string(kWholePagesParam) + "=" + std::to_string(probe.page_size_bytes);
  }
  // NOMUTEX: a Reader and its cursors are used from one thread (documented), so SQLite's per-call connection
  // mutex is pure cost (about 8% of a read in a perf profile).
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(file_uri(state.path.string(), query).c_str(), &raw,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, vfs);
  Connection db(raw);
  if (rc != SQLITE_OK) return core::fail(sqlite_error(db.get(), rc, what));
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), 2000);
  rc = read_table_names(db.get(), tables);
  if (is_damage(rc) && (rc & 0xff) != SQLITE_NOTADB) {
    const std::string first = sqlite3_errmsg(db.get());
    (void)exec(db.get(), "PRAGMA writable_schema=ON", what);  // a read-only flag; the next read tells
    tables.clear();
    rc = read_table_names(db.get(), tables);
    if (rc == SQLITE_OK && !state.recovered()) mark_recovered(state, "is damaged (" + first + ")");
  }
  if ((rc & 0xff) == SQLITE_NOTADB) return core::fail(not_a_trace(state.path, "is not an SQLite database"));
  if (is_damage(rc)) {
    core::Error error =
        sqlite_error(db.get(), rc, "trace " + state.path.string() + " is damaged beyond repair");
    error.hint = "its header or schema is unreadable, so no sample can be recovered";
    return core::fail(std::move(error));
  }
  if (rc != SQLITE_OK) return core::fail(sqlite_error(db.get(), rc, what));
  return db;
}

/// Connects read-only. A WAL-mode file without a -wal needs its -shm created beside it; where that fails (a
/// read-only directory) the file is opened as immutable, which is only safe because no -wal exists to be
/// missed.
auto connect_with_fallback(ReaderState& state, const FileProbe& probe,
                           std::set<std::string, std::less<>>& tables) -> core::Result<Connection> {
  auto db = connect(state, probe, "mode=ro", tables);
  if (db || probe.has_wal) {
    if (!db && probe.has_wal && db.error().code != core::ErrorCode::InvalidArgument &&
        db.error().code != core::ErrorCode::DataLoss) {
      db.error().hint = "its write-ahead log " + state.path.string() +
                        "-wal needs a writable directory: copy both files elsewhere and open the copy";
    }
    return db;
  }
  if (db.error().code == core::ErrorCode::InvalidArgument || db.error().code == core::ErrorCode::DataLoss)
    return db;
  tables.clear();
  return connect(state, probe, "mode=ro&immutable=1", tables);
}

/// Says so when the -wal holds commits that SQLite will not apply (a damaged frame before them).
void check_wal(ReaderState& state) {
  const std::string wal = state.path.string() + "-wal";
  const auto damage = probe_wal(wal);
  if (!damage) return;
  std::string what = "has a damaged write-ahead log: ";
  what += damage->header_damaged
              ? "the header of " + wal + " is damaged, so SQLite ignores all of it"
              : "SQLite stops at frame " + std::to_string(damage->first_bad_frame) + " (byte " +
                    std::to_string(damage->first_bad_offset_bytes) + " of " + wal + ")";
  what += ", so " + std::to_string(damage->lost_commits) + " later commit(s) (" +
          std::to_string(damage->lost_frames) + " pages) in it are not read; copy " + state.path.string() +
          " and its -wal before opening the trace with any other tool (a read-write open checkpoints the "
          "log and discards them)";
  mark_recovered(state, what);
  state.wal_commits_lost = true;
}

auto parse_int(const std::string& text, std::int64_t& out) -> bool {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

/// A schema version from the meta table: a decimal integer in 1..kMaxSchemaVersion. Anything else cannot
/// have been written by any solscope: DataLoss "trace X has a damaged meta table: schema_version '-1' is
/// not a schema version".
auto parse_version(const ReaderState& state, std::string_view key, const std::string& text)
    -> core::Result<int> {
  std::int64_t number = 0;
  if (parse_int(text, number) && number >= 1 && number <= kMaxSchemaVersion) return static_cast<int>(number);
  return core::fail(core::ErrorCode::DataLoss,
                    "trace " + state.path.string() + " has a damaged meta table: " + std::string(key) + " '" +
                        text.substr(0, 40) + "' is not a schema version (1 to " +
                        std::to_string(kMaxSchemaVersion) + ")",
                    "the file was altered or damaged; record again");
}

/// A query on a table that sqlite_schema lists but cannot be prepared ("no such column: key"): the schema
/// entry is damaged (DataLoss, exit 5), not an internal error.
auto damaged_schema(core::Error error) -> core::Error {
  error.code = core::ErrorCode::DataLoss;
  error.hint = "its schema is damaged; record again";
  return error;
}

auto load_meta(ReaderState& state) -> core::Result<void> {
  const std::string what = "cannot read the meta table of trace " + state.path.string();
  auto statement = prepare(state.db.get(), "SELECT key, value FROM meta", what);
  if (!statement) return core::fail(damaged_schema(std::move(statement.error())));
  int rc = 0;
  auto& entries = state.metadata.entries;
  while ((rc = sqlite3_step(statement->get())) == SQLITE_ROW) {
    entries.emplace(column_utf8(statement->get(), 0), column_utf8(statement->get(), 1));
  }
  if (rc != SQLITE_DONE) return core::fail(sqlite_error(state.db.get(), rc, what));
  TraceMetadata& m = state.metadata;
  auto text = [&](std::string_view key) -> std::string {
    const auto it = entries.find(key);
    return it == entries.end() ? std::string{} : it->second;
  };
  if (!entries.contains(kMetaSchemaVersion)) {
    return core::fail(not_a_trace(state.path, "has no schema_version in its meta table"));
  }
  auto version = parse_version(state, kMetaSchemaVersion, text(kMetaSchemaVersion));
  if (!version) return core::propagate(version);
  m.schema_version = *version;
  m.oldest_readable_version = m.schema_version;
  if (entries.contains(kMetaOldestReadableVersion)) {
    auto oldest = parse_version(state, kMetaOldestReadableVersion, text(kMetaOldestReadableVersion));
    if (!oldest) return core::propagate(oldest);
    if (*oldest > m.schema_version) {
      return core::fail(core::ErrorCode::DataLoss,
                        "trace " + state.path.string() + " has a damaged meta table: " +
                            std::string(kMetaOldestReadableVersion) + " " + std::to_string(*oldest) +
                            " is above its schema_version " + std::to_string(m.schema_version),
                        "a trace cannot need a reader newer than its own schema; record again");
    }
    m.oldest_readable_version = *oldest;
  }
  std::int64_t number = 0;
  m.tool_version = text(kMetaToolVersion);
  m.host = text(kMetaHost);
  m.start_time_ns = parse_int(text(kMetaStartTimeNs), number) ? number : 0;
  m.synthetic = text(kMetaSynthetic) == "1";
  m.source_description = text(kMetaSourceDescription);
  m.time_ordered = text(kMetaTimeOrdered) != "0";
  state.has_attainable = text(kMetaHasAttainable) == "1";
  state.has_pm_pause = m.schema_version >= 4 && text(kMetaHasPmPause) == "1";
  m.kernel_log = text(kMetaKernelLog);
  m.workload_refresh = text(kMetaWorkloadRefresh) == "1";
  if (parse_int(text(kMetaKernelClockOffsetNs), number)) m.kernel_clock_offset_ns = number;
  m.kernels_dropped =
      parse_int(text(kMetaKernelsDropped), number) && number > 0 ? static_cast<std::uint64_t>(number) : 0;
  return core::ok();
}

auto check_version(const ReaderState& state) -> core::Result<void> {
  const TraceMetadata& m = state.metadata;
  if (m.oldest_readable_version > kSchemaVersion) {
    std::string schema = "schema " + std::to_string(m.schema_version);
    if (m.oldest_readable_version != m.schema_version) {
      schema += " that needs a reader of schema " + std::to_string(m.oldest_readable_version) + " or newer";
    }
    return core::fail(core::ErrorCode::Unimplemented,
                      "trace " + state.path.string() + " was written by a newer solscope (" + schema +
                          ", this build reads up to " + std::to_string(kSchemaVersion) + ")",
                      "upgrade solscope");
  }
  if (m.schema_version < kOldestReadableSchema) {
    return core::fail(core::ErrorCode::Unimplemented,
                      "trace " + state.path.string() + " was written by an older solscope (schema " +
                          std::to_string(m.schema_version) + ", this build reads schema " +
                          std::to_string(kOldestReadableSchema) + " and newer)",
                      "read it with the solscope release that wrote it (" +
                          (m.tool_version.empty() ? std::string("unknown") : m.tool_version) + ")");
  }
  return core::ok();
}

/// Reads the schema-4 MIG columns of a devices row, from result column `first` on.
void read_mig_identity(sqlite3_stmt* s, int first, core::DeviceInfo& d) {
  const auto int_or = [s](int column, std::int32_t unknown) {
    return sqlite3_column_type(s, column) == SQLITE_NULL
               ? unknown
               : static_cast<std::int32_t>(sqlite3_column_int64(s, column));
  };
  d.parent_uuid = column_utf8(s, first);
  d.gpu_index = std::max(-1, int_or(first + 1, -1));
  d.mig_compute_instance_id = std::max(-1, int_or(first + 2, -1));
  d.mig_sm_share = column_real_or_nan(s, first + 3);
  d.mig_memory_share = column_real_or_nan(s, first + 4);
}

/// Loads the devices table; the schema-3 columns (host, MIG, attribution) and the schema-4 ones (MIG
/// identity) only from files that have them.
auto load_devices(ReaderState& state) -> void {
  const bool placement = state.metadata.schema_version >= 3;
  const bool mig_identity = state.metadata.schema_version >= 4;
  const std::string sql = std::string(
                              "SELECT device, uuid, name, chip, pci_bus_id, sm_count, max_sm_clock_mhz, "
                              "max_mem_clock_mhz, memory_total_bytes, dram_peak_bytes_per_s") +
                          (placement ? ", host, mig_profile, mig_instance_id, attribution" : "") +
                          (mig_identity ? ", parent_uuid, gpu_index, mig_compute_instance_id, mig_sm_share, "
                                          "mig_memory_share"
                                        : "") +
                          " FROM devices ORDER BY device";
  auto statement = prepare(state.db.get(), sql, "cannot read devices");
  int rc = statement ? SQLITE_OK : SQLITE_CORRUPT;
  while (statement && (rc = sqlite3_step(statement->get())) == SQLITE_ROW) {
    sqlite3_stmt* s = statement->get();
    core::DeviceInfo d;
    d.index = static_cast<std::uint32_t>(sqlite3_column_int64(s, 0));
    d.uuid = column_utf8(s, 1);
    d.name = column_utf8(s, 2);
    d.chip = column_utf8(s, 3);
    d.pci_bus_id = column_utf8(s, 4);
    d.sm_count = static_cast<std::uint32_t>(sqlite3_column_int64(s, 5));
    d.max_sm_clock_mhz = column_real_or_nan(s, 6);
    d.max_mem_clock_mhz = column_real_or_nan(s, 7);
    d.memory_total_bytes = static_cast<std::uint64_t>(sqlite3_column_int64(s, 8));
    d.dram_peak_bytes_per_s = column_real_or_nan(s, 9);
    if (placement) {
      d.host = column_utf8(s, 10);
      d.mig_profile = column_utf8(s, 11);
      d.mig_instance_id = sqlite3_column_type(s, 12) == SQLITE_NULL
                              ? -1
                              : static_cast<std::int32_t>(sqlite3_column_int64(s, 12));
      d.attribution = column_utf8(s, 13);
    }
    if (mig_identity) read_mig_identity(s, 14, d);
    state.devices.push_back(std::move(d));
  }
  if (rc != SQLITE_DONE) mark_recovered(state, "has a damaged devices table");
}

auto load_metrics(ReaderState& state) -> core::Result<void> {
  const std::string what = "cannot read the metrics table of trace " + state.path.string();
  auto statement = prepare(state.db.get(), "SELECT id, name FROM metrics ORDER BY id", what);
  if (!statement) return core::fail(damaged_schema(std::move(statement.error())));
  constexpr std::int64_t kMaxMetrics = 4096;  // far above any catalog; guards against a damaged id
  int rc = 0;
  while ((rc = sqlite3_step(statement->get())) == SQLITE_ROW) {
    const std::int64_t id = sqlite3_column_int64(statement->get(), 0);
    if (id < 0 || id >= kMaxMetrics) continue;
    const auto position = static_cast<std::size_t>(id);
    if (state.file_to_catalog.size() <= position) state.file_to_catalog.resize(position + 1, -1);
    const core::MetricId metric = core::metric_by_name(column_text(statement->get(), 1));
    if (metric != core::MetricId::kCount)
      state.file_to_catalog[position] = static_cast<int>(core::index_of(metric));
  }
  if (rc != SQLITE_DONE) {
    core::Error error = sqlite_error(state.db.get(), rc, what);
    error.hint = "without it the raw counters cannot be decoded";
    return core::fail(std::move(error));
  }
  bool identity = state.file_to_catalog.size() == core::kMetricCount;
  for (std::size_t i = 0; identity && i < state.file_to_catalog.size(); ++i) {
    identity = state.file_to_catalog[i] == static_cast<int>(i);
  }
  state.identity_layout = identity;
  return core::ok();
}

/// Prepares the sample query once: a schema whose table entries are listed but cannot be parsed ("no such
/// table: samples" under writable_schema) is damage (DataLoss), found at open rather than at the first read.
auto check_sample_query(const ReaderState& state) -> core::Result<void> {
  sqlite3_stmt* raw = nullptr;
  const std::string_view sql = kSelectSamplesSql;
  const int rc = sqlite3_prepare_v2(state.db.get(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
  Statement statement(raw);
  if (rc == SQLITE_OK) return core::ok();
  std::string why = sqlite3_errmsg(state.db.get());
  if (!state.recovery_what.empty()) why += "; it " + state.recovery_what;
  return core::fail(
      core::ErrorCode::DataLoss,
      "trace " + state.path.string() + " is damaged beyond repair: its schema is unreadable (" + why + ")",
      "no sample can be recovered from it; record again");
}

/// Runs a one-value integer query; nullopt on error or NULL.
auto query_int(sqlite3* db, const char* sql) -> std::optional<std::int64_t> {
  auto statement = prepare(db, sql, "count");
  if (!statement || sqlite3_step(statement->get()) != SQLITE_ROW) return std::nullopt;
  if (sqlite3_column_type(statement->get(), 0) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(statement->get(), 0);
}

/// Counts the samples. count(*) walks every page of `samples`; a max(sample_id) of `sample_counters` that
/// differs from max(id) means the counters table lost pages. On damage the count is of the readable prefix.
auto count_samples(const std::shared_ptr<ReaderState>& state, const FileProbe& probe) -> void {
  sqlite3* db = state->db.get();
  const auto count = query_int(db, "SELECT count(*) FROM samples");
  const auto min_id = query_int(db, "SELECT min(id) FROM samples");
  const auto max_id = query_int(db, "SELECT max(id) FROM samples");
  const auto max_counter = query_int(db, "SELECT max(sample_id) FROM sample_counters");
  state->min_id = min_id.value_or(std::numeric_limits<std::int64_t>::min());
  state->max_id = max_id.value_or(std::numeric_limits<std::int64_t>::max());
  state->table_rows = count_table_rows(db, "samples", "sample_counters");
  const bool consistent = count.has_value() && (*count == 0 || (min_id && max_id && max_counter == max_id));
  const bool short_file = cut_short(probe);
  if (consistent && !short_file && !state->recovered()) {
    state->sample_count = static_cast<std::uint64_t>(*count);
    return;
  }
  std::uint64_t readable = 0;
  if (auto cursor = make_cursor_state(state, ReadOptions{})) {
    while (step_to_next(**cursor)) ++readable;
  }
  state->sample_count = readable;
  if (short_file) {
    mark_recovered(*state, "is cut short (" + human_bytes(probe.size_bytes) + " of the " +
                               human_bytes(std::uintmax_t{probe.header_pages} * probe.page_size_bytes) +
                               " its header declares)");
  } else if (state->recovery_what.empty()) {
    mark_recovered(*state, "is damaged");
  }
}

}  // namespace

auto open_reader_state(const fs::path& path) -> core::Result<std::shared_ptr<ReaderState>> {
  auto probe = probe_trace_file(path);
  if (!probe) return core::propagate(probe);
  auto state = std::make_shared<ReaderState>();
  state->path = path;
  std::set<std::string, std::less<>> tables;
  auto db = connect_with_fallback(*state, *probe, tables);
  if (!db) return core::propagate(db);
  state->db = std::move(*db);
  if (probe->has_wal) check_wal(*state);
  if (!tables.contains("meta")) return core::fail(not_a_trace(path, "has no meta table"));
  if (auto done = load_meta(*state); !done) return core::propagate(done);
  if (auto done = check_version(*state); !done) return core::propagate(done);
  for (const char* table : {"devices", "metrics", "samples", "sample_counters"}) {
    if (!tables.contains(table)) {
      return core::fail(not_a_trace(path, std::string("lacks the ") + table + " table"));
    }
  }
  state->has_kernel_table = tables.contains("kernels");
  state->has_workload_table = tables.contains("workloads");
  state->has_marker_table = tables.contains("markers");
  if (auto done = check_sample_query(*state); !done) return core::propagate(done);
  load_devices(*state);
  if (auto done = load_metrics(*state); !done) return core::propagate(done);
  count_samples(state, *probe);
  if (!state->recovered()) return state;
  const std::string what = "trace " + path.string() + " " + state->recovery_what;
  if (state->sample_count == 0) {
    return core::fail(core::ErrorCode::DataLoss, what + ": no sample can be read",
                      "record again; `sqlite3 " + path.string() + " .recover` may save parts of it");
  }
  state->recovery_note = what + ": " + std::to_string(state->sample_count) + " samples can be read";
  return state;
}

}  // namespace solscope::trace::detail
