// The web dashboard's files, built into the binary at build time (cmake/embed_assets.cmake): no CDN, works
// offline.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace solscope::server {

/// One embedded file. The views point into static storage (valid for the whole run).
struct Asset {
  std::string_view path;          ///< URL path: "/" (web/src/index.html) or "/assets/<file name>"
  std::string_view content_type;  ///< HTTP Content-Type, e.g. "text/css; charset=utf-8"
  std::string_view bytes;         ///< the file's contents
};

/// The asset served at `url_path` ("/index.html" is "/"); nullopt when none is built in.
[[nodiscard]] auto find_asset(std::string_view url_path) -> std::optional<Asset>;

/// Every built-in asset's URL path, in build order.
[[nodiscard]] auto asset_paths() -> std::vector<std::string_view>;

}  // namespace solscope::server
