// libFuzzer target: the trace reader (trace/reader.hpp) on arbitrary file contents.
//
// Each input is written to one file in a private temporary folder (the reader opens paths, not buffers), then
// opened and read to the end through every public read path: metadata, devices, time span, raw samples, SOL
// samples, a filtered cursor, the kernels. A finding is a crash, a sanitizer report, a leak or a hang
// (scripts/fuzz.sh runs it with -timeout and -rss_limit_mb), or a read that breaks the counting rule of
// docs/trace-format.md: a whole read of a table whose row count is known returns and skips exactly its rows
// (samples + skipped_rows = table_rows; the same for the kernels). An error result is the expected answer to
// most inputs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>

#include "trace/reader.hpp"

namespace {

namespace fs = std::filesystem;
using solscope::trace::Reader;
using solscope::trace::ReadOptions;

/// A folder of its own under $TMPDIR, removed at exit, holding the one trace file each input becomes.
class TempTrace {
 public:
  TempTrace() {
    std::string pattern = (fs::temp_directory_path() / "solscope-fuzz-trace-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    dir_ = pattern;
    file_ = dir_ / "trace.sqlite";
  }
  ~TempTrace() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  TempTrace(const TempTrace&) = delete;
  auto operator=(const TempTrace&) -> TempTrace& = delete;

  /// Replaces the file's contents with `data`; removes journals an earlier input may have left.
  auto write(const std::uint8_t* data, std::size_t size) -> const fs::path& {
    std::error_code ignored;
    for (const char* suffix : {"-wal", "-shm", "-journal"}) fs::remove(file_.string() + suffix, ignored);
    std::ofstream out(file_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) std::abort();
    return file_;
  }

 private:
  fs::path dir_;
  fs::path file_;
};

/// Aborts (a libFuzzer finding) when a whole read of a table breaks the counting rule: `read` + `skipped`
/// must equal the table's row count wherever the reader knows it.
void check_counting_rule(std::uint64_t read, std::uint64_t skipped, std::optional<std::uint64_t> rows) {
  if (rows && read + skipped != *rows) std::abort();
}

/// Reads every sample of `reader` through the cursor and the callbacks; returns what they counted.
auto read_all(const Reader& reader) -> std::uint64_t {
  std::uint64_t seen = 0;
  const auto count = [&](const auto&) {
    ++seen;
    return true;
  };
  for (const bool sol : {false, true}) {
    auto summary = sol ? reader.for_each_sol({}, count) : reader.for_each({}, count);
    if (summary) {
      check_counting_rule(summary->samples, summary->report.skipped_rows, summary->report.table_rows);
    }
  }
  if (auto table = reader.kernels(); table && table->present) {
    check_counting_rule(table->report.kernels, table->report.skipped_rows, table->report.table_rows);
    if (table->kernels.size() != table->report.kernels) std::abort();
  }
  if (auto markers = reader.markers(); markers && markers->present) {
    for (const auto& m : markers->rows) {
      if (m.end_ns < m.start_ns) std::abort();  // a damaged row is skipped, never returned
    }
  }
  ReadOptions some;
  some.devices = {0, 1};
  some.from_ns = 1;
  some.to_ns = std::int64_t{1} << 62;
  if (auto cursor = reader.cursor(some)) {
    solscope::core::SolSample sample;
    while (cursor->next(sample)) ++seen;
    if (cursor->damage()) (void)cursor->damage()->describe();
  }
  return seen;
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  static TempTrace temp;
  auto reader = Reader::open(temp.write(data, size));
  if (!reader) {
    (void)reader.error().describe();
    return 0;
  }
  (void)reader->metadata().entries.size();
  for (const auto& device : reader->devices()) (void)reader->device(device.index);
  (void)reader->sample_count();
  (void)reader->recovery_note();
  (void)reader->time_span();
  (void)read_all(*reader);
  return 0;
}
