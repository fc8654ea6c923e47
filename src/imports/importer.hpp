// `solscope import`'s format detection and the one entry that runs the importer of a format on a text.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/result.hpp"
#include "core/units.hpp"
#include "imports/detail/recording.hpp"

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
/// scrape and of a GPU's one sample in a Prometheus answer (a vector). Errors: the importer's (DataLoss "line N: ..." for bad lines, DataLoss when a GPU's time goes
/// back, InvalidArgument when the text is not of that format); InvalidArgument for nsys-sqlite.
[[nodiscard]] auto import_text(std::string_view text, ImportFormat format, std::int64_t interval_ns)
    -> core::Result<Recording>;

}  // namespace solscope::imports
