// `solscope export FILE --format csv|jsonl [-o OUT]`: a trace's samples for scripts and pandas.
#include <fstream>

#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/messages.hpp"
#include "app/source_factory.hpp"
#include "trace/export.hpp"
#include "trace/reader.hpp"

namespace solscope::app {

auto run_export(const ExportArgs& args, std::ostream& out, std::ostream& err) -> int {
  auto reader = trace::Reader::open(args.file);
  if (!reader) {
    print_error(err, reader.error());
    return kExitBadTrace;
  }
  std::ofstream file;
  std::ostream* target = &out;
  if (!args.output.empty() && args.output != "-") {
    file.open(args.output, std::ios::out | std::ios::trunc);
    if (!file) {
      print_error(err, core::Error{core::ErrorCode::PermissionDenied, "cannot write " + args.output,
                                   "check that the directory exists and is writable"});
      return kExitFailure;
    }
    target = &file;
  }
  auto written =
      args.format == "jsonl" ? trace::export_jsonl(*reader, *target) : trace::export_csv(*reader, *target);
  if (!written) {
    print_error(err, written.error());
    return written.error().code == core::ErrorCode::DataLoss ? kExitBadTrace : kExitFailure;
  }
  // Samples read and skipped, and where the damage begins: a warning, or exit 5 when nothing was read.
  return report_trace_read(err, reader->problem(written->report), written->samples);
}

}  // namespace solscope::app
