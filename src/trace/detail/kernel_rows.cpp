#include "trace/detail/kernel_rows.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "trace/schema.hpp"

namespace solscope::trace::detail {
namespace {

#define SOLSCOPE_KERNEL_NAME(name, type) ", " #name
#define SOLSCOPE_KERNEL_PARAM(name, type) ", ?"
/// The kernel columns, comma-separated (", device, start_ns, ..." with the leading ", " cut).
constexpr std::string_view kColumns = SOLSCOPE_TRACE_KERNEL_COLUMNS(SOLSCOPE_KERNEL_NAME);
constexpr std::string_view kParams = SOLSCOPE_TRACE_KERNEL_COLUMNS(SOLSCOPE_KERNEL_PARAM);
#undef SOLSCOPE_KERNEL_NAME
#undef SOLSCOPE_KERNEL_PARAM

auto select_sql() -> std::string {
  return "SELECT id, " + std::string(kColumns.substr(2)) + " FROM kernels WHERE id > ?1 ORDER BY id";
}

auto as_u32(sqlite3_stmt* s, int column) -> std::uint32_t {
  return static_cast<std::uint32_t>(sqlite3_column_int64(s, column));
}

/// The current row of `s` (select_sql()'s columns) as a record.
auto read_record(sqlite3_stmt* s) -> core::KernelRecord {
  core::KernelRecord k;
  k.device = as_u32(s, 1);
  k.start_ns = sqlite3_column_int64(s, 2);
  k.end_ns = sqlite3_column_int64(s, 3);
  k.pid = static_cast<std::int32_t>(sqlite3_column_int64(s, 4));
  k.stream = as_u32(s, 5);
  k.correlation = static_cast<std::uint64_t>(sqlite3_column_int64(s, 6));
  for (int i = 0; i < 3; ++i) {
    k.grid[static_cast<std::size_t>(i)] = as_u32(s, 7 + i);
    k.block[static_cast<std::size_t>(i)] = as_u32(s, 10 + i);
  }
  k.name = column_utf8(s, 13);
  return k;
}

/// A scan in id order that steps over damaged id ranges.
struct Scan {
  sqlite3* db;
  const KernelReadOptions& options;
  KernelTable& table;
  const KernelSink& sink;  ///< gets each kept record
  Statement select;
  Statement probe;  ///< SELECT id >= ?1 LIMIT 1, unfiltered: the first readable row at or after an id
  std::int64_t last_id = 0;

  void rebind(std::int64_t after_id) {
    sqlite3_reset(select.get());
    sqlite3_bind_int64(select.get(), 1, after_id);
  }

  /// The first readable id at or after `id`; nullopt when the seek fails or no row follows.
  auto readable_from(std::int64_t id) -> std::optional<std::int64_t> {
    sqlite3_reset(probe.get());
    sqlite3_bind_int64(probe.get(), 1, id);
    if (sqlite3_step(probe.get()) != SQLITE_ROW) return std::nullopt;
    return sqlite3_column_int64(probe.get(), 0);
  }

  /// After a failed step past `last_id`: records the damage and resumes at the first readable id found by
  /// seeks at doubling distances. False when no later row can be read (the read stops).
  auto step_over(int rc) -> bool {
    KernelReadReport& r = table.report;
    if (r.cause.empty()) r.cause = sqlite3_errstr(rc);
    if (!probe) {
      auto prepared = prepare(db, "SELECT id FROM kernels WHERE id >= ?1 ORDER BY id LIMIT 1", "probe");
      if (prepared) probe = std::move(*prepared);
    }
    const std::int64_t max_id = max_readable_id();
    for (std::int64_t gap = 1; probe && last_id <= max_id - gap && gap > 0; gap *= 2) {
      const auto next = readable_from(last_id + gap);
      if (!next) continue;
      if (*next <= last_id + 1) continue;  // the seek landed before the damage: look further
      if (r.damaged_ranges++ == 0) {
        r.first_skipped_id = last_id + 1;
        r.last_skipped_id = *next - 1;
      }
      r.skipped_rows += static_cast<std::uint64_t>(*next - last_id - 1);
      last_id = *next - 1;
      rebind(last_id);
      return true;
    }
    r.stopped = true;
    if (max_id > last_id) r.skipped_rows += static_cast<std::uint64_t>(max_id - last_id);
    return false;
  }

  /// max(id), read from the right edge of the b-tree; last_id when even that is unreadable.
  [[nodiscard]] auto max_readable_id() const -> std::int64_t {
    auto statement = prepare(db, "SELECT max(id) FROM kernels", "max id");
    if (!statement || sqlite3_step(statement->get()) != SQLITE_ROW) return last_id;
    return std::max<std::int64_t>(last_id, sqlite3_column_int64(statement->get(), 0));
  }

  /// The filters run here, not in SQL, so that last_id is the last row SQLite stepped: a failed step is then
  /// damage right after it.
  auto keep(const core::KernelRecord& k) const -> bool {
    if (k.end_ns <= options.from_ns || k.start_ns >= options.to_ns) return false;
    return options.devices.empty() ||
           std::find(options.devices.begin(), options.devices.end(), k.device) != options.devices.end();
  }

  void run() {
    rebind(0);
    std::int64_t previous = std::numeric_limits<std::int64_t>::min();
    for (;;) {
      const int rc = sqlite3_step(select.get());
      if (rc == SQLITE_ROW) {
        last_id = sqlite3_column_int64(select.get(), 0);
        if (last_id <= previous) break;  // a damaged page can loop; ids only rise
        previous = last_id;
        core::KernelRecord k = read_record(select.get());
        if (keep(k)) {
          ++table.report.kernels;
          sink(k);
        }
        continue;
      }
      if (rc == SQLITE_DONE || !step_over(rc)) break;
    }
  }
};

auto describe(const std::string& path, const KernelReadReport& r) -> std::string {
  std::string note = "trace " + path + ": its kernels table is damaged: read " + std::to_string(r.kernels) +
                     " kernel records";
  if (r.damaged_ranges > 0) {
    note += "; skipped " + std::to_string(r.skipped_rows) + " unreadable rows in " +
            std::to_string(r.damaged_ranges) + " range(s), the first ids " +
            std::to_string(r.first_skipped_id) + "-" + std::to_string(r.last_skipped_id);
  }
  if (r.stopped) note += "; the rest of the table could not be read";
  if (!r.cause.empty()) note += " (SQLite: " + r.cause + ")";
  return note;
}

}  // namespace

auto insert_kernel_sql() -> const std::string& {
  static const std::string sql = "INSERT INTO kernels(" + std::string(kColumns.substr(2)) + ") VALUES (" +
                                 std::string(kParams.substr(2)) + ")";
  return sql;
}

auto insert_kernels(sqlite3* db, sqlite3_stmt* insert, std::span<const core::KernelRecord> records)
    -> core::Result<void> {
  for (const core::KernelRecord& k : records) {
    sqlite3_bind_int64(insert, 1, k.device);
    sqlite3_bind_int64(insert, 2, k.start_ns);
    sqlite3_bind_int64(insert, 3, k.end_ns);
    sqlite3_bind_int64(insert, 4, k.pid);
    sqlite3_bind_int64(insert, 5, k.stream);
    sqlite3_bind_int64(insert, 6, static_cast<std::int64_t>(k.correlation));
    for (int i = 0; i < 3; ++i) {
      sqlite3_bind_int64(insert, 7 + i, k.grid[static_cast<std::size_t>(i)]);
      sqlite3_bind_int64(insert, 10 + i, k.block[static_cast<std::size_t>(i)]);
    }
    sqlite3_bind_text(insert, 13, k.name.data(), static_cast<int>(k.name.size()), SQLITE_STATIC);
    const int rc = sqlite3_step(insert);
    sqlite3_reset(insert);
    if (rc != SQLITE_DONE) return core::fail(sqlite_error(db, rc, "cannot insert a kernel record"));
  }
  return core::ok();
}

auto clip_kernel_name(std::string name) -> std::string {
  if (name.size() <= kMaxKernelNameBytes) return name;
  std::size_t cut = kMaxKernelNameBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) so that no character is split.
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  name.resize(cut);
  return name;
}

auto scan_kernels(sqlite3* db, const std::string& path, const KernelReadOptions& options)
    -> core::Result<KernelTable> {
  std::vector<core::KernelRecord> kernels;
  auto table =
      scan_kernels_each(db, path, options, [&](const core::KernelRecord& k) { kernels.push_back(k); });
  if (!table) return table;
  table->kernels = std::move(kernels);
  std::stable_sort(table->kernels.begin(), table->kernels.end(), [](const auto& a, const auto& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.device < b.device;
  });
  return table;
}

auto scan_kernels_each(sqlite3* db, const std::string& path, const KernelReadOptions& options,
                       const KernelSink& sink) -> core::Result<KernelTable> {
  KernelTable table;
  table.present = true;
  auto select = prepare(db, select_sql(), "cannot read the kernels of trace " + path);
  if (!select) {
    // A schema entry that does not parse, or damage on the first page: nothing of the table can be read.
    table.report.stopped = true;
    table.report.cause = select.error().message;
    table.note = describe(path, table.report);
    if (select.error().code == core::ErrorCode::DataLoss || select.error().code == core::ErrorCode::Internal)
      return table;
    return core::propagate(select);
  }
  Scan scan{db, options, table, sink, std::move(*select), {}, 0};
  scan.run();
  if (table.report.damaged()) table.note = describe(path, table.report);
  return table;
}

}  // namespace solscope::trace::detail
