// parse_prom_query_answer (net/prom_query.hpp): one pass over the body with nlohmann's SAX interface, so that
// the answer is read into PromAnswer as it is parsed, without a JSON tree, and a body past a limit (nesting,
// series, points, labels) stops at the first byte past it. Only a point is built as a small JSON value, to
// check its shape and to quote it when it does not read.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "net/prom_query.hpp"
#include "net/time_limits.hpp"

namespace solscope::net {
namespace {

using Json = nlohmann::json;

constexpr auto kMaxUnixSeconds = static_cast<double>(kLatestUnixSeconds);

/// A value string as Prometheus writes it: "NaN", "+Inf", "-Inf", or a whole finite decimal number (an
/// optional leading '+' allowed).
auto parse_value(std::string_view text) -> std::optional<double> {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

/// One point [unix seconds, "value"] as (Unix ns at ms resolution, value); nullopt when it does not read.
auto parse_point(const Json& pair) -> std::optional<std::pair<std::int64_t, double>> {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_string())
    return std::nullopt;
  const double time_s = pair[0].get<double>();
  if (!std::isfinite(time_s) || time_s < 0 || time_s >= kMaxUnixSeconds) return std::nullopt;
  const auto value = parse_value(pair[1].get_ref<const std::string&>());
  if (!value) return std::nullopt;
  return std::pair{static_cast<std::int64_t>(std::llround(time_s * 1e3)) * 1'000'000, *value};
}

auto syntax_error(std::size_t byte, std::string what, std::string_view text) -> core::Error {
  const std::size_t offset = std::min(byte > 0 ? byte - 1 : 0, text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t line = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  const std::size_t last_nl = before.rfind('\n');
  const std::size_t column = offset - (last_nl == std::string_view::npos ? 0 : last_nl + 1) + 1;
  if (const auto at = what.find("parse error"); at != std::string::npos) what = what.substr(at);
  return core::Error{
      core::ErrorCode::DataLoss,
      "line " + std::to_string(line) + ": column " + std::to_string(column) + ": invalid JSON (" + what + ")",
      {}};
}

/// nlohmann's exception ids of its parse errors (parse_error.1xx); the others (out_of_range.406, a number
/// beyond a double) are refusals of a well-formed text.
constexpr int kFirstParseErrorId = 100;
constexpr int kLastParseErrorId = 199;

/// One JSON value built from SAX events: a point, or an instant "value", whatever it holds.
class Capture {
 public:
  [[nodiscard]] auto active() const -> bool { return active_; }
  void begin() {
    active_ = true;
    root_ = Json();
    open_.clear();
  }
  /// Adds a scalar; true when it completes the value.
  auto add(Json value) -> bool {
    if (open_.empty()) {  // the value is this scalar
      root_ = std::move(value);
      active_ = false;
      return true;
    }
    place(std::move(value));
    return false;
  }
  void open(bool object) {
    Json fresh = object ? Json::object() : Json::array();
    open_.push_back(open_.empty() ? &(root_ = std::move(fresh)) : place(std::move(fresh)));
  }
  void key(std::string key) { key_ = std::move(key); }
  /// Closes the innermost container; true when it completes the value.
  auto close() -> bool {
    open_.pop_back();
    active_ = !open_.empty();
    return !active_;
  }
  [[nodiscard]] auto depth() const -> std::size_t { return open_.size(); }
  [[nodiscard]] auto value() const -> const Json& { return root_; }

 private:
  auto place(Json value) -> Json* {
    Json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    Json& slot = parent[key_];  // a key sent twice keeps its last value, as in a JSON tree
    slot = std::move(value);
    return &slot;
  }

  Json root_;
  std::vector<Json*> open_;  ///< the open containers, innermost last (pointers stay valid: only it grows)
  std::string key_;
  bool active_ = false;
};

/// What a container of the answer is, for the values inside it.
enum class Role : std::uint8_t { Root, Data, Result, Item, Metric, Values, Other };

/// The member a value belongs to, set by the key before it.
enum class Slot : std::uint8_t {
  None,
  Status,
  ErrorType,
  Error,
  Data,
  ResultType,
  Result,
  Metric,
  Values,
  Value
};

/// What the next value is for.
enum class Dest : std::uint8_t {
  Top,
  Skip,
  Status,
  ErrorType,
  Error,
  Data,
  ResultType,
  Result,
  Item,
  Metric,
  Values,
  Value,
  Label,
  Point,
};

struct Frame {
  Role role = Role::Other;
  Slot slot = Slot::None;
};

/// The SAX handler (nlohmann::json_sax's interface): builds a PromAnswer, counting against the limits.
class AnswerReader {
 public:
  AnswerReader(std::string_view body, const PromLimits& limits) : body_(body), limits_(limits) {}

  auto null() -> bool { return scalar(Json(nullptr)); }
  auto boolean(bool v) -> bool { return scalar(Json(v)); }
  auto number_integer(Json::number_integer_t v) -> bool { return scalar(Json(v)); }
  auto number_unsigned(Json::number_unsigned_t v) -> bool { return scalar(Json(v)); }
  auto number_float(Json::number_float_t v, const std::string& /*text*/) -> bool { return scalar(Json(v)); }
  auto string(std::string& v) -> bool;
  auto binary(Json::binary_t& /*unused: no binary in JSON text*/) -> bool { return true; }
  auto start_object(std::size_t /*elements*/) -> bool { return open(true); }
  auto start_array(std::size_t /*elements*/) -> bool { return open(false); }
  auto end_object() -> bool { return close(); }
  auto end_array() -> bool { return close(); }
  auto key(std::string& k) -> bool;
  auto parse_error(std::size_t position, const std::string& /*token*/, const Json::exception& e) -> bool {
    error_ = (e.id >= kFirstParseErrorId && e.id <= kLastParseErrorId)
                 ? syntax_error(position, e.what(), body_)
                 : core::Error{core::ErrorCode::DataLoss, std::string("invalid JSON: ") + e.what(), {}};
    return false;
  }

  /// The answer, or the error that stopped the parse.
  auto result() -> core::Result<PromAnswer> {
    if (error_) return core::fail(std::move(*error_));
    return std::move(answer_);
  }

 private:
  [[nodiscard]] auto destination() const -> Dest;
  auto scalar(Json value) -> bool;
  auto open(bool object) -> bool;
  auto close() -> bool;
  void reset_member(Slot slot);
  auto new_item() -> bool;
  /// What becomes of a point (an element of "values", or the "value") that starts here.
  enum class PointStart : std::uint8_t { Capture, Skip, Stop };
  auto start_point(Dest dest) -> PointStart;
  void finish_point(const Json& point);
  void finish_item();
  auto over(std::string_view what, std::size_t limit) -> bool {
    error_ = core::Error{core::ErrorCode::ResourceExhausted,
                         fmt::format("the answer {} (the limit of solscope's Prometheus reader)",
                                     fmt::format(fmt::runtime(what), limit)),
                         {}};
    return false;
  }
  auto series() -> PromSeries& { return answer_.series.back(); }

  std::string_view body_;
  PromLimits limits_;
  PromAnswer answer_;
  std::optional<core::Error> error_;
  std::vector<Frame> frames_;
  Capture capture_;
  Dest capture_for_ = Dest::Skip;  ///< Point or Value: where the captured value goes
  std::string label_key_;
  std::size_t points_ = 0;
  std::size_t labels_ = 0;
  // The item being read: its "value" (the instant point), kept apart until the item ends, since "values"
  // (which wins) may come after it.
  bool range_seen_ = false;
  bool instant_seen_ = false;
  Json instant_;
};

auto AnswerReader::destination() const -> Dest {
  if (frames_.empty()) return Dest::Top;
  const Frame& f = frames_.back();
  switch (f.role) {
    case Role::Root:
    case Role::Data:
    case Role::Item:
      switch (f.slot) {
        case Slot::Status:
          return Dest::Status;
        case Slot::ErrorType:
          return Dest::ErrorType;
        case Slot::Error:
          return Dest::Error;
        case Slot::Data:
          return Dest::Data;
        case Slot::ResultType:
          return Dest::ResultType;
        case Slot::Result:
          return Dest::Result;
        case Slot::Metric:
          return Dest::Metric;
        case Slot::Values:
          return Dest::Values;
        case Slot::Value:
          return Dest::Value;
        case Slot::None:
          return Dest::Skip;
      }
      return Dest::Skip;
    case Role::Result:
      return Dest::Item;
    case Role::Metric:
      return Dest::Label;
    case Role::Values:
      return Dest::Point;
    case Role::Other:
      return Dest::Skip;
  }
  return Dest::Skip;
}

void AnswerReader::reset_member(Slot slot) {
  switch (slot) {
    case Slot::Status:
      answer_.status.reset();
      break;
    case Slot::ErrorType:
      answer_.error_type.reset();
      break;
    case Slot::Error:
      answer_.error.reset();
      break;
    case Slot::Data:
      answer_.has_data = false;
      answer_.result_type.clear();
      [[fallthrough]];
    case Slot::Result:
      answer_.has_result = false;
      answer_.series.clear();
      break;
    case Slot::ResultType:
      answer_.result_type.clear();
      break;
    case Slot::Metric:
      series().has_metric = false;
      series().labels.clear();
      break;
    case Slot::Values:
      range_seen_ = false;
      series().points.clear();
      series().bad_point.reset();
      series().sent_points = 0;
      break;
    case Slot::Value:
      instant_seen_ = false;
      break;
    case Slot::None:
      break;
  }
}

auto AnswerReader::key(std::string& k) -> bool {
  if (capture_.active()) {
    capture_.key(std::move(k));
    return true;
  }
  Frame& f = frames_.back();
  f.slot = Slot::None;
  if (f.role == Role::Root) {
    if (k == "status") f.slot = Slot::Status;
    if (k == "errorType") f.slot = Slot::ErrorType;
    if (k == "error") f.slot = Slot::Error;
    if (k == "data") f.slot = Slot::Data;
  } else if (f.role == Role::Data) {
    if (k == "resultType") f.slot = Slot::ResultType;
    if (k == "result") f.slot = Slot::Result;
  } else if (f.role == Role::Item) {
    if (k == "metric") f.slot = Slot::Metric;
    if (k == "values") f.slot = Slot::Values;
    if (k == "value") f.slot = Slot::Value;
  } else if (f.role == Role::Metric) {
    series().labels.erase(k);  // a label sent twice counts as its last value
    label_key_ = std::move(k);
  }
  reset_member(f.slot);
  return true;
}

auto AnswerReader::string(std::string& v) -> bool {
  switch (capture_.active() ? Dest::Point : destination()) {
    case Dest::Status:
      answer_.status = std::move(v);
      return true;
    case Dest::ErrorType:
      answer_.error_type = std::move(v);
      return true;
    case Dest::Error:
      answer_.error = std::move(v);
      return true;
    case Dest::ResultType:
      answer_.result_type = std::move(v);
      return true;
    case Dest::Label:
      if (++labels_ > limits_.labels) return over("holds more than {} labels", limits_.labels);
      series().labels.insert_or_assign(std::move(label_key_), std::move(v));
      return true;
    default:
      return scalar(Json(std::move(v)));
  }
}

auto AnswerReader::start_point(Dest dest) -> PointStart {
  if (++points_ > limits_.points) {
    (void)over("holds more than {} points", limits_.points);
    return PointStart::Stop;
  }
  if (dest == Dest::Point && series().bad_point) {
    ++series().sent_points;  // counted, not read: the points after a bad one are not used
    return PointStart::Skip;
  }
  capture_for_ = dest;
  capture_.begin();
  return PointStart::Capture;
}

auto AnswerReader::new_item() -> bool {
  if (answer_.series.size() >= limits_.series) return over("holds more than {} series", limits_.series);
  answer_.series.emplace_back();
  range_seen_ = false;
  instant_seen_ = false;
  return true;
}

void AnswerReader::finish_point(const Json& point) {
  if (capture_for_ == Dest::Value) {
    instant_seen_ = true;
    instant_ = point;
    return;
  }
  PromSeries& s = series();
  const std::size_t index = s.sent_points++;
  if (s.bad_point) return;
  if (auto p = parse_point(point)) {
    s.points.push_back(*p);
  } else {
    s.bad_point = PromBadPoint{index, point.dump(-1, ' ', false, Json::error_handler_t::replace)};
  }
}

void AnswerReader::finish_item() {
  PromSeries& s = series();
  if (range_seen_) {
    s.form = PromSeriesForm::Range;
  } else if (instant_seen_) {
    s.form = PromSeriesForm::Instant;
    s.sent_points = 1;
    if (auto p = parse_point(instant_)) {
      s.points.push_back(*p);
    } else {
      s.bad_point = PromBadPoint{0, instant_.dump(-1, ' ', false, Json::error_handler_t::replace)};
    }
  }
}

auto AnswerReader::scalar(Json value) -> bool {
  if (capture_.active()) {
    if (capture_.add(std::move(value))) finish_point(capture_.value());
    return true;
  }
  switch (const Dest dest = destination(); dest) {
    case Dest::Item:
      return new_item();  // an item that is no object: a series of form None
    case Dest::Value:
    case Dest::Point: {
      const PointStart start = start_point(dest);
      if (start == PointStart::Capture && capture_.add(std::move(value))) finish_point(capture_.value());
      return start != PointStart::Stop;
    }
    default:
      return true;  // a member of another type reads as absent (reset_member cleared it)
  }
}

auto AnswerReader::open(bool object) -> bool {
  if (frames_.size() + capture_.depth() >= limits_.depth) {
    return over("nests arrays and objects deeper than {} levels", limits_.depth);
  }
  if (capture_.active()) {
    capture_.open(object);
    return true;
  }
  Role role = Role::Other;
  switch (const Dest dest = destination(); dest) {
    case Dest::Top:
      role = object ? Role::Root : Role::Other;
      break;
    case Dest::Data:
      answer_.has_data = object;
      role = object ? Role::Data : Role::Other;
      break;
    case Dest::Result:
      answer_.has_result = !object;
      role = object ? Role::Other : Role::Result;
      break;
    case Dest::Item:
      if (!new_item()) return false;
      role = object ? Role::Item : Role::Other;
      break;
    case Dest::Metric:
      series().has_metric = object;
      role = object ? Role::Metric : Role::Other;
      break;
    case Dest::Values:
      range_seen_ = !object;
      role = object ? Role::Other : Role::Values;
      break;
    case Dest::Value:
    case Dest::Point: {
      const PointStart start = start_point(dest);
      if (start == PointStart::Stop) return false;
      if (start == PointStart::Capture) {
        capture_.open(object);
        return true;
      }
      break;  // skipped: an Other frame
    }
    default:
      break;
  }
  frames_.push_back(Frame{role, Slot::None});
  return true;
}

auto AnswerReader::close() -> bool {
  if (capture_.active()) {
    if (capture_.close()) finish_point(capture_.value());
    return true;
  }
  const Role role = frames_.back().role;
  frames_.pop_back();
  if (role == Role::Item) finish_item();
  return true;
}

}  // namespace

auto parse_prom_query_answer(std::string_view body, const PromLimits& limits) -> core::Result<PromAnswer> {
  AnswerReader reader(body, limits);
  (void)Json::sax_parse(body.begin(), body.end(), &reader);
  return reader.result();
}

}  // namespace solscope::net
