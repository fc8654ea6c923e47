#include "trace/detail/row_account.hpp"

#include <algorithm>
#include <limits>

namespace solscope::trace::detail {
namespace {

/// Whether `b` may follow `a` in the table's order.
auto in_order(const RowKey& a, const RowKey& b, bool time_ordered) -> bool {
  return a.id < b.id && (!time_ordered || a.t_ns <= b.t_ns);
}

/// One integer of a one-value query; nullopt on error, NULL or a negative value.
auto query_count(sqlite3* db, const std::string& sql) -> std::optional<std::uint64_t> {
  auto statement = prepare(db, sql, "count");
  if (!statement || sqlite3_step(statement->get()) != SQLITE_ROW) return std::nullopt;
  if (sqlite3_column_type(statement->get(), 0) == SQLITE_NULL) return std::nullopt;
  const std::int64_t n = sqlite3_column_int64(statement->get(), 0);
  if (n < 0) return std::nullopt;
  return static_cast<std::uint64_t>(n);
}

}  // namespace

auto step_limit(std::optional<std::uint64_t> rows) -> std::uint64_t {
  constexpr std::uint64_t kSpareSteps = 1024;  // room for rows a damaged page hands out twice
  return rows ? 2 * *rows + kSpareSteps : std::numeric_limits<std::uint64_t>::max();
}

auto fits_between(const std::optional<RowKey>& kept, const RowKey& row, const std::optional<RowKey>& next,
                  bool time_ordered) -> bool {
  if (kept && !in_order(*kept, row, time_ordered)) return false;
  if (!next || in_order(row, *next, time_ordered)) return true;
  // `row` and `next` disagree: `row` is the damaged one when `next` follows the kept row (or nothing was kept
  // yet); otherwise `next` is, and it is judged when its turn comes.
  return kept && !in_order(*kept, *next, time_ordered);
}

auto device_in_trace(std::int64_t device, const std::vector<core::DeviceInfo>& devices) -> bool {
  if (device < 0 || device > std::numeric_limits<std::uint32_t>::max()) return false;
  if (devices.empty()) return true;
  return std::any_of(devices.begin(), devices.end(), [&](const core::DeviceInfo& d) {
    return d.index == static_cast<std::uint32_t>(device);
  });
}

auto count_table_rows(sqlite3* db, std::string_view table, std::string_view twin)
    -> std::optional<std::uint64_t> {
  auto count = query_count(db, "SELECT count(*) FROM " + std::string(table));
  if (!count && !twin.empty()) count = query_count(db, "SELECT count(*) FROM " + std::string(twin));
  const auto max_id = query_count(db, "SELECT max(id) FROM " + std::string(table));
  if (!count) return max_id;
  // max(id) is the last cell's id: a damaged one may be anything, so only a near one is believed.
  if (max_id && *max_id < *count && *max_id >= *count / 2) return max_id;
  return count;
}

auto settle_rows(std::uint64_t counted, std::uint64_t read, std::optional<std::uint64_t> total,
                 bool whole_table) -> SettledRows {
  if (!total) return {counted, total};
  if (whole_table) {
    const std::uint64_t rows = std::max(*total, read);
    return {rows - read, rows};
  }
  return {std::min(counted, *total > read ? *total - read : 0), total};
}

auto skipped_rows_text(std::string_view table, std::uint64_t skipped, std::optional<std::uint64_t> total)
    -> std::string {
  std::string text = std::string(table) + ": " + group_thousands(skipped);
  if (total) text += " of " + group_thousands(*total);
  text += (total ? *total : skipped) == 1 ? " row" : " rows";
  return text + " damaged and skipped";
}

auto group_thousands(std::uint64_t n) -> std::string {
  std::string digits = std::to_string(n);
  for (std::size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
  return digits;
}

}  // namespace solscope::trace::detail
