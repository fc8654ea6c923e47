// The self-contained HTML pages of the command line (`report --html`, `ceiling --sweep --html`): a template
// built into the binary (web/src, uPlot from web/node_modules; cli/report/detail/report_assets_table.hpp)
// whose markers "@solscope:NAME@" are replaced, once each, by the text of other built-in files and by the
// page's JSON, so that the written file opens from disk, offline, and makes no request.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/result.hpp"

namespace solscope::app {

/// `data` as JSON text that is safe inside a `<script type="application/json">` element: every `<`, `>` and
/// `&` is written `\u003c`, `\u003e`, `\u0026`, and U+2028/U+2029 as `\u2028`/`\u2029` (they can only occur
/// inside JSON strings, so JSON.parse reads the same value back). Invalid UTF-8 in a string becomes U+FFFD.
[[nodiscard]] auto json_for_script(const nlohmann::ordered_json& data) -> std::string;

/// JavaScript or CSS text that is safe inside a `<script>` or `<style>` element: each `</` that begins
/// `</script` or `</style` (any case) becomes `<\/`, an equivalent escape inside JS strings and CSS.
[[nodiscard]] auto text_for_element(std::string_view code) -> std::string;

/// A built-in file put in place of a marker of a page template.
struct PageAsset {
  std::string_view marker;  ///< the name between "@solscope:" and "@", e.g. "uplot.js"
  std::string_view file;    ///< the built-in file, e.g. "uPlot.iife.min.js"
};

/// The page `template_file` with each of `assets` (text_for_element) and json_for_script(data) (at
/// `data_marker`) in place of its marker, in one pass: text put in place is never scanned again. Errors:
/// Internal when the built-in table lacks a file, or the template a marker or holds one twice or one not
/// named here (a build problem: web/src or web/node_modules/uplot was missing when solscope was built).
[[nodiscard]] auto render_html_page(std::string_view template_file, std::span<const PageAsset> assets,
                                    std::string_view data_marker, const nlohmann::ordered_json& data)
    -> core::Result<std::string>;

/// Writes `page` to `out` through a temporary file beside it (FileBeside: a failed write leaves no partial
/// file). Check the path first (check_output_path). Errors: FileBeside's, naming `out`.
[[nodiscard]] auto write_html_page(std::string_view page, const std::filesystem::path& out)
    -> core::Result<void>;

}  // namespace solscope::app
