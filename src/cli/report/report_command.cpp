#include <optional>

#include <nlohmann/json.hpp>

#include "cli/report/report_command.hpp"

#include "cli/commands.hpp"
#include "cli/report/report_html.hpp"
#include "cli/report/report_phases.hpp"
#include "core/derive.hpp"
#include "report/declared_phases_present.hpp"
#include "report/report_builder.hpp"
#include "report/report_json.hpp"
#include "report/report_text.hpp"
#include "run/run_metadata.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "runtime/output_path.hpp"
#include "runtime/sinks.hpp"
#include "runtime/source_factory.hpp"
#include "trace/reader.hpp"
#include "wire/json_text.hpp"

namespace solscope::app {
namespace {

auto meta_text(const trace::TraceMetadata& meta, std::string_view key) -> std::string {
  const auto it = meta.entries.find(key);
  return it == meta.entries.end() ? std::string() : std::string(it->second);
}

auto facts_of(const trace::Reader& reader, const std::string& path) -> report::TraceFacts {
  const trace::TraceMetadata& meta = reader.metadata();
  return report::TraceFacts{.path = path,
                            .synthetic = meta.synthetic,
                            .source_description = meta.source_description,
                            .host = meta.host,
                            .tool_version = meta.tool_version,
                            .kernel_log = meta.kernel_log,
                            .kernels_dropped = meta.kernels_dropped,
                            .workload_refresh = meta.workload_refresh,
                            .command = meta_text(meta, kMetaRunCommand),
                            .exit_status = meta_text(meta, kMetaRunExitStatus)};
}

}  // namespace

auto build_report(const trace::Reader& reader, const std::string& path, std::ostream& err,
                  report::PhaseJudge* phases, const std::string& step_range) -> core::Result<report::Report> {
  report::ReportBuilder builder(reader.devices());
  // The kernel log streams into the builder and the judge: neither holds the records (docs/report.md,
  // "Cost").
  auto table = reader.for_each_kernel({}, [&](const core::KernelRecord& kernel) {
    builder.add_kernel(kernel);
    if (phases != nullptr) phases->add(kernel);
  });
  if (!table) return core::propagate(std::move(table));
  if (!table->note.empty()) print_warning(err, table->note);
  // The workloads table (schema 5) is small: read whole, damaged rows skipped and said (docs/report.md).
  auto workloads = reader.workloads();
  if (!workloads) return core::propagate(std::move(workloads));
  if (!workloads->note.empty()) print_warning(err, workloads->note);
  if (workloads->present) builder.set_workloads(workloads->rows);
  // The NVTX markers (schema 6) bound the Training steps; damaged rows skipped and said, as the kernels'.
  auto markers = reader.markers();
  if (!markers) return core::propagate(std::move(markers));
  if (!markers->note.empty()) print_warning(err, markers->note);
  builder.set_markers(std::move(markers->rows), markers->present, step_range);
  auto cursor = reader.cursor();
  if (!cursor) return core::propagate(std::move(cursor));
  // Each sample is derived again from its raw counters and its recorded device (Reader::device); an index the
  // trace does not describe gets a bare DeviceInfo (unknown DRAM peak).
  static const core::DeviceInfo kUnknownDevice{};
  core::RawSample raw;
  while (cursor->next(raw)) {
    const core::DeviceInfo* device = reader.device(raw.device_index);
    const core::SolSample sample = core::derive(raw, device != nullptr ? *device : kUnknownDevice);
    builder.add(sample);
    if (phases != nullptr) phases->add(sample);
  }
  if (auto problem = reader.problem(cursor->report())) {
    if (cursor->samples_read() == 0) return core::fail(std::move(*problem));
    print_warning(err, problem->describe());
  }
  return builder.finish(facts_of(reader, path));
}

auto run_report(const ReportArgs& args, std::ostream& out, std::ostream& err) -> int {
  auto reader = open_trace_for_output(args.file, args.html, args.force);
  if (!reader) {
    print_error(err, reader.error().error);
    return reader.error().exit_code;
  }
  std::optional<report::PhaseJudge> judge;
  if (!args.phases.empty()) {
    auto prepared = prepare_phase_judge(*reader, args.phases);
    if (!prepared) {
      print_error(err, prepared.error());
      return kExitUsage;
    }
    judge.emplace(std::move(*prepared));
  }
  auto built = build_report(*reader, args.file, err, judge ? &*judge : nullptr, args.step_range);
  if (!built) {
    print_error(err, built.error());
    return built.error().code == core::ErrorCode::DataLoss ? kExitBadTrace : kExitFailure;
  }
  std::optional<report::DeclaredPhaseReport> judged;
  if (judge) judged = finish_phase_judge(*judge, *built, args.phases);
  if (!args.html.empty()) {
    if (auto written = write_html_report(*built, args.html); !written) {
      print_error(err, written.error());
      return kExitFailure;
    }
  }
  if (args.json) {
    auto json = report::to_json(*built);
    if (judged) json["declared_phases"] = report::declared_phases_json(*judged);
    out << wire::json_text(json, wire::kJsonPretty) << '\n';
  } else {
    out << report::render_text(*built);
    if (judged) out << report::render_declared_phases(*judged);
  }
  if (auto flushed = flush_output(out); !flushed) {
    if (is_reader_gone(flushed.error())) return kExitOk;  // `solscope report X | head`
    print_error(err, flushed.error());
    return kExitFailure;
  }
  return judged && judged->result == report::Verdict::Fail ? kExitCheckFailed : kExitOk;
}

}  // namespace solscope::app
