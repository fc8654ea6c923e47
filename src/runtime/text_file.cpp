#include "runtime/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace solscope::app {

auto read_text_file(const std::filesystem::path& path, std::string_view what, std::string_view hint)
    -> core::Result<std::string> {
  const std::string prefix = "cannot read " + std::string(what) + " " + path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return core::fail(core::ErrorCode::InvalidArgument, prefix + ": it is a directory", std::string(hint));
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int saved = errno;
    const auto code =
        saved == EACCES || saved == EPERM ? core::ErrorCode::PermissionDenied : core::ErrorCode::NotFound;
    return core::fail(code, prefix + ": " + (saved != 0 ? std::strerror(saved) : "open failed"),
                      std::string(hint));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return core::fail(core::ErrorCode::DataLoss, prefix + ": read error", std::string(hint));
  return text.str();
}

}  // namespace solscope::app
