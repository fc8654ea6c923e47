#include "check/run/check_report.hpp"

namespace solscope::app {

auto to_string(CheckVerdict verdict) -> std::string_view {
  switch (verdict) {
    case CheckVerdict::Pass:
      return "PASS";
    case CheckVerdict::Fail:
      return "FAIL";
    case CheckVerdict::Fault:
      return "FAULT";
    case CheckVerdict::NoData:
      return "NO DATA";
  }
  return "?";
}

auto all_passed(const CheckReport& report) -> bool {
  bool any = false;
  for (const SourceCheck& c : report.checks) {
    for (const CheckRow& r : c.rows) {
      if (r.verdict != CheckVerdict::Pass) return false;
      any = true;
    }
  }
  return any;
}

}  // namespace solscope::app
