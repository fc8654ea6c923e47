// The solscope command line: subcommands, common options, and the mapping of failures to exit codes.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "app/options.hpp"

namespace solscope::app {

/// Options shared by the sampling commands (each also read from an environment variable SOLSCOPE_* and the
/// config file), parsed and range-checked once where they are bound (config/bind.hpp).
struct CommonOptions {
  std::vector<std::uint32_t> devices;  ///< --devices / SOLSCOPE_DEVICES "0,2" or "0-3": sorted; empty = all
  /// --interval / SOLSCOPE_INTERVAL: sampling interval in ns, 1 ms to 60 s; empty when no layer gives one:
  /// the source's default then applies (sampling_interval_ns(), source_factory.hpp).
  std::optional<std::int64_t> interval_ns;
  bool json = false;          ///< --json: JSON Lines of SolSamples on stdout
  std::string replay;         ///< --replay FILE / SOLSCOPE_REPLAY: sample from a trace instead of the GPUs
  std::string dcgm_exporter;  ///< --dcgm-exporter URL: scrape dcgm-exporter instead of the GPUs
  std::string dcgm_exporter_token_file;  ///< --dcgm-exporter-token-file FILE: its bearer token
  std::string dcgm_exporter_ca;          ///< --dcgm-exporter-ca FILE: PEM CA of an https exporter
};

/// Runs the command line. Returns the process exit code (exit_codes.hpp); never throws.
auto run(int argc, char** argv, std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
