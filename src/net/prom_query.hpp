// Prometheus' HTTP query API (/api/v1/query and /api/v1/query_range): the parameters a query sends and the
// one reader of its JSON answer, for the fleet view (live answers) and `solscope import --from
// prometheus-json` (a saved answer). API: https://prometheus.io/docs/prometheus/latest/querying/api/
// ("Expression queries", "Format overview"): {"status": "success" | "error", "data": {"resultType": ...,
// "result": [...]}, "errorType": ..., "error": ...}; each result item {"metric": {labels}, "values": [[t,
// "v"], ...]} (a range query's matrix) or "value": [t, "v"] (an instant query's vector), t in Unix seconds, v
// a string ("NaN",
// "+Inf" and "-Inf" included).
//
// The reader says what an answer holds and leaves the judgement to its caller: which status, result type
// and series shape it accepts, and the words of its errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace solscope::net {

/// Percent-encodes a query parameter value (RFC 3986 unreserved characters kept).
[[nodiscard]] auto url_encode(std::string_view text) -> std::string;

/// "1700000000.5" for a Unix ns time (millisecond resolution, as Prometheus takes it).
[[nodiscard]] auto prom_time(std::int64_t t_ns) -> std::string;

/// How a result item carries its points.
enum class PromSeriesForm : std::uint8_t {
  Range,    ///< "values": an array of points (a matrix, from query_range)
  Instant,  ///< "value": one point (a vector, from query)
  None,     ///< neither, or the item is not a JSON object: not a series of the API
};

/// The first point of a series that does not read.
struct PromBadPoint {
  std::size_t index = 0;  ///< its place in "values" (0 for an instant "value")
  std::string json;       ///< the point as compact JSON text, for messages
};

/// One item of data.result.
struct PromSeries {
  std::map<std::string, std::string> labels;  ///< the string members of "metric" (`__name__` included)
  /// The points that read, before the first that does not, in answer order: (Unix ns at the API's millisecond
  /// resolution, value). A point reads when it is [number, string] with a time from 1970 to before
  /// kLatestYear (net/time_limits.hpp) and a value that is "NaN" (NaN), "+Inf" or "-Inf" (+-infinity) or a
  /// whole finite decimal number.
  std::vector<std::pair<std::int64_t, double>> points;
  bool has_metric = false;                     ///< "metric" is a JSON object
  PromSeriesForm form = PromSeriesForm::None;  ///< how the points were sent
  std::size_t sent_points = 0;                 ///< elements of "values" (1 for "value"), unread ones included
  std::optional<PromBadPoint> bad_point;       ///< the first point that does not read; nullopt when all do
};

/// An answer as sent. Absent fields and fields of another type read as absent; nothing here throws.
struct PromAnswer {
  /// "status": "success" or "error"; nullopt when absent or not a string (the body is not the API's).
  std::optional<std::string> status;
  std::optional<std::string> error_type;  ///< "errorType" ("bad_data", "timeout", ...), when a string
  std::optional<std::string> error;       ///< "error": Prometheus' message, when a string
  bool has_data = false;                  ///< "data" is a JSON object
  std::string result_type;                ///< data.resultType ("matrix", "vector", ...); empty when absent
  bool has_result = false;                ///< data.result is an array
  std::vector<PromSeries> series;         ///< data.result, in order
};

/// Reads an answer's body. O(body size). Errors (DataLoss, no hint): "line N: column M: invalid JSON (parse
/// error ...)" for a body that is not JSON; "invalid JSON: ..." for one the JSON reader refuses otherwise (a
/// number beyond a double). Every JSON body reads, whatever its shape: see PromAnswer.
[[nodiscard]] auto parse_prom_query_answer(std::string_view body) -> core::Result<PromAnswer>;

}  // namespace solscope::net
