#include "runtime/output_path.hpp"

#include <unistd.h>

#include <filesystem>
#include <string_view>
#include <system_error>

namespace solscope::app {
namespace fs = std::filesystem;

namespace {

/// What a file of type `type` is, for "output P is a FIFO, not a regular file".
auto kind_of(fs::file_type type) -> std::string_view {
  switch (type) {
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "a special file";
  }
}

/// The directory `output` would be created in must exist, be a directory and be writable.
auto check_parent(const std::string& output) -> core::Result<void> {
  const fs::path parent = fs::path(output).parent_path();
  const fs::path dir = parent.empty() ? fs::path(".") : parent;
  std::error_code ec;
  const auto status = fs::status(dir, ec);
  if (!fs::exists(status)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "output " + output + ": directory " + dir.string() + " does not exist",
                      "create the directory first, or give another path");
  }
  if (!fs::is_directory(status)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "output " + output + ": " + dir.string() + " is not a directory",
                      "give a path inside a directory");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "output " + output + ": directory " + dir.string() + " is not writable",
                      "give a path in a directory you can write to");
  }
  return core::ok();
}

}  // namespace

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
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "output " + output + " is " + std::string(kind_of(status.type())) + ", not a regular file",
        "give the path of a regular file (to print, leave -o out where the command allows)");
  }
  if (fs::is_regular_file(status) && !force) {
    return core::fail(core::ErrorCode::InvalidArgument, "output " + output + " already exists",
                      "choose another path, or add --force to overwrite it");
  }
  return check_parent(output);
}

}  // namespace solscope::app
