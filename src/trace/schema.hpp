// The solscope trace format (schema 6): one SQLite database per recording. docs/trace-format.md is the user's
// guide; this header is the reference the code follows.
//
// Tables (every column that can be unknown is NULL when unknown, never 0):
//
//   meta(key TEXT PRIMARY KEY, value TEXT)          -- see the kMeta* keys below
//   devices(device INTEGER PRIMARY KEY,             -- NVML index; samples.device refers to it
//           uuid, name, chip, pci_bus_id TEXT, sm_count INTEGER, max_sm_clock_mhz REAL, max_mem_clock_mhz
//           REAL, memory_total_bytes INTEGER, dram_peak_bytes_per_s REAL,
//           host, mig_profile TEXT, mig_instance_id INTEGER, attribution TEXT,  -- schema 3
//           parent_uuid TEXT, gpu_index INTEGER, mig_compute_instance_id INTEGER,  -- schema 4
//           mig_sm_share REAL, mig_memory_share REAL)
//   metrics(id INTEGER PRIMARY KEY,                 -- position of the metric in sample_counters.raw
//           name TEXT UNIQUE, unit TEXT, help TEXT) -- from core::metric_catalog() at write time
//   samples(id INTEGER PRIMARY KEY,                 -- then SOLSCOPE_TRACE_HEAD_COLUMNS (device, times,
//   source,
//           ...)                                    -- flags, SOL figures, bound) and the REAL
//                                                   -- SOLSCOPE_TRACE_FIGURE_COLUMNS below: the one list
//                                                   -- then pm_pause TEXT (schema 4, TAIL_COLUMNS below)
//   sample_counters(sample_id INTEGER PRIMARY KEY,  -- = samples.id
//                   raw BLOB)                       -- count(metrics) little-endian IEEE-754 doubles
//   kernels(id INTEGER PRIMARY KEY,                 -- schema 2: one row per kernel execution
//           SOLSCOPE_TRACE_KERNEL_COLUMNS below)    -- (core::KernelRecord), in arrival order
//   workloads(id INTEGER PRIMARY KEY,               -- schema 5: one row per workload on a device over
//             SOLSCOPE_TRACE_WORKLOAD_COLUMNS below) -- [t_start_ns, t_end_ns) (core::WorkloadInterval)
//   markers(id INTEGER PRIMARY KEY,                 -- schema 6: one row per NVTX range or mark
//           SOLSCOPE_TRACE_MARKER_COLUMNS below)    -- (core::MarkerRecord), in arrival order;
//                                                   -- index markers_start_ns on start_ns
//
// Schema history: 1 = meta, devices, metrics, samples, sample_counters. 2 = adds `kernels` and the kernel
// meta keys (kMetaKernel*); purely additive, so a schema-1 reader still reads the samples of a schema-2 file
// correctly (it ignores the kernels) and kOldestCompatibleReader stays 1. A schema-1 file has no kernels
// table: readers list no kernels for it. 3 = adds the devices columns host, mig_profile, mig_instance_id and
// attribution (core::DeviceInfo; NULL = this machine / not a MIG slice / unknown), written by `solscope
// import` for recordings of other machines, MIG slices and Kubernetes pods; purely additive (older readers
// select the schema-1 columns by name), so kOldestCompatibleReader stays 1. Readers of a schema-1 or -2 file,
// which lacks these columns, leave the fields at their defaults. 4 = adds the devices' MIG identity columns
// and samples.pm_pause. 5 = adds `workloads` (whose work each GPU did, issue 24); purely additive: older
// readers ignore the table, and readers of a schema-1 to -4 file report no workload information. 6 = adds
// `markers` (the NVTX ranges and marks of `solscope run`'s job, issue 25) and its start_ns index; purely
// additive: older readers ignore both, and readers of a schema-1 to -5 file report no NVTX information.
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

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace solscope::trace {

/// Schema version this build writes, and the newest it reads (see "Schema history" above).
inline constexpr int kSchemaVersion = 6;
/// Oldest schema version this build still reads; older files are refused with a message.
inline constexpr int kOldestReadableSchema = 1;
/// Largest schema version a reader accepts as real; a meta table claiming more (or less than 1) is damaged.
/// Far above any version this format will reach: one per incompatible format change.
inline constexpr int kMaxSchemaVersion = 10000;
/// Written into meta.oldest_readable_version: the oldest reader schema that can read files of this build.
/// Raise it only for a change older readers would misread (a purely additive change keeps it: schema 2 only
/// added the kernels table, which schema-1 readers ignore).
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
/// Schema 4. "1" once any sample was taken while PM sampling was paused (its pm_pause is not NULL; set by the
/// writer before that sample is committed); readers fetch the pm_pause column only then.
inline constexpr std::string_view kMetaHasPmPause = "has_pm_pause";
/// Schema 2. Where the kernels table's rows come from: "cupti" (`solscope run`'s injection library, CUPTI
/// Activity API) or "synthetic"; absent when no kernel log was recorded (an empty table then means "not
/// recorded", not "no kernel ran").
inline constexpr std::string_view kMetaKernelLog = "kernel_log";
/// Schema 2. The measured offset in ns that maps CUPTI activity timestamps onto the samples' clock:
/// CLOCK_REALTIME ns = CUPTI ns + offset (decimal, may be negative). The kernels table already holds
/// converted times; this records the offset applied. Absent when none was measured.
inline constexpr std::string_view kMetaKernelClockOffsetNs = "kernel_clock_offset_ns";
/// Schema 2. Kernel records lost before they reached the trace (the injection library's full buffers and
/// the recorder's full queue; decimal count). Absent or "0" when none were lost.
inline constexpr std::string_view kMetaKernelsDropped = "kernels_dropped";

/// Schema 5. "1" when a workload refresh fed the workloads table while recording (`solscope record` of a
/// source that lists the GPUs' processes); absent when none ran (a replay, a dcgm-exporter, an import): an
/// empty table then means "not recorded", not "no workload".
inline constexpr std::string_view kMetaWorkloadRefresh = "workload_refresh";

/// The REAL columns of `samples` after `bound`, in table order: X(column, expression of `const
/// core::SolSample& s` that the writer stores). The one list of them: the DDL below, the writer's INSERT and
/// its bindings (detail/columns.hpp) expand it.
#define SOLSCOPE_TRACE_FIGURE_COLUMNS(X)                          \
  X(sm_active_pct, s.sm_active_pct())                             \
  X(sm_occupancy_pct, s.sm_occupancy_pct())                       \
  X(gr_active_pct, s.gr_active_pct())                             \
  X(gpu_util_pct, s.gpu_util_pct())                               \
  X(dram_bytes_per_s, s.dram_bytes_per_s)                         \
  X(sm_clock_mhz, s.metric(core::MetricId::SmClockMhz))           \
  X(mem_clock_mhz, s.metric(core::MetricId::MemClockMhz))         \
  X(power_w, s.metric(core::MetricId::PowerW))                    \
  X(temperature_c, s.metric(core::MetricId::TemperatureC))        \
  X(memory_used_bytes, s.metric(core::MetricId::MemoryUsedBytes)) \
  X(attainable_compute_sol_pct, s.attainable_compute_sol_pct)     \
  X(attainable_memory_sol_pct, s.attainable_memory_sol_pct)

/// The columns of `samples` up to `bound`, which the writer binds one by one: X(column, "SQL type").
// clang-format off
#define SOLSCOPE_TRACE_HEAD_COLUMNS(X)                                           \
  X(device, "INTEGER NOT NULL") X(t_start_ns, "INTEGER NOT NULL")                \
  X(t_end_ns, "INTEGER NOT NULL") X(source, "TEXT NOT NULL")                     \
  X(flags, "INTEGER NOT NULL") X(compute_sol_pct, "REAL") X(compute_pipe, "TEXT") \
  X(memory_sol_pct, "REAL") X(memory_path, "TEXT") X(bound, "TEXT NOT NULL")
// clang-format on

/// The columns of `samples` after the figure columns (schema 4 and later: appended, so an older file that
/// gains them by ALTER TABLE has the same table), bound by the writer one by one: X(column, "SQL type").
/// pm_pause: core::to_string(PmPauseReason) of a sample taken while PM sampling was paused, NULL otherwise.
#define SOLSCOPE_TRACE_TAIL_COLUMNS(X) X(pm_pause, "TEXT")

/// The columns of `kernels` after `id`, in table order: X(column, "SQL type"). Times are ns since the Unix
/// epoch on the samples' clock (CLOCK_REALTIME, after kMetaKernelClockOffsetNs), `[start_ns, end_ns)`.
// clang-format off
#define SOLSCOPE_TRACE_KERNEL_COLUMNS(X)                                          \
  X(device, "INTEGER NOT NULL") X(start_ns, "INTEGER NOT NULL")                   \
  X(end_ns, "INTEGER NOT NULL") X(pid, "INTEGER NOT NULL")                        \
  X(stream, "INTEGER NOT NULL") X(correlation, "INTEGER NOT NULL")                \
  X(grid_x, "INTEGER NOT NULL") X(grid_y, "INTEGER NOT NULL") X(grid_z, "INTEGER NOT NULL") \
  X(block_x, "INTEGER NOT NULL") X(block_y, "INTEGER NOT NULL") X(block_z, "INTEGER NOT NULL") \
  X(name, "TEXT NOT NULL")
// clang-format on

/// The columns of `workloads` after `id`, in table order: X(column, "SQL type"). One row per workload of a
/// device from t_start_ns (its set of workloads changed) to t_end_ns (it changed again, or the recording
/// ended; NULL while open). sharing: core::to_string(WorkloadSharing) of the device's set; origin:
/// core::to_string(WorkloadOrigin); pod, namespace, container, hpc_job, user: core::WorkloadIdentity's fields
/// (NULL when unknown); pids: the host PIDs, ascending, comma-separated ("412,413"; NULL for an allocation
/// with no process; a list, not rows, because a workload's PIDs change with it); sm_pct: the summed SM
/// utilization (percent, NULL when the driver gives none); fraction: its share of the GPU's time, 0-1 (NULL
/// when no split is known: concurrent).
// clang-format off
#define SOLSCOPE_TRACE_WORKLOAD_COLUMNS(X)                                        \
  X(device, "INTEGER NOT NULL") X(t_start_ns, "INTEGER NOT NULL") X(t_end_ns, "INTEGER") \
  X(sharing, "TEXT NOT NULL") X(origin, "TEXT NOT NULL") X(pod, "TEXT") X(namespace, "TEXT") \
  X(container, "TEXT") X(hpc_job, "TEXT") X(user, "TEXT") X(pids, "TEXT") X(sm_pct, "REAL") \
  X(fraction, "REAL")
// clang-format on

/// The columns of `markers` after `id`, in table order: X(column, "SQL type"). One row per NVTX range or mark
/// (core::MarkerRecord): pid and tid of the thread that pushed it; start_ns and end_ns CPU times in ns since
/// the Unix epoch on the samples' clock (CLOCK_REALTIME, after kMetaKernelClockOffsetNs), end_ns == start_ns
/// for a mark; depth its nesting level within the thread (0 = outermost); domain the NVTX domain ('' = the
/// default domain) and name the message, each at most kMaxKernelNameBytes.
// clang-format off
#define SOLSCOPE_TRACE_MARKER_COLUMNS(X)                                          \
  X(pid, "INTEGER NOT NULL") X(tid, "INTEGER NOT NULL") X(start_ns, "INTEGER NOT NULL") \
  X(end_ns, "INTEGER NOT NULL") X(depth, "INTEGER NOT NULL") X(domain, "TEXT NOT NULL") \
  X(name, "TEXT NOT NULL")
// clang-format on

#define SOLSCOPE_TRACE_DDL_HEAD(name, type) ", " #name " " type
#define SOLSCOPE_TRACE_DDL_FIGURE(name, expr) ", " #name " REAL"

/// The DDL of schema 6, run by the writer in one transaction.
inline constexpr std::string_view kSchemaSql =
    "CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;\n"
    "CREATE TABLE devices(\n"
    "  device INTEGER PRIMARY KEY NOT NULL, uuid TEXT, name TEXT, chip TEXT, pci_bus_id TEXT, sm_count INTEGER,\n"
    "  max_sm_clock_mhz REAL, max_mem_clock_mhz REAL, memory_total_bytes INTEGER, dram_peak_bytes_per_s REAL,\n"
    "  host TEXT, mig_profile TEXT, mig_instance_id INTEGER, attribution TEXT, parent_uuid TEXT, gpu_index "
    "INTEGER,\n"
    "  mig_compute_instance_id INTEGER, mig_sm_share REAL, mig_memory_share REAL);\n"
    "CREATE TABLE metrics(id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL UNIQUE, unit TEXT NOT NULL, help "
    "TEXT);\n"
    "CREATE TABLE samples(id INTEGER PRIMARY KEY NOT NULL" SOLSCOPE_TRACE_HEAD_COLUMNS(
        SOLSCOPE_TRACE_DDL_HEAD) SOLSCOPE_TRACE_FIGURE_COLUMNS(SOLSCOPE_TRACE_DDL_FIGURE)
        SOLSCOPE_TRACE_TAIL_COLUMNS(SOLSCOPE_TRACE_DDL_HEAD) ");\n"
    "CREATE TABLE sample_counters(sample_id INTEGER PRIMARY KEY NOT NULL, raw BLOB NOT NULL);\n"
    "CREATE TABLE kernels(id INTEGER PRIMARY KEY NOT NULL" SOLSCOPE_TRACE_KERNEL_COLUMNS(
        SOLSCOPE_TRACE_DDL_HEAD) ");\n"
    "CREATE TABLE workloads(id INTEGER PRIMARY KEY NOT NULL" SOLSCOPE_TRACE_WORKLOAD_COLUMNS(
        SOLSCOPE_TRACE_DDL_HEAD) ");\n"
    "CREATE TABLE markers(id INTEGER PRIMARY KEY NOT NULL" SOLSCOPE_TRACE_MARKER_COLUMNS(
        SOLSCOPE_TRACE_DDL_HEAD) ");\n"
    "CREATE INDEX markers_start_ns ON markers(start_ns);\n";

/// Longest kernel name a trace stores, in bytes (core::KernelRecord::name; also a marker's name and domain,
/// core::MarkerRecord); longer names are cut at a UTF-8 character boundary at or below it.
inline constexpr std::size_t kMaxKernelNameBytes = 512;

/// Longest interval [t_start_ns, t_end_ns) one sample may cover: a day, far above any sampling interval (60 s
/// at most) or import step. A stored sample that ends before it starts or covers more is a damaged row.
inline constexpr std::int64_t kMaxSampleSpanNs = std::int64_t{86'400} * 1'000'000'000;

/// Workload changes (Writer::add_workloads) that may wait for the next commit; one more commits them at
/// once, so that a refresh faster than the commits cannot grow memory without bound.
inline constexpr std::size_t kMaxPendingWorkloadChanges = 256;

#undef SOLSCOPE_TRACE_DDL_HEAD
#undef SOLSCOPE_TRACE_DDL_FIGURE

}  // namespace solscope::trace
