#include "trace/detail/workload_rows.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "trace/schema.hpp"

namespace solscope::trace::detail {
namespace {

#define SOLSCOPE_WORKLOAD_NAME(name, type) ", " #name
#define SOLSCOPE_WORKLOAD_PARAM(name, type) ", ?"
/// The workload columns, comma-separated (", device, t_start_ns, ..." with the leading ", " cut).
constexpr std::string_view kColumns = SOLSCOPE_TRACE_WORKLOAD_COLUMNS(SOLSCOPE_WORKLOAD_NAME);
constexpr std::string_view kParams = SOLSCOPE_TRACE_WORKLOAD_COLUMNS(SOLSCOPE_WORKLOAD_PARAM);
#undef SOLSCOPE_WORKLOAD_NAME
#undef SOLSCOPE_WORKLOAD_PARAM

auto insert_sql() -> std::string {
  return "INSERT INTO workloads(" + std::string(kColumns.substr(2)) + ") VALUES (" +
         std::string(kParams.substr(2)) + ")";
}

constexpr const char* kEndSql = "UPDATE workloads SET t_end_ns = max(t_start_ns, ?2) WHERE id = ?1";

auto real_or_nan(const std::optional<double>& v) -> double {
  return v.value_or(std::numeric_limits<double>::quiet_NaN());
}

}  // namespace

auto pids_text(std::span<const std::int32_t> pids) -> std::string {
  std::string out;
  for (const std::int32_t pid : pids) {
    if (!out.empty()) out += ',';
    out += std::to_string(pid);
  }
  return out;
}

auto parse_pids(std::string_view text) -> std::optional<std::vector<std::int32_t>> {
  std::vector<std::int32_t> pids;
  if (text.empty()) return pids;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    std::int32_t pid = 0;
    const char* first = text.data() + at;
    const char* last = text.data() + comma;
    const auto [end, ec] = std::from_chars(first, last, pid);
    if (ec != std::errc{} || end != last || pid <= 0) return std::nullopt;
    pids.push_back(pid);
    at = comma + 1;
  }
  return pids;
}

auto WorkloadRows::prepare(sqlite3* db) -> core::Result<void> {
  auto insert = detail::prepare(db, insert_sql(), "cannot prepare the workload insert", true);
  if (!insert) return core::propagate(insert);
  auto end = detail::prepare(db, kEndSql, "cannot prepare the workload update", true);
  if (!end) return core::propagate(end);
  insert_ = std::move(*insert);
  end_ = std::move(*end);
  return core::ok();
}

void WorkloadRows::reset() {
  insert_.reset();
  end_.reset();
}

auto WorkloadRows::changes(std::uint32_t device, const core::GpuWorkloads& workloads) -> bool {
  const auto it = accepted_.find(device);
  const bool same = it == accepted_.end() ? workloads.workloads.empty()
                                          : it->second.sharing == workloads.sharing &&
                                                it->second.workloads == workloads.workloads;
  if (same) return false;
  core::GpuWorkloads& kept = accepted_[device];
  kept.sharing = workloads.sharing;
  kept.workloads = workloads.workloads;
  return true;
}

auto WorkloadRows::open_of(std::uint32_t device) -> Open& {
  const auto it = std::find_if(open_.begin(), open_.end(), [&](const Open& o) { return o.device == device; });
  if (it != open_.end()) return *it;
  open_.push_back(Open{.device = device, .since_ns = std::numeric_limits<std::int64_t>::min(), .ids = {}});
  return open_.back();
}

auto WorkloadRows::end_rows(sqlite3* db, Open& open, std::int64_t end_ns) -> core::Result<void> {
  for (const std::int64_t id : open.ids) {
    sqlite3_stmt* s = end_.get();
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_int64(s, 2, end_ns);
    const int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return core::fail(sqlite_error(db, rc, "cannot end a workload row"));
  }
  open.ids.clear();
  return core::ok();
}

auto WorkloadRows::insert(sqlite3* db, const WorkloadChange& change, const core::WorkloadShare& share,
                          std::int64_t start_ns) -> core::Result<std::int64_t> {
  sqlite3_stmt* s = insert_.get();
  const std::string pids = pids_text(share.pids);
  const core::WorkloadIdentity& id = share.id;
  sqlite3_bind_int64(s, 1, change.device);
  sqlite3_bind_int64(s, 2, start_ns);
  sqlite3_bind_null(s, 3);
  bind_text_or_null(s, 4, core::to_string(change.workloads.sharing));
  bind_text_or_null(s, 5, core::to_string(share.origin));
  bind_text_or_null(s, 6, id.pod);
  bind_text_or_null(s, 7, id.pod_namespace);
  bind_text_or_null(s, 8, id.container);
  bind_text_or_null(s, 9, id.hpc_job);
  bind_text_or_null(s, 10, id.user);
  bind_text_or_null(s, 11, pids);
  bind_real_or_null(s, 12, real_or_nan(share.sm_pct));
  bind_real_or_null(s, 13, real_or_nan(share.fraction));
  const int rc = sqlite3_step(s);
  sqlite3_clear_bindings(s);  // the texts above do not outlive this call
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) return core::fail(sqlite_error(db, rc, "cannot write a workload row"));
  ++rows_;
  return sqlite3_last_insert_rowid(db);
}

auto WorkloadRows::write(sqlite3* db, std::span<const WorkloadChange> changes) -> core::Result<void> {
  for (const WorkloadChange& change : changes) {
    Open& open = open_of(change.device);
    const std::int64_t start_ns = std::max(change.t_ns, open.since_ns);
    if (auto ended = end_rows(db, open, start_ns); !ended) return ended;
    open.since_ns = start_ns;
    for (const core::WorkloadShare& share : change.workloads.workloads) {
      auto id = insert(db, change, share, start_ns);
      if (!id) return core::propagate(id);
      open.ids.push_back(*id);
    }
  }
  return core::ok();
}

auto WorkloadRows::end_all(sqlite3* db, std::int64_t end_ns) -> core::Result<void> {
  for (Open& open : open_) {
    if (auto ended = end_rows(db, open, end_ns); !ended) return ended;
  }
  return core::ok();
}

}  // namespace solscope::trace::detail
