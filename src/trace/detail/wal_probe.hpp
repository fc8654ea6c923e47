// Reads a trace's write-ahead log (<path>-wal) the way SQLite validates it, to tell the user about commits
// that are in the file but that SQLite will not apply.
//
// SQLite applies WAL frames in order up to the first frame whose salts or cumulative checksum do not match,
// and ignores every frame after it, even whole valid transactions (https://www.sqlite.org/fileformat.html,
// section 4 "The Write-Ahead Log"). A damaged frame in the middle of the log therefore drops every later
// commit without an error; this probe counts them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace solscope::trace::detail {

/// What the -wal file holds beyond what SQLite applies.
struct WalDamage {
  bool header_damaged = false;        ///< the 32-byte header fails its checksum: SQLite ignores the whole log
  std::uint64_t first_bad_frame = 0;  ///< 0-based index of the first frame SQLite rejects
  std::uint64_t first_bad_offset_bytes = 0;  ///< its offset in the -wal file
  std::uint64_t applied_commits = 0;         ///< commit frames SQLite applies (before the damage)
  std::uint64_t lost_commits = 0;  ///< commit frames of this log (salts match) at or after the damage
  std::uint64_t lost_frames = 0;   ///< frames of this log at or after the damage
};

/// Probes `wal_path`. nullopt when there is nothing to say: no file, a file too short for a header, a log
/// SQLite applies whole, or one whose only rejected frames are a torn, uncommitted tail (what a killed writer
/// leaves). Reads the file once; never writes it.
[[nodiscard]] auto probe_wal(const std::filesystem::path& wal_path) -> std::optional<WalDamage>;

}  // namespace solscope::trace::detail
