// The builder of /metrics' families (prometheus-cpp's data model), shared by the files that add families:
// metric_families.cpp (the per-GPU figures and counters) and workload_metrics.cpp (who uses the GPU).
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/metric_type.h>

#include "core/text.hpp"

namespace solscope::server::detail {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

/// HELP text as the text format wants it (backslash and newline escaped): prometheus-cpp 1.0's TextSerializer
/// writes HELP verbatim.
inline auto escape_help(std::string_view help) -> std::string {
  std::string out;
  for (const char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

/// Families in first-use order; a family is created by its first series, so empty ones never appear.
class Families {
 public:
  /// Adds one series; `labels` (Labels or const Labels&) is copied or moved only for a known value.
  template <class L>
  void add(std::string_view name, std::string_view help, MetricType type, L&& labels, double value) {
    if (std::isnan(value)) return;  // unknown: left out, never 0
    auto it = index_.find(name);
    if (it == index_.end()) {
      it = index_.emplace(std::string(name), families_.size()).first;
      families_.push_back(MetricFamily{std::string(name), escape_help(help), type, {}});
    }
    ClientMetric metric;
    metric.label = std::forward<L>(labels);
    // The text format requires UTF-8 label values, and Prometheus refuses the whole scrape over one that is
    // not; prometheus-cpp's TextSerializer escapes but does not check them. Every series passes here.
    for (ClientMetric::Label& label : metric.label) {
      if (!core::is_valid_utf8(label.value)) label.value = core::valid_utf8(label.value);
    }
    if (type == MetricType::Counter) {
      metric.counter.value = value;
    } else {
      metric.gauge.value = value;
    }
    families_[it->second].metric.push_back(std::move(metric));
  }
  template <class L>
  void gauge(std::string_view name, std::string_view help, L&& labels, double value) {
    add(name, help, MetricType::Gauge, std::forward<L>(labels), value);
  }
  template <class L>
  void counter(std::string_view name, std::string_view help, L&& labels, double value) {
    add(name, help, MetricType::Counter, std::forward<L>(labels), value);
  }
  auto take() -> std::vector<MetricFamily> { return std::move(families_); }

 private:
  std::map<std::string, std::size_t, std::less<>> index_;  ///< family name -> families_ index
  std::vector<MetricFamily> families_;
};

/// `labels` plus one more.
inline auto with(Labels labels, std::string name, std::string_view value) -> Labels {
  labels.push_back({std::move(name), std::string(value)});
  return labels;
}

}  // namespace solscope::server::detail
