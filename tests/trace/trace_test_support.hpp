// Helpers for the trace and replay tests: a temporary directory, file surgery, reading a trace back,
// comparing samples bit for bit.
#pragma once

#include <sqlite3.h>
#include <stdlib.h>

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "core/raw_sample.hpp"
#include "trace/reader.hpp"

namespace solscope::trace::testing {

/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "solscope-trace-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  auto operator=(const TempDir&) -> TempDir& = delete;
  [[nodiscard]] auto path() const -> const std::filesystem::path& { return path_; }
  [[nodiscard]] auto file(const std::string& name) const -> std::filesystem::path { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// The whole file as bytes.
inline auto read_bytes(const std::filesystem::path& path) -> std::vector<char> {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Writes `bytes` (the first `count` of them) to `path`, replacing it.
inline void write_bytes(const std::filesystem::path& path, const std::vector<char>& bytes,
                        std::size_t count) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(count));
}

/// Writes a text file.
inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

/// Runs SQL on a database with the plain SQLite API (for building foreign or altered files); fails the test
/// on error.
inline void run_sql(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  const std::string text = message != nullptr ? message : "";
  sqlite3_free(message);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << text;
}

/// The kernels table of the trace at `path` (Reader::kernels() with `options`). Errors: Reader::open's (the
/// file is not a trace) or Reader::kernels()'s.
inline auto read_kernels(const std::filesystem::path& path, const KernelReadOptions& options = {})
    -> core::Result<KernelTable> {
  auto reader = Reader::open(path);
  if (!reader) return core::propagate(std::move(reader));
  return reader->kernels(options);
}

/// Every sample of `reader` in read order (RawSample), plus whether the cursor met damage.
struct ReadBack {
  std::vector<core::RawSample> samples;
  bool damaged = false;
};
inline auto read_all(const Reader& reader, const ReadOptions& options = {}) -> ReadBack {
  ReadBack out;
  auto cursor = reader.cursor(options);
  if (!cursor) {
    out.damaged = true;
    return out;
  }
  core::RawSample sample;
  while (cursor->next(sample)) out.samples.push_back(sample);
  out.damaged = cursor->damage().has_value();
  return out;
}

/// True when two doubles have the same bits (NaN payloads included).
inline auto same_bits(double a, double b) -> bool {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

/// True when two samples are identical: identity fields equal and every value bit-identical.
inline auto identical(const core::RawSample& a, const core::RawSample& b) -> bool {
  if (a.device_index != b.device_index || a.t_start_ns != b.t_start_ns || a.t_end_ns != b.t_end_ns ||
      a.source != b.source || a.flags != b.flags) {
    return false;
  }
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    if (!same_bits(a.values[i], b.values[i])) return false;
  }
  return true;
}

}  // namespace solscope::trace::testing
