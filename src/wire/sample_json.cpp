#include "wire/sample_json.hpp"

#include <array>
#include <charconv>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/limiter.hpp"
#include "core/metric_catalog.hpp"
#include "core/pm_yield.hpp"
#include "core/sol_terms.hpp"
#include "wire/detail/json_escape.hpp"
#include "wire/detail/sample_fields.hpp"
#include "wire/json_fields.hpp"
#include "wire/json_number.hpp"

namespace solscope::wire {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

/// Builds the document: the field list's visitor for sol_sample_to_json.
class DocumentBuilder {
 public:
  explicit DocumentBuilder(OrderedJson& root) : current_(&root) {}
  template <class Int>
  void integer(std::string_view key, Int value) {
    (*current_)[std::string(key)] = value;
  }
  void number(std::string_view key, double value) { (*current_)[std::string(key)] = number_or_null(value); }
  void text(std::string_view key, std::string_view value) {
    (*current_)[std::string(key)] = std::string(value);
  }
  void null(std::string_view key) { (*current_)[std::string(key)] = nullptr; }
  void begin_object(std::string_view key) {
    parent_ = current_;
    current_ = &((*current_)[std::string(key)] = OrderedJson::object());
  }
  void end_object() { current_ = parent_; }

 private:
  OrderedJson* current_;
  OrderedJson* parent_ = nullptr;  // one level of nesting is all the shape has
};

/// Room for any 64-bit integer in decimal, sign included.
constexpr std::size_t kIntegerBytes = 24;

/// Writes the text: the field list's visitor for append_sol_sample_json.
class TextWriter {
 public:
  explicit TextWriter(std::string& out) : out_(out) { out_ += '{'; }
  template <class Int>
  void integer(std::string_view key, Int value) {
    write_key(key);
    std::array<char, kIntegerBytes> digits{};
    const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), value);
    out_.append(digits.data(), static_cast<std::size_t>(end - digits.data()));
  }
  void number(std::string_view key, double value) {
    write_key(key);
    detail::append_json_number(out_, value);
  }
  void text(std::string_view key, std::string_view value) {
    write_key(key);
    detail::append_json_string(out_, value);
  }
  void null(std::string_view key) {
    write_key(key);
    out_ += "null";
  }
  void begin_object(std::string_view key) {
    write_key(key);
    out_ += '{';
    first_ = true;
  }
  void end_object() {
    out_ += '}';
    first_ = false;
  }
  void finish() { out_ += '}'; }

 private:
  /// Keys are the shape's own snake_case names (catalog, pipe and path names: letters, digits and `_`), so
  /// they are copied without the escaping scan, which cost a fifth of the line.
  void write_key(std::string_view key) {
    out_ += first_ ? "\"" : ",\"";
    first_ = false;
    out_ += key;
    out_ += "\":";
  }
  std::string& out_;
  bool first_ = true;
};

void read_pipes_and_paths(const Json& json, core::SolSample& s) {
  if (const auto pipes = json.find("pipes"); pipes != json.end() && pipes->is_object()) {
    for (std::size_t i = 0; i < core::kPipeCount; ++i) {
      s.pipe_pct[i] = number_field(*pipes, core::to_string(static_cast<core::Pipe>(i)));
    }
  }
  if (const auto paths = json.find("paths"); paths != json.end() && paths->is_object()) {
    for (std::size_t i = 0; i < core::kMemPathCount; ++i) {
      s.path_pct[i] = number_field(*paths, core::to_string(static_cast<core::MemPath>(i)));
    }
  }
}

}  // namespace

auto sol_sample_to_json(const core::SolSample& sample, const core::DeviceInfo* device) -> OrderedJson {
  OrderedJson out = OrderedJson::object();
  DocumentBuilder builder(out);
  detail::visit_sample_fields(sample, device, builder);
  return out;
}

void append_sol_sample_json(std::string& out, const core::SolSample& sample, const core::DeviceInfo* device) {
  TextWriter writer(out);
  detail::visit_sample_fields(sample, device, writer);
  writer.finish();
}

auto window_to_json(const core::SolSample& window, const core::DeviceInfo* device) -> OrderedJson {
  return sol_sample_to_json(window, device);
}

auto sample_from_json(const Json& json) -> core::Result<core::SolSample> {
  if (!json.is_object()) return core::fail(core::ErrorCode::InvalidArgument, "sample JSON is not an object");
  for (const char* key : {"device", "t_start_ns", "t_end_ns"}) {
    const auto it = json.find(key);
    if (it == json.end() || !it->is_number_integer()) {
      return core::fail(core::ErrorCode::InvalidArgument, std::string("sample JSON has no integer ") + key);
    }
  }
  core::SolSample s;
  s.device_index = json["device"].get<std::uint32_t>();
  s.t_start_ns = json["t_start_ns"].get<std::int64_t>();
  s.t_end_ns = json["t_end_ns"].get<std::int64_t>();
  s.source = core::source_kind_from_string(string_field(json, "source")).value_or(core::SourceKind::None);
  s.flags = integer_field<std::uint32_t>(json, "flags", 0);
  // Missing (a daemon from before the pause), null or a name this build does not know: not paused.
  s.pm_pause =
      core::parse_pm_pause_reason(string_field(json, "pm_pause")).value_or(core::PmPauseReason::kNone);
  s.compute_sol_pct = number_field(json, "compute_sol_pct");
  s.compute_pipe = core::pipe_from_string(string_field(json, "compute_pipe")).value_or(core::Pipe::kCount);
  s.memory_sol_pct = number_field(json, "memory_sol_pct");
  s.memory_path =
      core::mem_path_from_string(string_field(json, "memory_path")).value_or(core::MemPath::kCount);
  s.bound = core::bound_from_string(string_field(json, "bound")).value_or(core::Bound::Unknown);
  read_pipes_and_paths(json, s);
  s.dram_bytes_per_s = number_field(json, "dram_bytes_per_s");
  s.attainable_compute_sol_pct = number_field(json, "attainable_compute_sol_pct");
  s.attainable_memory_sol_pct = number_field(json, "attainable_memory_sol_pct");
  s.attainable_limiter =
      core::limiter_from_string(string_field(json, "attainable_limiter")).value_or(core::Limiter::kCount);
  for (const core::MetricDef& def : core::metric_catalog()) {
    s.metrics[core::index_of(def.id)] = number_field(json, def.name);
  }
  return s;
}

}  // namespace solscope::wire
