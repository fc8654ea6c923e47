// A saved dcgm-exporter scrape (or many concatenated, each sample line with its timestamp) as a recording,
// one scrape at a time through parse_dcgm_scrape() (net/dcgm_exposition.hpp). Pure: no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/result.hpp"
#include "imports/detail/recording.hpp"
#include "imports/line_source.hpp"

namespace solscope::imports {

/// The most one scrape may hold, in bytes (the lines of one timestamp, or a whole file without timestamps):
/// 64 MiB, far above a dcgm-exporter page (about 50 KiB for 8 GPUs).
inline constexpr std::size_t kMaxScrapeBytes = std::size_t{64} << 20;

/// Reads the scrapes of `text`. A scrape without timestamps is placed at time 0 (relative_times) and spans
/// `single_ns`; timestamped scrapes span from the GPU's previous scrape (the first one as long as the
/// second). A scrape is the sample lines of one timestamp, which come together and in time order (a log of
/// successive scrapes). Errors: as net::parse_dcgm_scrape() (DataLoss "line N: ...", InvalidArgument when no
/// DCGM_FI_* series); DataLoss "line N: ..." for lines with and without timestamps mixed, or a timestamp not
/// after the previous scrape's; ResourceExhausted for a scrape over kMaxScrapeBytes.
[[nodiscard]] auto import_dcgm_exporter(std::string_view text, std::int64_t single_ns)
    -> core::Result<Recording>;

/// import_dcgm_exporter() over `lines`: each scrape is parsed when the next one begins, and its samples go to
/// `rows` with only their end time (RowSink::unspanned; the Recording's span_single_ns is set).
/// Holds one scrape's lines and, per GPU, its device; the Recording returned has no samples. Errors: as
/// import_dcgm_exporter(), the source's and the sink's (through `rows`).
[[nodiscard]] auto stream_dcgm_exporter(LineSource& lines, std::int64_t single_ns, RowSink& rows)
    -> core::Result<Recording>;

}  // namespace solscope::imports
