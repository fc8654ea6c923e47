#include "cli/import/import_command.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "core/derive.hpp"
#include "imports/importer.hpp"
#include "imports/line_source.hpp"
#include "imports/nsys_sqlite.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "runtime/output_path.hpp"
#include "runtime/text_file.hpp"
#include "trace/writer.hpp"

namespace solscope::app {
namespace {

namespace fs = std::filesystem;

/// Bytes read to tell a file's format.
constexpr std::size_t kHeadBytes = 65536;

auto bad_input(const std::string& file, std::string_view format, const core::Error& error) -> core::Error {
  core::Error out = error;
  out.message = "cannot import " + file + (format.empty() ? "" : " (" + std::string(format) + ")") + ": " +
                error.message;
  if (out.hint.empty()) out.hint = "check the file, or force its format with --from";
  return out;
}

/// The file's modification time in ns since the epoch (0 when unknown).
auto mtime_ns(const std::string& path) -> std::int64_t {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * core::kNsPerS + st.st_mtim.tv_nsec;
}

auto resolve_format(const ImportArgs& args, std::string_view head) -> Outcome<imports::ImportFormat> {
  if (!args.from.empty()) {
    if (auto f = imports::import_format_from_string(args.from)) return *f;
    return core::Unexpected<Failure>(
        Failure{core::Error{core::ErrorCode::InvalidArgument, "--from " + args.from + " is not a format",
                            "give one of " + imports::import_format_names()},
                kExitUsage});
  }
  std::string extension = fs::path(args.file).extension().string();
  if (!extension.empty()) extension.erase(0, 1);
  if (auto f = imports::detect_format(head, extension)) return *f;
  return core::Unexpected<Failure>(Failure{
      core::Error{
          core::ErrorCode::InvalidArgument,
          "cannot tell the format of " + args.file + ": it is none of " + imports::import_format_names(),
          "force one with --from FORMAT"},
      kExitBadTrace});
}

/// The first 64 KiB of `path`, enough to tell its format. Errors: as read_text_file (NotFound, ...).
auto read_head(const std::string& path) -> core::Result<std::string> {
  std::ifstream in(path, std::ios::binary);
  if (!in) return read_text_file(path, "recording", "check the path");  // says why
  std::string head(kHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

/// A recording as read: its samples in memory, or (a format read line by line) none, streamed from the file
/// again when the trace is written, so that the import holds one line and a bounded state per GPU.
struct Imported {
  imports::Recording recording;  ///< samples empty when streamed
  imports::ImportFormat kind = imports::ImportFormat::DcgmExporter;
  std::string format;
  bool streamed = false;
  std::uint64_t samples = 0;
  std::int64_t first_start_ns = 0;  ///< earliest t_start_ns, before shift_ns
  std::int64_t last_end_ns = 0;     ///< latest t_end_ns, before shift_ns
  std::int64_t shift_ns = 0;  ///< added to every time: places a log without wall-clock time at its file's
};

/// Counts the samples and their span.
void note_sample(Imported& imported, const core::RawSample& s) {
  imported.first_start_ns =
      imported.samples == 0 ? s.t_start_ns : std::min(imported.first_start_ns, s.t_start_ns);
  imported.last_end_ns = imported.samples == 0 ? s.t_end_ns : std::max(imported.last_end_ns, s.t_end_ns);
  ++imported.samples;
}

/// Streams the lines of `file` through the importer of `format`. Errors: the file cannot be opened
/// (Unavailable), the importer's and the sink's.
auto stream_file(const std::string& file, imports::ImportFormat format, std::int64_t delay_ns,
                 const imports::SampleSink& sink) -> core::Result<imports::Recording> {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return core::fail(core::ErrorCode::Unavailable, "cannot open " + file + ": " + std::strerror(errno),
                      "check the path");
  }
  imports::StreamLines lines(in);
  return imports::import_lines(lines, format, delay_ns, sink);
}

auto read_recording(const ImportArgs& args, std::int64_t delay_ns) -> Outcome<Imported> {
  auto fail_with = [](core::Error e, int code) {
    return core::Unexpected<Failure>(Failure{std::move(e), code});
  };
  std::error_code ec;
  if (fs::exists(args.file, ec) && !fs::is_regular_file(args.file, ec)) {
    return fail_with(
        core::Error{core::ErrorCode::InvalidArgument,
                    "cannot import " + args.file + ": it is not a regular file", "give a saved recording"},
        kExitBadTrace);
  }
  auto head = read_head(args.file);
  if (!head) return fail_with(head.error(), kExitBadTrace);
  auto format = resolve_format(args, *head);
  if (!format) return core::Unexpected<Failure>(format.error());
  Imported imported{.kind = *format, .format = std::string(imports::to_string(*format))};
  core::Result<imports::Recording> recording = core::fail(core::ErrorCode::Internal, "not read");
  if (imports::streams_lines(*format)) {
    // First pass: check the whole file and learn its devices and span before the trace is created.
    imported.streamed = true;
    recording =
        stream_file(args.file, *format, delay_ns, [&](const core::RawSample& s) -> core::Result<void> {
          note_sample(imported, s);
          return core::ok();
        });
  } else if (*format == imports::ImportFormat::NsysSqlite) {
    recording = imports::read_nsys_sqlite(args.file);  // SQLite reads the file itself, read-only
  } else {
    auto text = read_text_file(args.file, "recording", "check the path");
    if (!text) return fail_with(text.error(), kExitBadTrace);
    recording = imports::import_text(*text, *format, delay_ns);
  }
  if (!recording) return fail_with(bad_input(args.file, imported.format, recording.error()), kExitBadTrace);
  imported.recording = std::move(*recording);
  for (const core::RawSample& s : imported.recording.samples) note_sample(imported, s);
  if (imported.recording.relative_times && imported.samples > 0) {
    // No wall-clock time in the file: the last sample ends at the file's modification time.
    imported.shift_ns = mtime_ns(args.file) - imported.last_end_ns;
  }
  return imported;
}

/// Hands every sample of `imported` to `sink`, its times shifted: from memory, or read from the file again.
auto each_sample(const ImportArgs& args, const Imported& imported, const imports::SampleSink& sink)
    -> core::Result<void> {
  auto shifted = [&](const core::RawSample& s) -> core::Result<void> {
    core::RawSample raw = s;
    raw.t_start_ns += imported.shift_ns;
    raw.t_end_ns += imported.shift_ns;
    return sink(raw);
  };
  if (!imported.streamed) {
    for (const core::RawSample& s : imported.recording.samples) {
      if (auto done = shifted(s); !done) return done;
    }
    return core::ok();
  }
  auto again = stream_file(args.file, imported.kind, args.delay_ns, shifted);
  if (!again) return core::propagate(again);
  return core::ok();
}

/// The one host of every device, or "" when they differ or none says.
auto common_host(const std::vector<core::DeviceInfo>& devices) -> std::string {
  std::string host = devices.empty() ? std::string() : devices.front().host;
  for (const core::DeviceInfo& d : devices) {
    if (d.host != host) return {};
  }
  return host;
}

/// The error of an import whose trace could not be written. The partial trace is removed, so the writer's
/// "the trace keeps N samples" and "record again" do not apply: a full disk says so and to import again. An
/// error of reading the input (DataLoss, InvalidArgument) is returned as it is.
auto write_failed(const ImportArgs& args, const core::Error& cause) -> core::Error {
  if (cause.code == core::ErrorCode::DataLoss || cause.code == core::ErrorCode::InvalidArgument) return cause;
  const bool full = cause.code == core::ErrorCode::ResourceExhausted;
  return core::Error{cause.code,
                     "cannot import " + args.file + " into " + args.output + ": " +
                         (full ? std::string("the disk is full") : cause.message) +
                         "; the partial trace was removed",
                     full ? "free space on the filesystem of " + args.output + " and import again"
                          : std::string("check the disk and its permissions, and import again")};
}

auto write_trace(const ImportArgs& args, const Imported& imported) -> core::Result<std::uint64_t> {
  const imports::Recording& recording = imported.recording;
  const std::string& format = imported.format;
  const std::string host = common_host(recording.devices);
  trace::WriterOptions options{
      .overwrite = args.force,
      .synthetic = recording.synthetic,
      .source_description =
          fmt::format("{}imported from {} ({}) by solscope {}", recording.synthetic ? "synthetic: " : "",
                      fs::path(args.file).filename().string(), format, SOLSCOPE_VERSION),
      .host = host.empty() ? std::string("unknown (imported)") : host,
      .start_time_ns = std::max<std::int64_t>(imported.first_start_ns + imported.shift_ns, 1)};
  auto writer = trace::Writer::open(args.output, options);
  if (!writer) return core::fail(write_failed(args, writer.error()));
  auto done = writer->write_devices(recording.devices);
  if (done) done = writer->set_metadata("import_file", args.file);
  if (done) done = writer->set_metadata("import_format", format);
  if (done) done = writer->set_metadata("sol_definition", recording.sol_definition);
  if (done) {
    done = each_sample(args, imported, [&](const core::RawSample& raw) -> core::Result<void> {
      return writer->append(raw, core::derive(raw, recording.devices.at(raw.device_index)));
    });
  }
  if (done) done = writer->close();
  if (!done) {
    (void)writer->close();
    trace::remove_trace_files(args.output);
    return core::fail(write_failed(args, done.error()));
  }
  return writer->committed_samples();
}

}  // namespace

auto run_import(const ImportArgs& args, std::ostream& out, std::ostream& err) -> int {
  const std::string inputs[] = {args.file};
  if (auto checked = check_output_path(args.output, inputs, args.force); !checked) {
    print_error(err, checked.error());
    return kExitUsage;
  }
  auto imported = read_recording(args, args.delay_ns);
  if (!imported) {
    print_error(err, imported.error().error);
    return imported.error().exit_code;
  }
  const std::string& format_name = imported->format;
  const imports::Recording* recording = &imported->recording;
  auto written = write_trace(args, *imported);
  if (!written) {
    print_error(err, written.error());
    return kExitFailure;
  }
  if (!recording->unmapped.empty()) {
    std::string names;
    for (const auto& [name, count] : recording->unmapped) {
      names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", name, count);
    }
    print_warning(err, args.file + ": not mapped to a solscope metric, skipped (values): " + names);
  }
  for (const std::string& note : imports::import_notes(*recording))
    print_warning(err, args.file + ": " + note);
  for (const std::string& note : recording->notes) print_note(err, args.file + ": " + note);
  out << fmt::format("imported {} samples of {} GPU{} from {} ({}) into {}\nSOL: {}\n", *written,
                     recording->devices.size(), recording->devices.size() == 1 ? "" : "s", args.file,
                     format_name, args.output, recording->sol_definition);
  return kExitOk;
}

}  // namespace solscope::app
