// libFuzzer target: the trace reader (trace/reader.hpp) on arbitrary file contents.
//
// Each input is written to one file in a private temporary folder (the reader opens paths, not buffers), then
// opened and read to the end through every public read path: metadata, devices, time span, raw samples, SOL
// samples, a filtered cursor. A finding is a crash, a sanitizer report, a leak or a hang (scripts/fuzz.sh
// runs it with -timeout and -rss_limit_mb); an error result is the expected answer to most inputs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

/// Reads every sample of `reader` through the cursor and the callbacks; returns what they counted.
auto read_all(const Reader& reader) -> std::uint64_t {
  std::uint64_t seen = 0;
  const auto count = [&](const auto&) {
    ++seen;
    return true;
  };
  (void)reader.for_each({}, count);
  (void)reader.for_each_sol({}, count);
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
