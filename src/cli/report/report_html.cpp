#include "cli/report/report_html.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "report/report_series.hpp"

namespace solscope::app {

auto render_html_report(const nlohmann::ordered_json& report) -> core::Result<std::string> {
  static constexpr std::array<PageAsset, 6> kAssets{
      PageAsset{"uplot.css", "uPlot.min.css"}, PageAsset{"common.css", "common.css"},
      PageAsset{"report.css", "report.css"},   PageAsset{"uplot.js", "uPlot.iife.min.js"},
      PageAsset{"page.js", "page.js"},         PageAsset{"report.js", "report.js"}};
  return render_html_page("report.html", kAssets, "report.json", report);
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
