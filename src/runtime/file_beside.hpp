// An output file written through a temporary file beside it, so that a failed write (a full disk, a broken
// stream) never leaves a partial file at the output path.
#pragma once

#include <filesystem>
#include <fstream>
#include <ostream>

#include "core/result.hpp"

namespace solscope::app {

/// A temporary file in the directory of `target`, named ".<target name>.solscope-<pid>.tmp". commit() renames
/// it over `target` (atomic on one filesystem: a reader sees the old file or the whole new one); without a
/// successful commit() the destructor removes it, and `target` is left as it was. Check the output path first
/// (check_output_path): this class replaces an existing `target` without asking.
///
/// Example:
/// ```
/// auto file = FileBeside::create("out.csv");
/// if (!file) return core::propagate(file);
/// if (auto written = write_rows(file->stream()); !written) return written;  // removed by the destructor
/// return file->commit();
/// ```
class FileBeside {
 public:
  /// Creates the temporary file (O_EXCL, mode 0666 less the umask). Errors: PermissionDenied (EACCES, EPERM)
  /// or Unavailable "cannot create a temporary file beside TARGET: <errno text>".
  [[nodiscard]] static auto create(const std::filesystem::path& target) -> core::Result<FileBeside>;

  FileBeside(FileBeside&& other) noexcept;
  auto operator=(FileBeside&&) -> FileBeside& = delete;
  FileBeside(const FileBeside&) = delete;
  auto operator=(const FileBeside&) -> FileBeside& = delete;
  /// Removes the temporary file unless commit() succeeded.
  ~FileBeside();

  /// The stream to write the content to.
  [[nodiscard]] auto stream() -> std::ostream& { return stream_; }
  /// Flushes and closes the stream, then renames the temporary file over the target. Errors: Unavailable
  /// "cannot write TARGET: <why>" when the stream failed (a full disk) or the rename failed; the temporary
  /// file is removed then.
  [[nodiscard]] auto commit() -> core::Result<void>;

 private:
  FileBeside(std::filesystem::path target, std::filesystem::path temporary);
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  std::ofstream stream_;
  bool committed_ = false;
};

}  // namespace solscope::app
