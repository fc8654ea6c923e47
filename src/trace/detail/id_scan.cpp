#include "trace/detail/id_scan.hpp"

#include <algorithm>
#include <limits>

namespace solscope::trace::detail {

IdScan::IdScan(sqlite3* db, const IdScanWords& words, Statement select)
    : db_(db), words_(words), select_(std::move(select)) {
  damage_.table_rows = count_table_rows(db_, words_.table);
  rebind(std::numeric_limits<std::int64_t>::min());
}

auto IdScan::step() -> std::optional<std::int64_t> {
  sqlite3_stmt* s = select_.get();
  const std::uint64_t limit = step_limit(damage_.table_rows);
  while (!ended_) {
    if (++steps_ > limit) {
      count_damaged_row(words_.repeat);
      damage_.stopped = true;
      ended_ = true;
      break;
    }
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE || (rc != SQLITE_ROW && !step_over(rc))) {
      ended_ = true;
      break;
    }
    if (rc != SQLITE_ROW) continue;
    const std::int64_t id = sqlite3_column_int64(s, 0);
    const SteppedRow stepped{id, sqlite3_column_int64(s, 2), sqlite3_column_int64(s, 3)};
    if (stepped == previous_) {
      // A damaged page can hand out one row again and again: count it once and seek on.
      count_damaged_row(words_.out_of_order);
      if (id == std::numeric_limits<std::int64_t>::max()) {
        ended_ = true;
        break;
      }
      rebind(id);
      continue;
    }
    previous_ = stepped;
    return id;
  }
  return std::nullopt;
}

void IdScan::accept(std::int64_t id) {
  const auto rows = damage_.table_rows;
  if (id > last_id_ && (!rows || id <= static_cast<std::int64_t>(std::min<std::uint64_t>(
                                           *rows, std::numeric_limits<std::int64_t>::max())))) {
    last_id_ = id;
  }
}

void IdScan::rebind(std::int64_t after_id) {
  sqlite3_reset(select_.get());
  sqlite3_bind_int64(select_.get(), 1, after_id);
}

void IdScan::count_damaged_row(const char* cause) {
  ++damage_.skipped_rows;
  if (damage_.cause.empty()) damage_.cause = cause;
}

auto IdScan::readable_from(std::int64_t id) -> std::optional<std::int64_t> {
  sqlite3_reset(probe_.get());
  sqlite3_bind_int64(probe_.get(), 1, id);
  if (sqlite3_step(probe_.get()) != SQLITE_ROW) return std::nullopt;
  return sqlite3_column_int64(probe_.get(), 0);
}

auto IdScan::step_over(int rc) -> bool {
  IdScanDamage& d = damage_;
  if (d.cause.empty()) d.cause = sqlite3_errstr(rc);
  if (!probe_) {
    auto prepared = prepare(
        db_, "SELECT id FROM " + std::string(words_.table) + " WHERE id >= ?1 ORDER BY id LIMIT 1", "probe");
    if (prepared) probe_ = std::move(*prepared);
  }
  const std::int64_t max_id = max_readable_id();
  for (std::int64_t gap = 1; probe_ && last_id_ <= max_id - gap && gap > 0; gap *= 2) {
    const auto next = readable_from(last_id_ + gap);
    if (!next || *next <= last_id_ + 1) continue;  // none, or the seek landed before the damage: look further
    if (d.damaged_ranges++ == 0) {
      d.first_skipped_id = last_id_ + 1;
      d.last_skipped_id = *next - 1;
    }
    d.skipped_rows += static_cast<std::uint64_t>(*next - last_id_ - 1);
    last_id_ = *next - 1;
    rebind(last_id_);
    return true;
  }
  d.stopped = true;
  if (max_id > last_id_) d.skipped_rows += static_cast<std::uint64_t>(max_id - last_id_);
  return false;
}

auto IdScan::max_readable_id() const -> std::int64_t {
  auto statement = prepare(db_, "SELECT max(id) FROM " + std::string(words_.table), "max id");
  if (!statement || sqlite3_step(statement->get()) != SQLITE_ROW) return last_id_;
  return std::max<std::int64_t>(last_id_, sqlite3_column_int64(statement->get(), 0));
}

}  // namespace solscope::trace::detail
