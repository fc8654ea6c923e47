#include "cli/report/html_page.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/report/detail/report_assets_table.hpp"
#include "runtime/file_beside.hpp"
#include "wire/json_text.hpp"

namespace solscope::app {
namespace {

constexpr std::string_view kMarkerOpen = "@solscope:";

auto find_template_file(std::string_view name) -> std::optional<std::string_view> {
  for (std::size_t i = 0; i < detail::kEmbeddedAssetCount; ++i) {
    if (detail::kEmbeddedAssets[i].path == name) return detail::kEmbeddedAssets[i].bytes;
  }
  return std::nullopt;
}

auto starts_with_nocase(std::string_view text, std::size_t at, std::string_view prefix) -> bool {
  if (text.size() - at < prefix.size()) return false;
  return std::equal(
      prefix.begin(), prefix.end(), text.begin() + static_cast<std::ptrdiff_t>(at), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
      });
}

/// One marker of the template and what replaces it.
struct Part {
  std::string_view marker;  ///< the name between "@solscope:" and "@"
  std::string text;
  int uses = 0;
};

auto missing_file(std::string_view template_file, std::string_view name) -> core::Error {
  return core::Error{
      core::ErrorCode::Internal,
      "the HTML page's template " + std::string(template_file) + " lacks " + std::string(name) +
          " (built without it)",
      "rebuild solscope with web/src and web/node_modules/uplot present (npm ci --prefix web)"};
}

}  // namespace

auto json_for_script(const nlohmann::ordered_json& data) -> std::string {
  const std::string text = wire::json_text(data);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

auto text_for_element(std::string_view code) -> std::string {
  std::string out;
  out.reserve(code.size());
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (code[i] == '<' &&
        (starts_with_nocase(code, i, "</script") || starts_with_nocase(code, i, "</style"))) {
      out += "<\\/";
      ++i;  // the '/' is written above
      continue;
    }
    out += code[i];
  }
  return out;
}

auto render_html_page(std::string_view template_file, std::span<const PageAsset> assets,
                      std::string_view data_marker, const nlohmann::ordered_json& data)
    -> core::Result<std::string> {
  const auto page = find_template_file(template_file);
  if (!page) return core::fail(missing_file(template_file, template_file));
  std::vector<Part> parts;
  parts.reserve(assets.size() + 1);
  for (const PageAsset& asset : assets) {
    const auto bytes = find_template_file(asset.file);
    if (!bytes) return core::fail(missing_file(template_file, asset.file));
    parts.push_back(Part{asset.marker, text_for_element(*bytes)});
  }
  parts.push_back(Part{data_marker, json_for_script(data)});
  // One pass over the template: text put in place is never scanned again (a kernel may be named
  // "@solscope:...").
  std::string out;
  out.reserve(page->size() + parts.back().text.size() + std::size_t{64} * 1024);
  std::size_t from = 0;
  while (true) {
    const std::size_t at = page->find(kMarkerOpen, from);
    if (at == std::string_view::npos) break;
    const std::size_t name_at = at + kMarkerOpen.size();
    const std::size_t end = page->find('@', name_at);
    const std::string_view name = end == std::string_view::npos ? "" : page->substr(name_at, end - name_at);
    auto part = std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return p.marker == name; });
    if (part == parts.end()) {
      return core::fail(missing_file(template_file, "a known marker at byte " + std::to_string(at)));
    }
    out.append(*page, from, at - from);
    out += part->text;
    ++part->uses;
    from = end + 1;
  }
  out.append(*page, from);
  for (const Part& p : parts) {
    if (p.uses != 1) {
      return core::fail(missing_file(template_file, "exactly one marker " + std::string(p.marker)));
    }
  }
  return out;
}

auto write_html_page(std::string_view page, const std::filesystem::path& out) -> core::Result<void> {
  auto file = FileBeside::create(out);
  if (!file) return core::propagate(file);
  file->stream().write(page.data(), static_cast<std::streamsize>(page.size()));
  return file->commit();
}

}  // namespace solscope::app
