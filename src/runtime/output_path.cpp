#include "runtime/output_path.hpp"

#include <filesystem>
#include <string_view>
#include <system_error>

namespace solscope::app {
namespace fs = std::filesystem;

auto is_same_or_sidecar(const std::string& a, const std::string& b) -> bool {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  // Paths not created yet (`run -o T --html T`): the same path once resolved.
  std::error_code ea;
  std::error_code eb;
  const fs::path resolved_a = fs::weakly_canonical(a, ea);
  if (!ea && resolved_a == fs::weakly_canonical(b, eb) && !eb) return true;
  for (const std::string_view suffix : {"-wal", "-shm", "-journal"}) {
    if (fs::equivalent(a, b + std::string(suffix), ec)) return true;
  }
  return false;
}

auto check_output_path(const std::string& output, std::span<const std::string> inputs, bool force)
    -> core::Result<void> {
  for (const std::string& input : inputs) {
    if (is_same_or_sidecar(output, input)) {
      return core::fail(
          core::ErrorCode::InvalidArgument,
          "output " + output + " is the input " + input + ": writing it would destroy the input",
          "give another output path with -o");
    }
  }
  std::error_code ec;
  const auto status = fs::status(output, ec);
  if (fs::is_directory(status)) {
    return core::fail(core::ErrorCode::InvalidArgument, "output " + output + " is a directory",
                      "give a file name with -o");
  }
  if (fs::is_regular_file(status) && !force && fs::file_size(output, ec) > 0 && !ec) {
    return core::fail(core::ErrorCode::InvalidArgument, "output " + output + " already exists",
                      "choose another path, or add --force to overwrite it");
  }
  return core::ok();
}

}  // namespace solscope::app
