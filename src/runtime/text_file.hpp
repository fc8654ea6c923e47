// Whole-file reads for the app's inputs (model configs, GPU spec files, workload declarations).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace solscope::app {

/// Reads a whole file. Errors name `what` and the path: "cannot read <what> <path>: <why>", with NotFound for
/// a missing file, PermissionDenied (EACCES, EPERM), InvalidArgument when the path is a directory ("it is a
/// directory"), DataLoss for a read error. `hint` becomes the error's hint.
[[nodiscard]] auto read_text_file(const std::filesystem::path& path, std::string_view what,
                                  std::string_view hint = {}) -> core::Result<std::string>;

}  // namespace solscope::app
