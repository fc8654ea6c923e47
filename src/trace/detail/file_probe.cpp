#include "trace/detail/file_probe.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <system_error>

namespace solscope::trace::detail {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kHeaderBytes = 100;
constexpr char kMagic[] = "SQLite format 3";  // 16 bytes with its NUL (fileformat2.html 1.3)

}  // namespace

auto big_endian_u32(const unsigned char* p) -> std::uint32_t {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

auto not_a_trace(const fs::path& path, std::string_view why) -> core::Error {
  return core::Error{core::ErrorCode::InvalidArgument,
                     "not a solscope trace: " + path.string() + " " + std::string(why),
                     "give the path of a file written by `solscope record`"};
}

auto probe_trace_file(const fs::path& path) -> core::Result<FileProbe> {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) {
    return core::fail(core::ErrorCode::NotFound, "no such trace: " + path.string(),
                      "check the path (traces are written by `solscope record -o FILE`)");
  }
  if (fs::is_directory(status)) return core::fail(not_a_trace(path, "is a directory"));
  FileProbe probe;
  probe.size_bytes = fs::file_size(path, ec);
  if (ec) {
    return core::fail(core::ErrorCode::PermissionDenied,
                      "cannot read trace " + path.string() + ": " + ec.message());
  }
  if (probe.size_bytes == 0) return core::fail(not_a_trace(path, "is empty"));

  std::array<unsigned char, kHeaderBytes> header{};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return core::fail(core::ErrorCode::PermissionDenied,
                      "cannot read trace " + path.string() + ": " + std::strerror(errno));
  }
  in.read(reinterpret_cast<char*>(header.data()), static_cast<std::streamsize>(header.size()));
  const auto got = static_cast<std::size_t>(in.gcount());
  const std::size_t magic_len = std::min(got, sizeof kMagic);
  if (std::memcmp(header.data(), kMagic, magic_len) != 0) {
    return core::fail(not_a_trace(path, "is not an SQLite database"));
  }
  if (got < kHeaderBytes) {
    return core::fail(core::ErrorCode::DataLoss,
                      "trace " + path.string() + " is cut short inside its header (" + std::to_string(got) +
                          " bytes): nothing can be read",
                      "the recording was cut off at its very start; record again");
  }
  const std::uint32_t page_field = (std::uint32_t{header[16]} << 8) | header[17];
  probe.page_size_bytes = page_field == 1 ? 65536 : page_field;
  if (std::memcmp(header.data() + 24, header.data() + 92, 4) == 0)
    probe.header_pages = big_endian_u32(&header[28]);
  const auto wal_bytes = fs::file_size(fs::path(path.string() + "-wal"), ec);
  probe.has_wal = !ec && wal_bytes > 0;
  return probe;
}

auto cut_short(const FileProbe& probe) -> bool {
  if (probe.has_wal || probe.header_pages == 0) return false;
  return probe.size_bytes < std::uintmax_t{probe.header_pages} * probe.page_size_bytes;
}

auto human_bytes(std::uintmax_t bytes) -> std::string {
  constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%.1f %s", value, kUnits[unit]);
  return text.data();
}

}  // namespace solscope::trace::detail
