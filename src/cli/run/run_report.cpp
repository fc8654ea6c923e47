#include "cli/run/run_report.hpp"

#include <fmt/format.h>

#include <charconv>

#include "cli/report/report_command.hpp"
#include "cli/report/report_html.hpp"
#include "core/units.hpp"
#include "report/report_text.hpp"
#include "run/run_metadata.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "trace/reader.hpp"

namespace solscope::app {
namespace {

auto meta_int(const trace::TraceMetadata& meta, std::string_view key) -> std::optional<std::int64_t> {
  const auto it = meta.entries.find(key);
  if (it == meta.entries.end()) return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  if (ec != std::errc() || end != it->second.data() + it->second.size()) return std::nullopt;
  return v;
}

}  // namespace

auto print_run_report(const std::filesystem::path& trace, const std::string& html, std::ostream& err) -> int {
  auto reader = trace::Reader::open(trace);
  if (!reader) {
    print_error(err, reader.error());
    return kExitBadTrace;
  }
  auto built = build_report(*reader, trace.string(), err);
  if (!built) {
    print_error(err, built.error());
    return kExitBadTrace;
  }
  const trace::TraceMetadata& meta = reader->metadata();
  const auto start = meta_int(meta, kMetaRunStartNs);
  const auto end = meta_int(meta, kMetaRunEndNs);
  const double seconds =
      start && end ? static_cast<double>(*end - *start) / static_cast<double>(core::kNsPerS) : 0.0;
  std::string kernel_text = meta.kernel_log.empty() ? std::string("no kernel log")
                                                    : fmt::format("{} kernels ({} dropped)",
                                                                  built->kernel_calls, meta.kernels_dropped);
  print_note(err, fmt::format("run: {} samples of {} GPU(s), {}, {:.1f} s of the command", built->samples,
                              reader->devices().size(), kernel_text, seconds));
  // Without samples or kernels (no GPU sampled, no kernel seen) the summary says all there is.
  if (built->samples > 0 || built->kernel_calls > 0) err << report::render_text(*built);
  if (html.empty()) return kExitOk;
  if (auto written = write_html_report(*built, html); !written) {
    print_error(err, written.error());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace solscope::app
