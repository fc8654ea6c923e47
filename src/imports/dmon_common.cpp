#include "imports/detail/dmon_common.hpp"

namespace solscope::imports {

auto interval_fits(std::int64_t k, const DmonOptions& options) -> bool {
  constexpr std::int64_t kLimit = std::int64_t{1} << 62;
  if (options.interval_ns <= 0 || k < 0 || options.start_ns < 0 || options.start_ns >= kLimit) return false;
  return k < (kLimit - options.start_ns) / options.interval_ns - 1;
}

}  // namespace solscope::imports
