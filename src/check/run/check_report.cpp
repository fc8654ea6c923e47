#include "check/run/detail/check_report.hpp"

#include "core/enum_table.hpp"

namespace solscope::app {

constexpr core::EnumNames<CheckVerdict, 4> kVerdictNames({"PASS", "FAIL", "FAULT", "NO DATA"}, "?");

auto to_string(CheckVerdict verdict) -> std::string_view {
  return kVerdictNames(verdict);
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
