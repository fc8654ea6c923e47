#include "ceiling/measured_rows.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <utility>

namespace solscope::ceiling::testing {
namespace {

using nlohmann::json;

/// Where a field went wrong: "<file>:<line>: <what>".
auto at_line(const std::string& path, int line, const std::string& what) -> core::Error {
  return core::Error{core::ErrorCode::InvalidArgument, path + ":" + std::to_string(line) + ": " + what,
                     "see tests/data/measured/README.md for the fields"};
}

/// Reads the fields of one line's object; throws nothing (every lookup is checked).
class LineReader {
 public:
  LineReader(const json& object, std::string path, int line)
      : object_(object), path_(std::move(path)), line_(line) {}

  auto text(const char* key, std::string& out) -> bool {
    const auto it = object_.find(key);
    if (it == object_.end() || !it->is_string()) return missing(key, "a string");
    out = it->get<std::string>();
    return true;
  }
  template <typename Int>
  auto integer(const char* key, Int& out) -> bool {
    const auto it = object_.find(key);
    if (it == object_.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0) {
      return missing(key, "a whole number >= 0");
    }
    out = static_cast<Int>(it->get<std::int64_t>());
    return true;
  }
  auto number(const char* key, double& out) -> bool {
    const auto it = object_.find(key);
    if (it == object_.end() || !it->is_number() || !std::isfinite(it->get<double>())) {
      return missing(key, "a number");
    }
    out = it->get<double>();
    return true;
  }
  auto flag(const char* key, bool& out) -> bool {
    const auto it = object_.find(key);
    if (it == object_.end() || !it->is_boolean()) return missing(key, "true or false");
    out = it->get<bool>();
    return true;
  }
  /// A number of requests, or "max".
  auto concurrency(std::optional<std::int64_t>& out) -> bool {
    const auto it = object_.find("concurrency");
    if (it != object_.end() && it->is_string() && it->get<std::string>() == "max") {
      out.reset();
      return true;
    }
    std::int64_t n = 0;
    if (!integer("concurrency", n) || n < 1) return missing("concurrency", "a number >= 1 or \"max\"");
    out = n;
    return true;
  }
  [[nodiscard]] auto error() const -> const std::optional<core::Error>& { return error_; }

 private:
  auto missing(const char* key, const char* kind) -> bool {
    if (!error_) error_ = at_line(path_, line_, std::string("field '") + key + "' must be " + kind);
    return false;
  }
  const json& object_;
  std::string path_;
  int line_;
  std::optional<core::Error> error_;
};

auto known_metric(const std::string& metric) -> bool {
  return metric == kMetricOutputTotal || metric == kMetricOutputPerGpu || metric == kMetricTensorSol;
}

auto parse_row(const json& object, const std::string& path, int line) -> core::Result<MeasuredRow> {
  MeasuredRow r;
  LineReader in(object, path, line);
  const bool ok = in.text("id", r.id) && in.text("engine", r.engine) &&
                  in.text("engine_version", r.engine_version) && in.text("model", r.model) &&
                  in.text("gpu", r.gpu) && in.integer("gpus", r.gpus) && in.integer("tp", r.tp) &&
                  in.integer("ep", r.ep) && in.text("weight_dtype", r.weight_dtype) &&
                  in.text("activation_dtype", r.activation_dtype) && in.text("kv_dtype", r.kv_dtype) &&
                  in.integer("isl", r.isl) && in.integer("osl", r.osl) && in.concurrency(r.concurrency) &&
                  in.integer("max_batched_tokens", r.max_batched_tokens) &&
                  in.flag("max_batched_tokens_stated", r.max_batched_tokens_stated) &&
                  in.text("metric", r.metric) && in.number("value", r.value) && in.text("source", r.source);
  if (!ok) return core::fail(*in.error());
  if (!known_metric(r.metric)) return core::fail(at_line(path, line, "unknown metric '" + r.metric + "'"));
  if (r.tp < 1 || r.gpus < r.tp || r.gpus % r.tp != 0) {
    return core::fail(at_line(path, line, "gpus must be a multiple of tp (>= 1)"));
  }
  return r;
}

}  // namespace

auto measured_path(std::string_view file) -> std::string {
  return std::string(SOLSCOPE_TEST_DATA_DIR) + "/measured/" + std::string(file);
}

auto read_measured_rows(const std::string& path) -> core::Result<std::vector<MeasuredRow>> {
  std::ifstream in(path);
  if (!in.good()) return core::fail(core::ErrorCode::NotFound, "cannot read " + path, "");
  std::vector<MeasuredRow> rows;
  std::set<std::string> ids;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const json object = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!object.is_object()) return core::fail(at_line(path, line, "not a JSON object"));
    auto row = parse_row(object, path, line);
    if (!row) return core::propagate(row);
    if (!ids.insert(row->id).second) return core::fail(at_line(path, line, "duplicate id '" + row->id + "'"));
    rows.push_back(std::move(*row));
  }
  return rows;
}

auto measured_tokens_per_s_per_gpu(const MeasuredRow& row) -> double {
  if (row.metric == kMetricOutputTotal) return row.value / row.gpus;
  if (row.metric == kMetricOutputPerGpu) return row.value;
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace solscope::ceiling::testing
