// `solscope report TRACE --html FILE`: the report as one self-contained HTML page. The template
// (web/src/report.html, .css, .js, with web/src/common.css) and uPlot are built into the binary; the report's
// JSON (docs/report.md) is inlined, so the file opens from disk, offline, and makes no request.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "cli/report/html_page.hpp"
#include "core/result.hpp"
#include "report/report.hpp"

namespace solscope::app {

/// The whole page: the template with uPlot's JS and CSS, the pages' shared CSS and JS (web/src/common.css,
/// web/src/page.js), the page's own JS and CSS and json_for_script(report) in place of its seven markers
/// (render_html_page, html_page.hpp). Errors: render_html_page's.
[[nodiscard]] auto render_html_report(const nlohmann::ordered_json& report) -> core::Result<std::string>;

/// Writes render_html_report(report) to `out`, replacing what it holds. The caller checks the path first
/// (check_output_path: never over the trace, an existing file only with --force). Errors: those of
/// render_html_report; PermissionDenied or NotFound naming `out` when it cannot be opened; DataLoss when a
/// write fails (a full disk).
[[nodiscard]] auto write_html_report(const nlohmann::ordered_json& report, const std::filesystem::path& out)
    -> core::Result<void>;

/// The HTML report of `report`: write_html_report(report::to_json_with_series(report), out), so that the page
/// holds the `--json` report plus each GPU's series for its charts (report_series.hpp).
[[nodiscard]] auto write_html_report(const report::Report& report, const std::filesystem::path& out)
    -> core::Result<void>;

}  // namespace solscope::app
