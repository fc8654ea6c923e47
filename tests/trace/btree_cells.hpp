// Byte surgery on the leaf cells of a trace's table b-trees, for damage tests: find the cell of a row by its
// rowid and its number of columns, and rewrite that rowid in place (SQLite file format,
// https://www.sqlite.org/fileformat.html: section 1.6 for b-tree pages, 2.1 for records; varints as there).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace solscope::trace::testing {

/// Where a cell's rowid varint lies in the file.
struct RowidAt {
  std::size_t offset = 0;  ///< byte offset of the varint in the file
  std::size_t bytes = 0;   ///< its length (1 to 9)
};

/// The SQLite varint at `at` (advanced past it).
inline auto read_varint(const std::vector<char>& b, std::size_t& at) -> std::uint64_t {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    const auto c = static_cast<unsigned char>(b[at++]);
    v = (v << 7U) | (c & 0x7fU);
    if (c < 0x80U) return v;
  }
  return (v << 8U) | static_cast<unsigned char>(b[at++]);
}

/// A big-endian 16-bit number at `at`.
inline auto read_u16(const std::vector<char>& b, std::size_t at) -> std::size_t {
  return (static_cast<std::size_t>(static_cast<unsigned char>(b[at])) << 8U) |
         static_cast<unsigned char>(b[at + 1]);
}

/// The rowid varint of the one table-leaf cell whose rowid is `rowid` and whose record has `columns` columns
/// (this tells the tables of a trace apart: samples, sample_counters and kernels have different counts);
/// nullopt when there is no such cell. Cells whose payload overflows are not inspected (trace rows never do).
inline auto find_rowid(const std::vector<char>& bytes, std::uint64_t rowid, std::size_t columns)
    -> std::optional<RowidAt> {
  if (bytes.size() < 100) return std::nullopt;
  std::size_t page_size = read_u16(bytes, 16);
  if (page_size == 1) page_size = 65536;
  for (std::size_t page = 0; (page + 1) * page_size <= bytes.size(); ++page) {
    const std::size_t base = page * page_size;
    const std::size_t header = base + (page == 0 ? 100 : 0);
    if (static_cast<unsigned char>(bytes[header]) != 0x0d) continue;  // a table b-tree leaf
    const std::size_t cells = read_u16(bytes, header + 3);
    for (std::size_t c = 0; c < cells; ++c) {
      std::size_t at = base + read_u16(bytes, header + 8 + 2 * c);
      if (at + 32 > base + page_size) continue;
      (void)read_varint(bytes, at);  // payload size
      const std::size_t rowid_at = at;
      if (read_varint(bytes, at) != rowid) continue;
      const std::size_t record = at;
      const std::uint64_t header_bytes = read_varint(bytes, at);
      std::size_t count = 0;
      while (at < record + header_bytes && at < base + page_size) {
        (void)read_varint(bytes, at);
        ++count;
      }
      if (count == columns) return RowidAt{rowid_at, record - rowid_at};
    }
  }
  return std::nullopt;
}

/// Rewrites the rowid at `where` to `rowid` in the same number of bytes; false when it does not fit.
inline auto set_rowid(std::vector<char>& bytes, const RowidAt& where, std::uint64_t rowid) -> bool {
  if (where.bytes == 0 || where.bytes > 8) return false;
  std::uint64_t v = rowid;
  for (std::size_t i = where.bytes; i-- > 0;) {
    const auto low = static_cast<unsigned char>(v & 0x7fU);
    bytes[where.offset + i] = static_cast<char>(i + 1 == where.bytes ? low : (low | 0x80U));
    v >>= 7U;
  }
  return v == 0;
}

}  // namespace solscope::trace::testing
