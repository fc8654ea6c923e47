// The solscope trace format (schema 1): one SQLite database per recording. docs/trace-format.md is the user's
// guide; this header is the reference the code follows.
//
// Tables (every column that can be unknown is NULL when unknown, never 0):
//
//   meta(key TEXT PRIMARY KEY, value TEXT)          -- see the kMeta* keys below
//   devices(device INTEGER PRIMARY KEY,             -- NVML index; samples.device refers to it
//           uuid, name, chip, pci_bus_id TEXT, sm_count INTEGER, max_sm_clock_mhz REAL, max_mem_clock_mhz
//           REAL, memory_total_bytes INTEGER, dram_peak_bytes_per_s REAL)
//   metrics(id INTEGER PRIMARY KEY,                 -- position of the metric in sample_counters.raw
//           name TEXT UNIQUE, unit TEXT, help TEXT) -- from core::metric_catalog() at write time
//   samples(id INTEGER PRIMARY KEY, device INTEGER, t_start_ns INTEGER, t_end_ns INTEGER,
//           source TEXT, flags INTEGER,             -- core::to_string(SourceKind), core::SampleFlag bits
//           compute_sol_pct REAL, compute_pipe TEXT, memory_sol_pct REAL, memory_path TEXT, bound TEXT,
//           sm_active_pct, sm_occupancy_pct, gr_active_pct, gpu_util_pct, dram_bytes_per_s, sm_clock_mhz,
//           mem_clock_mhz, power_w, temperature_c, memory_used_bytes, attainable_compute_sol_pct,
//           attainable_memory_sol_pct REAL)
//   sample_counters(sample_id INTEGER PRIMARY KEY,  -- = samples.id
//                   raw BLOB)                       -- count(metrics) little-endian IEEE-754 doubles
//
// Why the raw counters are one BLOB and not one REAL column per metric (measured with SQLite 3.40.1, g++ -O2,
// 500 k samples of 31 metrics, 2-core shared VM): per-metric columns read at 0.6-0.7 M samples/s (31
// sqlite3_column_type/double calls and a record header walk per row) against 2-3 M samples/s for the BLOB
// (one memcpy), and wrote 205 k/s against 250 k/s; only the BLOB meets the 2 M samples/s read goal. The BLOB
// also keeps NaN bit patterns, so a sample reads back bit-identical, and costs no schema change when the
// catalog grows. SQL and pandas users get the figures they filter on as columns of `samples`; the raw
// counters decode with numpy.frombuffer(raw, '<f8') in the order of metrics.id. Readers map metrics by NAME,
// so a file written with another catalog order reads correctly; names this build does not know are skipped,
// and metrics the file lacks read as NaN.
//
// Order: the writer commits samples in nondecreasing t_start_ns (it sorts each batch and holds back a device
// that is ahead of another until the lagging one catches up, see Writer), so `ORDER BY id` is time order and
// readers stream in rowid order. If a sample ever arrives older than one already committed, the writer sets
// meta time_ordered = 0 and readers fall back to `ORDER BY t_start_ns, device, id`.
//
// Durability: journal_mode=WAL with synchronous=NORMAL while recording (a process killed at any point leaves
// every committed transaction readable from the -wal file; only an OS crash or power loss can drop the last
// transactions). A cleanly closed trace is checkpointed and switched to journal_mode=DELETE, so it is one
// self-contained file that reads from read-only media.
//
// Page size 16 KiB: measured with the same prototype, about 30% faster to write and 15-35% faster to read
// than 4 KiB pages with this row size.
#pragma once

#include <cstdint>
#include <string_view>

namespace solscope::trace {

/// Schema version this build writes, and the newest it reads.
inline constexpr int kSchemaVersion = 1;
/// Oldest schema version this build still reads; older files are refused with a message.
inline constexpr int kOldestReadableSchema = 1;
/// Largest schema version a reader accepts as real; a meta table claiming more (or less than 1) is damaged.
/// Far above any version this format will reach: one per incompatible format change.
inline constexpr int kMaxSchemaVersion = 10000;
/// Written into meta.oldest_readable_version: the oldest reader schema that can read files of this build.
/// Raise it only for a change older readers would misread (a purely additive change keeps it).
inline constexpr int kOldestCompatibleReader = 1;
/// PRAGMA application_id of every trace ("SOLS" in ASCII), so `file` and tools can tell a trace apart.
inline constexpr std::int32_t kApplicationId = 0x534f4c53;
/// Page size of new traces in bytes (see the measurement above).
inline constexpr int kPageSizeBytes = 16384;

/// Keys of the meta table. Values are TEXT; numbers are decimal.
inline constexpr std::string_view kMetaSchemaVersion = "schema_version";
inline constexpr std::string_view kMetaOldestReadableVersion = "oldest_readable_version";
inline constexpr std::string_view kMetaToolVersion = "tool_version";   ///< solscope version that wrote it
inline constexpr std::string_view kMetaHost = "host";                  ///< gethostname() of the recorder
inline constexpr std::string_view kMetaStartTimeNs = "start_time_ns";  ///< CLOCK_REALTIME ns at open
inline constexpr std::string_view kMetaSynthetic = "synthetic";        ///< "1" generated data, "0" recorded
/// Where the samples come from: "recorded on NVIDIA H100 ..." or "synthetic: generated by ...".
inline constexpr std::string_view kMetaSourceDescription = "source_description";
/// "1" while samples are committed in nondecreasing t_start_ns; "0" once one arrived out of order.
inline constexpr std::string_view kMetaTimeOrdered = "time_ordered";
/// "1" once any sample carries an attainable SOL (set by the writer before that sample is committed); readers
/// fetch the attainable columns only then.
inline constexpr std::string_view kMetaHasAttainable = "has_attainable";

/// The DDL of schema 1, run by the writer in one transaction.
inline constexpr std::string_view kSchemaSql = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE devices(
  device INTEGER PRIMARY KEY NOT NULL, uuid TEXT, name TEXT, chip TEXT, pci_bus_id TEXT, sm_count INTEGER,
  max_sm_clock_mhz REAL, max_mem_clock_mhz REAL, memory_total_bytes INTEGER, dram_peak_bytes_per_s REAL);
CREATE TABLE metrics(id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL UNIQUE, unit TEXT NOT NULL, help TEXT);
CREATE TABLE samples(
  id INTEGER PRIMARY KEY NOT NULL, device INTEGER NOT NULL, t_start_ns INTEGER NOT NULL,
  t_end_ns INTEGER NOT NULL, source TEXT NOT NULL, flags INTEGER NOT NULL,
  compute_sol_pct REAL, compute_pipe TEXT, memory_sol_pct REAL, memory_path TEXT, bound TEXT NOT NULL,
  sm_active_pct REAL, sm_occupancy_pct REAL, gr_active_pct REAL, gpu_util_pct REAL, dram_bytes_per_s REAL,
  sm_clock_mhz REAL, mem_clock_mhz REAL, power_w REAL, temperature_c REAL, memory_used_bytes REAL,
  attainable_compute_sol_pct REAL, attainable_memory_sol_pct REAL);
CREATE TABLE sample_counters(sample_id INTEGER PRIMARY KEY NOT NULL, raw BLOB NOT NULL);
)sql";

}  // namespace solscope::trace
