// `solscope import`'s format detection and the one entry that runs the importer of a format on a text.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/result.hpp"
#include "core/units.hpp"
#include "imports/detail/recording.hpp"
#include "imports/line_source.hpp"

namespace solscope::imports {

/// The format of a file from its first bytes (`head`, at least the first 64 KiB) and, when the content says
/// nothing, its extension ("json" -> prometheus-json, "sqlite"/"db" -> nsys-sqlite). Content rules: SQLite's
/// header -> nsys-sqlite; a JSON object -> prometheus-json; a "#Entity" header -> dcgmi-dmon; a "# gpu ..."
/// header line -> nvidia-smi-dmon; a DCGM_FI_* sample or # TYPE/# HELP line -> dcgm-exporter. nullopt when
/// nothing matches.
[[nodiscard]] auto detect_format(std::string_view head, std::string_view extension)
    -> std::optional<ImportFormat>;

/// Runs the text importer of `format` (every format but nsys-sqlite, which reads a file:
/// nsys_sqlite.hpp), then the shared domain check (check_domains): every value outside its metric's range
/// becomes unknown and is counted in the recording's tally (import_notes says what was left out).
/// Bytes of `text` that are not valid UTF-8 become U+FFFD (core::valid_utf8) before any importer reads it, so
/// every device name, UUID and label of the recording is valid UTF-8.
/// `interval_ns`: the collection interval of logs without timestamps (dmon), the span of a single untimed
/// scrape and of a GPU's one sample in a Prometheus answer (a vector). Errors: the importer's (DataLoss "line
/// N: ..." for bad lines, DataLoss when a GPU's time goes back, InvalidArgument when the text is not of that
/// format); InvalidArgument for nsys-sqlite.
[[nodiscard]] auto import_text(std::string_view text, ImportFormat format, std::int64_t interval_ns)
    -> core::Result<Recording>;

/// True for the formats read line by line, which import_lines() streams: dcgm-exporter, dcgmi-dmon,
/// nvidia-smi-dmon.
[[nodiscard]] auto streams_lines(ImportFormat format) -> bool;

/// Streams `lines` through the importer of `format` (streams_lines() formats): each sample goes to `sink` as
/// soon as it is read and its span known (a GPU's first sample waits for its second), so the import holds one
/// line (one scrape for dcgm-exporter) and a bounded state per GPU, whatever the input's length. The same
/// samples as import_text(), in an order that may differ across GPUs (each GPU's own in time order). Returns
/// the Recording without its samples (devices, definition, flags, unmapped). Errors: as import_text(), the
/// source's, and the sink's first; InvalidArgument for a format that is not read line by line.
[[nodiscard]] auto import_lines(LineSource& lines, ImportFormat format, std::int64_t interval_ns,
                                const SampleSink& sink) -> core::Result<Recording>;

}  // namespace solscope::imports
