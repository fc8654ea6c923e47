// `solscope import FILE -o TRACE [--from FORMAT] [--delay D] [--force]`: a recording of another tool
// (dcgm-exporter scrapes, a Prometheus query_range or query answer, dcgmi dmon or nvidia-smi dmon logs, an
// nsys SQLite export) written as a solscope trace.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "runtime/options.hpp"

namespace solscope::app {

struct ImportArgs {
  std::string file;    ///< the recording to read (never modified)
  std::string output;  ///< -o: the trace to write
  std::string from;    ///< --from: a format name; empty = detected from the content and extension
  /// --delay, ns: the interval of logs without timestamps and the span of a single scrape or instant query
  /// (option table)
  std::int64_t delay_ns = kDefaultImportDelayNs;
  bool force = false;  ///< replace an existing non-empty -o file
};

/// Runs the import. Exit codes: 0 done; 2 bad command line (unknown --from, -o refused); 5 the input is
/// missing, of no known format, or bad (the message names the file and line); 1 the trace cannot be
/// written. A trace left empty by a failure is removed.
auto run_import(const ImportArgs& args, std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
