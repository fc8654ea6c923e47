#include "imports/dmon_common.hpp"

namespace solscope::imports {

void shift_times(Recording& recording, std::int64_t delta_ns) {
  for (core::RawSample& s : recording.samples) {
    s.t_start_ns += delta_ns;
    s.t_end_ns += delta_ns;
  }
}

}  // namespace solscope::imports
