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

/// The limits of parse_prom_query_answer, so that no answer costs more memory than a large real one. Nesting:
/// arrays and objects open at once (a real answer nests 6 deep: answer, data, result, series, values,
/// point). Series: items of data.result (a quarter million, beyond what the 64 MiB body cap of a live
/// answer lets real series hold). Points: elements of every "values" plus each "value", all series together
/// (Prometheus' own default per query, --query.max-samples, is 50 million). Labels: string members of every
/// "metric", all series together (20 per series at the series limit).
inline constexpr std::size_t kMaxPromJsonDepth = 32;
inline constexpr std::size_t kMaxPromSeries = 250'000;
inline constexpr std::size_t kMaxPromPoints = 10'000'000;
inline constexpr std::size_t kMaxPromLabels = 5'000'000;

/// The limits one read applies (tests give smaller ones).
struct PromLimits {
  std::size_t depth = kMaxPromJsonDepth;
  std::size_t series = kMaxPromSeries;
  std::size_t points = kMaxPromPoints;
  std::size_t labels = kMaxPromLabels;
};

/// Reads an answer's body as it parses it (no JSON tree is built: memory is about 16 bytes per point plus
/// the labels). O(body size). Errors (no hint): ResourceExhausted naming the limit it hit ("the answer nests
/// arrays and objects deeper than 32 levels", "... holds more than 250000 series", "... more than 10000000
/// points", "... more than 5000000 labels", each "(the limit of solscope's Prometheus reader)"), at the
/// first byte past it; DataLoss "line N: column M: invalid JSON (parse error ...)" for a body that is not
/// JSON; DataLoss "invalid JSON: ..." for one the JSON reader refuses otherwise (a number beyond a double).
/// Every JSON body within the limits reads, whatever its shape: see PromAnswer (a member sent twice counts
/// as its last, as in a JSON tree).
[[nodiscard]] auto parse_prom_query_answer(std::string_view body, const PromLimits& limits = {})
    -> core::Result<PromAnswer>;

}  // namespace solscope::net
