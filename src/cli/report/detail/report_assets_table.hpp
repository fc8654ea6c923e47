// The template of the HTML report (web/src/report.*) and uPlot, built into the binary by
// cmake/embed_assets.cmake (report_assets.cpp, generated in the build tree).
#pragma once

#include <cstddef>
#include <string_view>

namespace solscope::app::detail {

/// One file built into the binary.
struct EmbeddedAsset {
  std::string_view path;          ///< the file's name: "report.html", "report.js", "uPlot.iife.min.js", ...
  std::string_view content_type;  ///< e.g. "text/javascript; charset=utf-8" (unused by the report)
  std::string_view bytes;         ///< the file's contents
};

/// The generated table (kEmbeddedAssetCount entries; the array has at least one element).
extern const EmbeddedAsset kEmbeddedAssets[];
extern const std::size_t kEmbeddedAssetCount;

}  // namespace solscope::app::detail
