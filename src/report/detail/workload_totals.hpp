// Per-workload totals of a trace (report.hpp WorkloadReport): the trace's workloads rows as a timeline per
// GPU, and each sample's seconds, SOL, energy and idle time shared out by core::workload_parts(), the one
// rule of core/workload.hpp that /metrics' workload counters apply too.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/sol_sample.hpp"
#include "core/workload.hpp"
#include "report/report.hpp"

namespace solscope::report {

/// How the report names a workload: core::WorkloadIdentity::display(), but "namespace NS" for an identity
/// that only knows its namespace (the common identity of concurrent pods of one namespace).
[[nodiscard]] auto workload_label(const core::WorkloadIdentity& id) -> std::string;

/// Give it the workloads rows (once, before the samples), then every sample (each device's in nondecreasing
/// t_start_ns), then take the totals. A sample belongs to the set of workloads its device had at the
/// sample's t_start_ns: the rows of that device with the latest t_start_ns at or before it, while their
/// t_end_ns (none: open) lies after it. Memory: one entry per row and per distinct workload. Not
/// thread-safe.
class WorkloadTotals {
 public:
  /// The rows of Reader::workloads() (any order; rows of one device and one t_start_ns are one set).
  void set_rows(std::span<const core::WorkloadInterval> rows);
  /// Adds one sample: nothing when its device held no workload then, or its duration is not positive.
  void add(const core::SolSample& sample);
  /// The totals, most GPU-seconds first (ties: identity, then sharing).
  [[nodiscard]] auto finish() const -> std::vector<WorkloadReport>;

 private:
  struct Sums;
  /// One set of workloads of one device, from start_ns until end_ns.
  struct Span {
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;  ///< INT64_MAX while open
    std::vector<core::WorkloadPart> parts;
    std::vector<Sums*> sums;  ///< each part's totals, found at its first sample (then no lookup per sample)
  };
  /// One device's spans by start, and the first one a later sample can fall in.
  struct Timeline {
    std::vector<Span> spans;
    std::size_t next = 0;
  };
  /// Sums of one workload (key: identity and sharing).
  struct Sums {
    std::vector<std::uint32_t> devices;
    double gpu_s = 0.0;
    double compute_weighted = 0.0;
    double compute_s = 0.0;  ///< its GPU-seconds with a known Compute SOL
    double memory_weighted = 0.0;
    double memory_s = 0.0;
    double energy_j = 0.0;
    bool power_known = false;
    double idle_s = 0.0;
  };
  static void add_part(Sums& s, const core::WorkloadPart& part, const core::SolSample& sample,
                       double seconds);

  std::map<std::uint32_t, Timeline> timelines_;
  std::map<std::pair<core::WorkloadIdentity, core::WorkloadSharing>, Sums> sums_;
};

}  // namespace solscope::report
