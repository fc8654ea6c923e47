// The subcommands of solscope. Each returns a process exit code (exit_codes.hpp) and writes its output to
// `out` and its messages to `err`.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace solscope::app {

/// `solscope devices`: GPUs, the source chosen per GPU and why, permission status with the exact fix; with
/// --workloads also what runs on each GPU, its attainable SOL, or why it is unknown.
struct DevicesArgs {
  bool json = false;
  bool workloads = false;  ///< --workloads: run workload discovery once after listing the devices
};
auto run_devices(const CommonOptions& common, const WorkloadOptions& workloads, const DevicesArgs& args,
                 std::ostream& out, std::ostream& err) -> int;

/// `solscope` / `solscope top` / `solscope --json`: live figures (plain text table, or JSON Lines with
/// --json). Without an NVIDIA GPU and without --json or --replay, it says so and shows the bundled trace
/// instead. On live GPUs each sample carries the attainable SOL of the discovered or declared workload.
auto run_live(const CommonOptions& common, const WorkloadOptions& workloads, std::ostream& out,
              std::ostream& err) -> int;

/// `solscope record -o FILE [--duration S]`: records a trace until the duration, SIGINT or SIGTERM.
struct RecordArgs {
  std::string output;
  std::optional<std::int64_t> duration_ns;  ///< --duration in ns (1 ms and more); empty = until stopped
  bool force = false;                       ///< overwrite an existing file
  double replay_speed = 1.0;  ///< with --replay: trace seconds per second (0 = as fast as possible)
};
/// On live GPUs the trace records the attainable SOL of the discovered or declared workloads.
auto run_record(const CommonOptions& common, const WorkloadOptions& workloads, const RecordArgs& args,
                std::ostream& out, std::ostream& err) -> int;

/// `solscope replay FILE [--json] [--speed X]`: plays a trace through the live view or as JSON Lines.
struct ReplayArgs {
  std::string file;
  double speed = -1.0;  ///< replay speed (1 = real time, 0 = as fast as possible); < 0 = default for the mode
  bool loop = false;
};
auto run_replay(const CommonOptions& common, const ReplayArgs& args, std::ostream& out, std::ostream& err)
    -> int;

/// `solscope export FILE --format csv|jsonl [-o OUT]`: writes a trace's samples for scripts.
struct ExportArgs {
  std::string file;
  std::string format = "csv";
  std::string output;  ///< empty or "-" = stdout
  bool force = false;  ///< overwrite an existing output file
};
auto run_export(const ExportArgs& args, std::ostream& out, std::ostream& err) -> int;

/// `solscope run [options] -- CMD ARGS...`: runs CMD, samples the GPUs it uses, logs its kernels, prints the
/// report to stderr when it ends, and exits with CMD's exit code (128 + signal when a signal ended it; 127 /
/// 126 when it cannot be started; 2 for a bad command line before it started).
struct RunArgs {
  std::vector<std::string> command;  ///< CMD ARGS... (everything after `--`)
  std::string output;       ///< -o: keep the trace here; empty = a temporary trace, removed at the end
  bool force = false;       ///< replace an existing -o file
  std::string html;         ///< --html FILE: also the HTML report
  bool no_kernels = false;  ///< --no-kernels: no injection library, no kernel log
};
auto run_job(const CommonOptions& common, const WorkloadOptions& workloads, const RunArgs& args,
             std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
