#include "cli/report/report_html.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/report/detail/report_assets_table.hpp"
#include "report/report_series.hpp"
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

auto missing_file(std::string_view name) -> core::Error {
  return core::Error{
      core::ErrorCode::Internal,
      "the HTML report's template lacks " + std::string(name) + " (built without it)",
      "rebuild solscope with web/src and web/node_modules/uplot present (npm ci --prefix web)"};
}

}  // namespace

auto json_for_script(const nlohmann::ordered_json& report) -> std::string {
  const std::string text = wire::json_text(report);
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

auto render_html_report(const nlohmann::ordered_json& report) -> core::Result<std::string> {
  const auto page = find_template_file("report.html");
  if (!page) return core::fail(missing_file("report.html"));
  std::array<Part, 6> parts{Part{"uplot.css", {}},  Part{"common.css", {}},
                            Part{"report.css", {}}, Part{"uplot.js", {}},
                            Part{"report.js", {}},  Part{"report.json", json_for_script(report)}};
  const std::array<std::string_view, 5> files{"uPlot.min.css", "common.css", "report.css",
                                              "uPlot.iife.min.js", "report.js"};
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto bytes = find_template_file(files[i]);
    if (!bytes) return core::fail(missing_file(files[i]));
    parts[i].text = text_for_element(*bytes);
  }
  // One pass over the template: text put in place is never scanned again (a kernel may be named
  // "@solscope:...").
  std::string out;
  out.reserve(page->size() + report.size() * 64 + 64 * 1024);
  std::size_t from = 0;
  while (true) {
    const std::size_t at = page->find(kMarkerOpen, from);
    if (at == std::string_view::npos) break;
    const std::size_t name_at = at + kMarkerOpen.size();
    const std::size_t end = page->find('@', name_at);
    const std::string_view name = end == std::string_view::npos ? "" : page->substr(name_at, end - name_at);
    auto part = std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return p.marker == name; });
    if (part == parts.end()) return core::fail(missing_file("a known marker at byte " + std::to_string(at)));
    out.append(*page, from, at - from);
    out += part->text;
    ++part->uses;
    from = end + 1;
  }
  out.append(*page, from);
  for (const Part& p : parts) {
    if (p.uses != 1) return core::fail(missing_file("exactly one marker " + std::string(p.marker)));
  }
  return out;
}

auto write_html_report(const nlohmann::ordered_json& report, const std::filesystem::path& out)
    -> core::Result<void> {
  auto page = render_html_report(report);
  if (!page) return core::propagate(page);
  errno = 0;
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  if (!file) {
    const int saved = errno;
    const auto code =
        saved == EACCES || saved == EPERM ? core::ErrorCode::PermissionDenied : core::ErrorCode::NotFound;
    return core::fail(code,
                      "cannot write the HTML report " + out.string() + ": " +
                          (saved != 0 ? std::strerror(saved) : "open failed"),
                      "check that the directory exists and is writable");
  }
  file.write(page->data(), static_cast<std::streamsize>(page->size()));
  file.close();
  if (!file) {
    return core::fail(core::ErrorCode::DataLoss,
                      "cannot write the HTML report " + out.string() + ": write error",
                      "check the free space of its file system");
  }
  return {};
}

auto write_html_report(const report::Report& report, const std::filesystem::path& out) -> core::Result<void> {
  return write_html_report(report::to_json_with_series(report), out);
}

}  // namespace solscope::app
