#include "trace/detail/kernel_rows.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "trace/detail/id_scan.hpp"
#include "trace/detail/row_account.hpp"
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

/// The kernels table's name and damage wording for its IdScan.
constexpr IdScanWords kWords{"kernels", "kernel rows repeat (a damaged b-tree page)",
                             "kernel ids out of order (a damaged b-tree page)",
                             "a kernel's device or times lie outside the trace (a damaged row)"};

/// The current row of `s` as a record when its device and times lie in their domain (a device of the trace,
/// an end not before the start); nullopt for a damaged row.
auto decode(sqlite3_stmt* s, const std::vector<core::DeviceInfo>& devices)
    -> std::optional<core::KernelRecord> {
  if (!device_in_trace(sqlite3_column_int64(s, 1), devices) ||
      sqlite3_column_int64(s, 3) < sqlite3_column_int64(s, 2))
    return std::nullopt;
  return read_record(s);
}

/// True when `k` passes the options' filters. The filters run here, not in SQL, so that the scan's last id is
/// the last row SQLite stepped: a failed step is then damage right after it.
auto keep(const KernelReadOptions& options, const core::KernelRecord& k) -> bool {
  if (k.end_ns <= options.from_ns || k.start_ns >= options.to_ns) return false;
  return options.devices.empty() ||
         std::find(options.devices.begin(), options.devices.end(), k.device) != options.devices.end();
}

auto describe(const std::string& path, const KernelReadReport& r) -> std::string {
  return damage_note(path, kWords.table, r.kernels, "kernel records", r);
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

auto scan_kernels(sqlite3* db, const std::string& path, const std::vector<core::DeviceInfo>& devices,
                  const KernelReadOptions& options) -> core::Result<KernelTable> {
  std::vector<core::KernelRecord> kernels;
  auto table = scan_kernels_each(db, path, devices, options,
                                 [&](const core::KernelRecord& k) { kernels.push_back(k); });
  if (!table) return table;
  table->kernels = std::move(kernels);
  std::stable_sort(table->kernels.begin(), table->kernels.end(), [](const auto& a, const auto& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.device < b.device;
  });
  return table;
}

auto scan_kernels_each(sqlite3* db, const std::string& path, const std::vector<core::DeviceInfo>& devices,
                       const KernelReadOptions& options, const KernelSink& sink)
    -> core::Result<KernelTable> {
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
  IdScan scan(db, kWords, std::move(*select));
  scan.run([&](sqlite3_stmt* s) { return decode(s, devices); },
           [&](core::KernelRecord&& k) {
             if (!keep(options, k)) return;
             ++table.report.kernels;
             sink(k);
           });
  const bool unfiltered = options.devices.empty() &&
                          options.from_ns == std::numeric_limits<std::int64_t>::min() &&
                          options.to_ns == std::numeric_limits<std::int64_t>::max();
  scan.finish(table.report, unfiltered, table.report.kernels);
  if (table.report.damaged()) table.note = describe(path, table.report);
  return table;
}

}  // namespace solscope::trace::detail
