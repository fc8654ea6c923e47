// `nvidia-smi dmon [--gpm-metrics IDS] [-o DT]` text logs as solscope samples. Pure: no I/O.
//
// Layout (nvidia-smi): two header lines, the column names ("# gpu pwr gtemp ... smutil fp16") and their
// units ("# Idx W C ... GPM:% GPM:%"), then one row per GPU per interval. `-o D`/`-o T` add "Date"
// (YYYYMMDD) and "Time" (HH:MM:SS) columns in front; with both, rows are placed at that time (read as
// UTC); otherwise every DmonOptions::interval_ns, an interval ending when a GPU shows again. "-" means no
// value. GPM columns (unit "GPM:%") are mapped by their name to NVML's GPM metric ids (nvmlGpmMetricId_t:
// 1 graphics activity "gract", 2 SM activity "smutil", 3 SM occupancy "smocc", 4 integer activity, 5 tensor
// activity, 6/7/9 DFMA/HMMA/IMMA tensor, 10 DRAM "dram", 11/12/13 FP64/FP32/FP16) and then through the
// metric catalog's gpm_metric_id. The classic columns: sm (utilization.gpu %), mem (memory copy %), pwr
// (W), gtemp (C), mclk and pclk (MHz).
//
// Samples with a GPM column are SourceKind::Gpm (Compute SOL = the busiest of tensor / FP64 / FP32 / FP16
// (and integer) activity; Memory SOL = DRAM activity); without one, SourceKind::NvmlOnly (no SOL).
#pragma once

#include <string_view>

#include "core/result.hpp"
#include "imports/detail/dmon_common.hpp"
#include "imports/detail/recording.hpp"
#include "imports/line_source.hpp"

namespace solscope::imports {

/// Parses an nvidia-smi dmon log. Lines above the first header (a shell prompt, the command line of a pasted
/// capture) are skipped and counted in tally.lines_above_header. With Date and Time columns the rows go
/// through span_from_previous (a repeated time is dropped and counted; a time that goes back is refused).
/// Errors: DataLoss "line N: ..." for a row between the names line and its units line, a row whose column
/// count differs from the header's, a value that is not a number or a bad date/time; DataLoss when a GPU's
/// time goes back; InvalidArgument when the text has no header with a "gpu" column, or no row.
[[nodiscard]] auto parse_nvidia_smi_dmon(std::string_view text, const DmonOptions& options)
    -> core::Result<Recording>;

/// parse_nvidia_smi_dmon() over `lines`, each row's sample handed to `rows` as it is read; the Recording
/// returned has no samples. Rows with Date and Time carry only their end time: the Recording's
/// span_single_ns then says to span them (SpanFromPrevious). Holds one row and, per GPU, its device.
/// Errors: as parse_nvidia_smi_dmon(), the source's and the sink's (through `rows`).
[[nodiscard]] auto stream_nvidia_smi_dmon(LineSource& lines, const DmonOptions& options, RowSink& rows)
    -> core::Result<Recording>;

/// The SOL definition of GPM samples, for meta sol_definition.
inline constexpr std::string_view kGpmSolDefinition =
    "gpm: Compute SOL = max(tensor, FP64, FP32, FP16, integer activity); Memory SOL = DRAM activity; L2, "
    "L1 and issue unknown";

}  // namespace solscope::imports
