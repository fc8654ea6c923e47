#include "server/detail/assets.hpp"

#include "server/detail/assets_table.hpp"

namespace solscope::server {

auto find_asset(std::string_view url_path) -> std::optional<Asset> {
  if (url_path == "/index.html") url_path = "/";
  for (std::size_t i = 0; i < detail::kEmbeddedAssetCount; ++i) {
    const detail::EmbeddedAsset& a = detail::kEmbeddedAssets[i];
    if (a.path == url_path) return Asset{.path = a.path, .content_type = a.content_type, .bytes = a.bytes};
  }
  return std::nullopt;
}

auto asset_paths() -> std::vector<std::string_view> {
  std::vector<std::string_view> paths;
  for (std::size_t i = 0; i < detail::kEmbeddedAssetCount; ++i)
    paths.push_back(detail::kEmbeddedAssets[i].path);
  return paths;
}

}  // namespace solscope::server
