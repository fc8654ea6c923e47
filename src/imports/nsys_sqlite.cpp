#include "imports/nsys_sqlite.hpp"

#include "core/metric_domain.hpp"
#include "core/text.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <string>

namespace solscope::imports {
namespace {

struct DbClose {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StmtFinalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, DbClose>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalize>;

/// Largest session time and session start accepted (ns): 100 years; their sum stays inside an int64.
constexpr std::int64_t kMaxSessionNs = 100LL * 365 * 86400 * 1'000'000'000;

constexpr std::array<std::pair<std::string_view, core::MetricId>, 10> kNames{{
    {"gr active", core::MetricId::GrActive},
    {"sm active", core::MetricId::SmActive},
    {"sms active", core::MetricId::SmActive},
    {"sm issue", core::MetricId::IssueActive},
    {"tensor active", core::MetricId::TensorPipe},
    {"compute warps in flight", core::MetricId::SmOccupancy},
    {"dram read bandwidth", core::MetricId::DramThroughput},
    {"dram write bandwidth", core::MetricId::DramThroughput},
    {"pcie read throughput", core::MetricId::kCount},
    {"pcie write throughput", core::MetricId::kCount},
}};

auto prepare(sqlite3* db, const char* sql) -> Stmt {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) return Stmt{};
  return Stmt{s};
}

auto has_table(sqlite3* db, const char* name) -> bool {
  Stmt s = prepare(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1");
  if (!s) return false;
  sqlite3_bind_text(s.get(), 1, name, -1, SQLITE_STATIC);
  return sqlite3_step(s.get()) == SQLITE_ROW;
}

/// Column `column` as valid UTF-8 ("" when NULL): every text of the export enters here, and an export can
/// hold any bytes, so ill-formed ones become U+FFFD (core::valid_utf8).
auto column_text(sqlite3_stmt* s, int column) -> std::string {
  const unsigned char* text = sqlite3_column_text(s, column);
  if (text == nullptr) return {};
  return core::valid_utf8(std::string_view(reinterpret_cast<const char*>(text),
                                           static_cast<std::size_t>(sqlite3_column_bytes(s, column))));
}

auto damaged(sqlite3* db, const std::filesystem::path& path) -> core::Error {
  return core::Error{core::ErrorCode::DataLoss, "cannot read " + path.string() + ": " + sqlite3_errmsg(db),
                     "export the report again (`nsys export --type sqlite REPORT.nsys-rep`)"};
}

/// The metrics of each GPU metric set: (typeId, metricId) -> (metric, is a DRAM part). Devices by typeId.
struct MetricMap {
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<core::MetricId, bool>> metrics;
  std::map<std::int64_t, std::uint32_t> devices;
};

auto read_metric_names(sqlite3* db, Recording& recording) -> MetricMap {
  MetricMap map;
  Stmt s = prepare(db,
                   "SELECT typeId, typeName, metricId, metricName FROM TARGET_INFO_GPU_METRICS "
                   "ORDER BY typeId, metricId");
  while (s && sqlite3_step(s.get()) == SQLITE_ROW) {
    const std::int64_t type = sqlite3_column_int64(s.get(), 0);
    auto [it, fresh] = map.devices.try_emplace(type, static_cast<std::uint32_t>(recording.devices.size()));
    if (fresh) {
      core::DeviceInfo d;
      d.index = it->second;
      d.name = column_text(s.get(), 1) + " (nsys GPU metrics, type " + std::to_string(type) + ")";
      recording.devices.push_back(std::move(d));
    }
    const std::string name = column_text(s.get(), 3);
    bool dram = false;
    const core::MetricId metric = nsys_metric(name, dram);
    if (metric == core::MetricId::kCount) continue;
    map.metrics[{type, sqlite3_column_int64(s.get(), 2)}] = {metric, dram};
  }
  return map;
}

/// Places relative session times in wall-clock time when the export says when the session started.
auto session_start_ns(sqlite3* db) -> std::optional<std::int64_t> {
  if (!has_table(db, "TARGET_INFO_SESSION_START_TIME")) return std::nullopt;
  Stmt s = prepare(db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1");
  if (!s || sqlite3_step(s.get()) != SQLITE_ROW) return std::nullopt;
  return sqlite3_column_int64(s.get(), 0);
}

/// The value of a GPU_METRICS row (column `column`) as a number in `metric`'s range; NaN, counted in
/// `tally`, for NULL, text, a blob or a number outside the range (unknown is never 0).
auto metric_value(sqlite3_stmt* s, int column, core::MetricId metric, core::DomainTally& tally) -> double {
  const int type = sqlite3_column_type(s, column);
  if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
    tally.add(metric);
    return core::kUnknown;
  }
  return core::domain_checked(metric, sqlite3_column_double(s, column), tally);
}

/// The sample being filled for one GPU metric set.
struct OpenSample {
  core::RawSample sample;
  bool dram_unknown = false;  ///< a DRAM part was unknown: so is their sum
};

/// Puts one value into `open`: DRAM read and write parts add up, and an unknown part makes the sum unknown.
void put_value(OpenSample& open, core::MetricId metric, bool dram_part, double value) {
  if (!dram_part) {
    open.sample.set(metric, value);
    return;
  }
  open.dram_unknown = open.dram_unknown || std::isnan(value);
  const double before = open.sample.value(metric);
  open.sample.set(metric, open.dram_unknown ? core::kUnknown : (std::isnan(before) ? value : before + value));
}

}  // namespace

auto nsys_metric(std::string_view metric_name, bool& dram_part) -> core::MetricId {
  std::string_view name = metric_name;
  const std::size_t bracket = name.find('[');
  if (bracket != std::string_view::npos) {
    if (name.find('%', bracket) == std::string_view::npos) return core::MetricId::kCount;  // not a percent
    name = name.substr(0, bracket);
  }
  std::string key = core::to_lower_ascii(name);
  while (!key.empty() && key.back() == ' ') key.pop_back();
  for (const auto& [n, id] : kNames) {
    if (n == key) {
      dram_part = id == core::MetricId::DramThroughput;
      return id;
    }
  }
  return core::MetricId::kCount;
}

auto read_nsys_sqlite(const std::filesystem::path& path) -> core::Result<Recording> {
  sqlite3* raw_db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw_db, SQLITE_OPEN_READONLY, nullptr);
  Db db{raw_db};
  if (rc != SQLITE_OK) return core::fail(damaged(db.get(), path));
  if (!has_table(db.get(), "GPU_METRICS") || !has_table(db.get(), "TARGET_INFO_GPU_METRICS")) {
    if (sqlite3_errcode(db.get()) != SQLITE_OK && sqlite3_errcode(db.get()) != SQLITE_DONE &&
        sqlite3_errcode(db.get()) != SQLITE_ROW) {
      return core::fail(damaged(db.get(), path));
    }
    return core::fail(core::ErrorCode::InvalidArgument,
                      path.string() + " has no GPU_METRICS and TARGET_INFO_GPU_METRICS tables",
                      "profile with GPU metrics sampling (`nsys profile --gpu-metrics-devices=all ...`) and "
                      "export with `nsys export --type sqlite`");
  }
  Recording recording;
  const MetricMap map = read_metric_names(db.get(), recording);
  Stmt s = prepare(db.get(),
                   "SELECT timestamp, typeId, metricId, value FROM GPU_METRICS ORDER BY timestamp, typeId");
  if (!s) return core::fail(damaged(db.get(), path));
  std::map<std::int64_t, OpenSample> open;  // typeId -> the sample being filled
  int step = SQLITE_ROW;
  while ((step = sqlite3_step(s.get())) == SQLITE_ROW) {
    const std::int64_t t = sqlite3_column_int64(s.get(), 0);
    if (t < 0 || t > kMaxSessionNs) {
      return core::fail(core::ErrorCode::DataLoss,
                        path.string() + ": GPU_METRICS timestamp " + std::to_string(t) +
                            " ns is not a time within a session",
                        "export the report again (`nsys export --type sqlite REPORT.nsys-rep`)");
    }
    const std::int64_t type = sqlite3_column_int64(s.get(), 1);
    const auto found = map.metrics.find({type, sqlite3_column_int64(s.get(), 2)});
    if (found == map.metrics.end()) continue;
    const auto [metric, dram] = found->second;
    const double value = metric_value(s.get(), 3, metric, recording.tally.out_of_domain);
    auto [it, fresh] = open.try_emplace(type);
    OpenSample& o = it->second;
    if (!fresh && o.sample.t_end_ns != t) {
      recording.samples.push_back(o.sample);
      o = OpenSample{};
      fresh = true;
    }
    if (fresh) {
      o.sample.device_index = map.devices.at(type);
      o.sample.source = core::SourceKind::Nsys;
      o.sample.t_end_ns = t;
    }
    put_value(o, metric, dram, value);
  }
  if (step != SQLITE_DONE) return core::fail(damaged(db.get(), path));
  for (auto& [type, o] : open) recording.samples.push_back(o.sample);
  if (recording.samples.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      path.string() +
                          " holds no GPU_METRICS sample of a metric solscope reads (SM, tensor, "
                          "DRAM activity)",
                      "profile with GPU metrics sampling (`nsys profile --gpu-metrics-devices=all ...`)");
  }
  std::stable_sort(
      recording.samples.begin(), recording.samples.end(),
      [](const core::RawSample& x, const core::RawSample& y) { return x.t_end_ns < y.t_end_ns; });
  if (const auto start = session_start_ns(db.get()); start && *start >= 0 && *start < kMaxSessionNs) {
    for (core::RawSample& sample : recording.samples) sample.t_end_ns += *start;
  } else {
    recording.relative_times = true;
  }
  if (auto spanned = span_from_previous(recording, 10'000'000); !spanned) return core::propagate(spanned);
  check_domains(recording);  // the DRAM sums: each part was checked as it was read
  recording.sol_definition = std::string(kNsysSolDefinition);
  return recording;
}

}  // namespace solscope::imports
