// The table of dashboard assets that cmake/embed_assets.cmake generates (embedded_assets.cpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace solscope::server::detail {

/// One file built into the binary.
struct EmbeddedAsset {
  std::string_view path;          ///< URL path, e.g. "/" or "/assets/app.js"
  std::string_view content_type;  ///< e.g. "text/javascript; charset=utf-8"
  std::string_view bytes;         ///< the file's contents
};

/// The generated table (kEmbeddedAssetCount entries; the array has at least one element).
extern const EmbeddedAsset kEmbeddedAssets[];
extern const std::size_t kEmbeddedAssetCount;

}  // namespace solscope::server::detail
