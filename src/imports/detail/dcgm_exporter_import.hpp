// A saved dcgm-exporter scrape (or many concatenated, each sample line with its timestamp) as a recording,
// through parse_dcgm_scrapes() (net/dcgm_exposition.hpp). Pure: no I/O.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/result.hpp"
#include "imports/detail/recording.hpp"

namespace solscope::imports {

/// Reads the scrapes of `text`. A scrape without timestamps is placed at time 0 (relative_times) and spans
/// `single_ns`; timestamped scrapes span from the GPU's previous scrape (the first one as long as the
/// second). Errors: as net::parse_dcgm_scrapes() (DataLoss "line N: ...", InvalidArgument when no DCGM_FI_*
/// series).
[[nodiscard]] auto import_dcgm_exporter(std::string_view text, std::int64_t single_ns)
    -> core::Result<Recording>;

}  // namespace solscope::imports
