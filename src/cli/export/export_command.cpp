// `solscope export FILE --format csv|jsonl [-o OUT]`: a trace's samples for scripts and pandas.
#include <optional>
#include <utility>

#include "cli/commands.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/file_beside.hpp"
#include "runtime/messages.hpp"
#include "runtime/output_path.hpp"
#include "runtime/sinks.hpp"
#include "runtime/source_factory.hpp"
#include "trace/export.hpp"
#include "trace/reader.hpp"

namespace solscope::app {

auto run_export(const ExportArgs& args, std::ostream& out, std::ostream& err) -> int {
  const bool to_stdout = args.output.empty() || args.output == "-";
  auto reader = open_trace_for_output(args.file, to_stdout ? std::string() : args.output, args.force);
  if (!reader) {
    print_error(err, reader.error().error);
    return reader.error().exit_code;
  }
  // A file output is written beside its path and renamed there on success: a failed export (a full disk)
  // leaves no partial file behind.
  std::optional<FileBeside> file;
  if (!to_stdout) {
    auto created = FileBeside::create(args.output);
    if (!created) {
      print_error(err, created.error());
      return kExitFailure;
    }
    file.emplace(std::move(*created));
  }
  std::ostream& target = file ? file->stream() : out;
  auto written =
      args.format == "jsonl" ? trace::export_jsonl(*reader, target) : trace::export_csv(*reader, target);
  // `solscope export X | head -1`: a reader that goes away is a normal end (exit 0, quiet), as for replay.
  if (!written && to_stdout && !out) {
    if (auto flushed = flush_output(out); !flushed && is_reader_gone(flushed.error())) return kExitOk;
  }
  if (!written) {
    print_error(err, written.error());
    return written.error().code == core::ErrorCode::DataLoss ? kExitBadTrace : kExitFailure;
  }
  if (file) {
    if (auto committed = file->commit(); !committed) {
      print_error(err, committed.error());
      return kExitFailure;
    }
  }
  // Samples read and skipped, and where the damage begins: a warning, or exit 5 when nothing was read.
  return report_trace_read(err, reader->problem(written->report), written->samples);
}

}  // namespace solscope::app
