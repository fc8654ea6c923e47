// Prometheus' HTTP API as the fleet reader uses it: the PromQL it sends (selector merged, host label unified)
// and the answers it reads (/api/v1/query and /api/v1/query_range JSON, through net/prom_query.hpp, which
// also encodes the query parameters), with Prometheus' errors mapped to solscope's error codes.
// API: https://prometheus.io/docs/prometheus/latest/querying/api/
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "net/http_client.hpp"

namespace solscope::fleet {

/// One series of an answer: its labels and its points (Unix ns, value; NaN for "NaN").
struct PromSeries {
  std::map<std::string, std::string> labels;
  std::vector<std::pair<std::int64_t, double>> points;  ///< in time order; one point for an instant vector
};

/// The inside of a user's selector: `{cluster="a"}` -> `cluster="a"`; `cluster="a"` as is; blanks trimmed.
/// Not checked here: Prometheus reports a bad one with its own message.
[[nodiscard]] auto selector_inner(std::string_view selector) -> std::string;

/// `name{inner,extra}` with empty parts left out (`name` alone when both are empty).
[[nodiscard]] auto with_matchers(std::string_view name, std::string_view inner, std::string_view extra = {})
    -> std::string;

/// PromQL that copies the host name into the label `host`: `Hostname` (dcgm-exporter before 3.3), else
/// `hostname` (solscope, newer dcgm-exporter), else `instance`.
[[nodiscard]] auto with_host_label(std::string_view expr) -> std::string;

/// The labels every fleet query keeps (aggregation `by`): host, gpu, MIG instance, UUID, model, pod.
inline constexpr std::string_view kKeyLabels =
    "host, gpu, GPU_I_PROFILE, GPU_I_ID, UUID, modelName, namespace, pod";

/// Reads one API answer (net::parse_prom_query_answer; points as it reads them). `what` names the query for
/// messages; `origin` is the server's URL; `selector` the user's matchers (selector_inner; empty when none
/// was given). Errors: PermissionDenied for 401/403 (hint: --prometheus-token-file); InvalidArgument for
/// Prometheus' bad_data (its message; hint: check --selector when one was given, else that the server
/// speaks Prometheus' PromQL); Unavailable for its timeout, execution, internal and unavailable errors;
/// ResourceExhausted when the answer is past a limit of the reader (net/prom_query.hpp kMaxProm*: the
/// message names it; hint: narrow the fleet); DataLoss when the answer is not Prometheus API JSON (wrong
/// URL, a proxy's page) or holds a series with a point that does not read.
[[nodiscard]] auto parse_prom_answer(const net::HttpResponse& response, std::string_view what,
                                     std::string_view origin, std::string_view selector)
    -> core::Result<std::vector<PromSeries>>;

/// The largest GPU count a count() answer may hold: 2^24, far above any fleet (a Prometheus holding more GPU
/// series than this answered wrongly, or is not a GPU fleet).
inline constexpr double kMaxGpuCount = 16'777'216.0;

/// A GPU count read from a count() answer: a whole number from 0 to kMaxGpuCount. `what` names the query and
/// `origin` the server for the message. Errors: DataLoss "Prometheus at ORIGIN answered the WHAT query with
/// V, which is not a count of GPUs (a whole number from 0 to 16777216)" for NaN, infinity, a negative, a
/// fraction or a larger value (1e300 and -5 read as 0 GPUs before, without a word).
[[nodiscard]] auto gpu_count(double v, std::string_view what, std::string_view origin)
    -> core::Result<std::size_t>;

}  // namespace solscope::fleet
