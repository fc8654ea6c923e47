// trace::Reader: opens a solscope trace (schema.hpp) read-only and streams its samples in time order, reading
// what a cut-short or damaged file still holds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/device_info.hpp"
#include "core/kernel_record.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "core/sol_sample.hpp"
#include "core/workload.hpp"

namespace solscope::trace {

namespace detail {
struct ReaderState;
struct CursorState;
}  // namespace detail

/// The meta table of a trace (schema.hpp kMeta* keys), parsed.
struct TraceMetadata {
  int schema_version = 0;
  int oldest_readable_version = 0;
  std::string tool_version;
  std::string host;
  std::int64_t start_time_ns = 0;  ///< CLOCK_REALTIME ns when recording began; 0 when absent
  bool synthetic = false;          ///< generated, not measured
  std::string source_description;  ///< "recorded on ..." or "synthetic: ..."
  bool time_ordered = true;        ///< rowid order is time order (the fast read path)
  /// meta kernel_log (schema 2): "cupti", "synthetic"; empty when the trace has no kernel log.
  std::string kernel_log;
  /// meta kernel_clock_offset_ns (CLOCK_REALTIME ns = CUPTI ns + offset); nullopt when none was measured.
  std::optional<std::int64_t> kernel_clock_offset_ns;
  std::uint64_t kernels_dropped = 0;  ///< meta kernels_dropped: kernel records lost before the trace
  /// meta workload_refresh (schema 5): a workload refresh fed the workloads table while recording.
  bool workload_refresh = false;
  std::map<std::string, std::string, std::less<>> entries;  ///< every meta row, the keys above included
};

/// Which samples a read visits. Samples come in nondecreasing t_start_ns; ties in unspecified device order.
struct ReadOptions {
  std::vector<std::uint32_t> devices{};                             ///< device indices to keep; empty = all
  std::int64_t from_ns = std::numeric_limits<std::int64_t>::min();  ///< keep t_start_ns >= from_ns
  std::int64_t to_ns = std::numeric_limits<std::int64_t>::max();    ///< keep t_start_ns < to_ns
};

/// The account of one read (one cursor): what it returned, what it passed over and where the damage begins.
/// Sample ids are samples.id (the writer numbers rows 1, 2, 3, ... across all devices), so "skipped" counts
/// the rows of every device in a damaged id range. A read of every sample (no ReadOptions filter) to its
/// end keeps the counting rule: samples + skipped_rows = table_rows.
struct ReadReport {
  std::uint64_t samples = 0;  ///< samples returned
  /// Damaged rows: rows that could not be read (damaged id ranges the read stepped over, the rest of the
  /// table after a damage that stopped it), and rows read but refused as damage (a device not in the devices
  /// table, an interval that ends before it starts or spans more than kMaxSampleSpanNs, an id or time out of
  /// order with its neighbours). Settled at the end of the read: never more than table_rows - samples, and
  /// exactly that for a read of every sample.
  std::uint64_t skipped_rows = 0;
  /// Rows of the samples table (count(*); when a page is unreadable, count(*) of sample_counters, then
  /// max(id)); nullopt when none of them can be read.
  std::optional<std::uint64_t> table_rows;
  std::uint64_t damaged_ranges = 0;   ///< id ranges passed over (each one damaged region)
  std::int64_t first_skipped_id = 0;  ///< first id of the first damaged range; valid when damaged_ranges > 0
  std::int64_t last_skipped_id = 0;   ///< last id of that range (inclusive)
  /// t_end_ns of the last sample returned before the first damage; nullopt when the damage came first.
  std::optional<std::int64_t> damage_after_ns;
  std::optional<std::int64_t> first_t_start_ns;  ///< t_start_ns of the first sample returned
  /// Returned samples whose counters BLOB is missing, not a BLOB or of the wrong size: their raw values read
  /// as unknown (NaN).
  std::uint64_t unknown_counters = 0;
  std::int64_t first_unknown_counters_id = 0;  ///< id of the first of those; valid when unknown_counters > 0
  /// Returned samples whose stored SOL figures were unreadable (derived again from the raw counters).
  std::uint64_t rederived_figures = 0;
  bool stopped = false;  ///< the read ended at damage it could not step over: the rest of the file is lost
  std::int64_t stopped_at_id = 0;  ///< first id not read when stopped (valid when stopped)
  std::string cause;  ///< SQLite's words on the first damage ("database disk image is malformed")

  /// True when anything was skipped, lost or read as unknown.
  [[nodiscard]] auto damaged() const -> bool {
    return skipped_rows > 0 || damaged_ranges > 0 || unknown_counters > 0 || rederived_figures > 0 || stopped;
  }
};

/// What a complete read found.
struct ReadSummary {
  std::uint64_t samples = 0;  ///< samples handed to the callback
  bool recovered = false;     ///< the file is damaged or cut short: samples after the damage may be missing
  std::string note;           ///< what was damaged, for the user (Reader::problem's message); empty if clean
  ReadReport report;          ///< the cursor's account
};

/// Which kernel records Reader::kernels() returns.
struct KernelReadOptions {
  std::vector<std::uint32_t> devices{};                             ///< NVML indices to keep; empty = all
  std::int64_t from_ns = std::numeric_limits<std::int64_t>::min();  ///< keep kernels with end_ns > from_ns
  std::int64_t to_ns = std::numeric_limits<std::int64_t>::max();    ///< ... and start_ns < to_ns (overlap)
};

/// The account of one read of the kernels table. Ids are kernels.id (1, 2, 3, ... in arrival order, every
/// device), so "skipped" counts rows of every device in a damaged id range.
struct KernelReadReport {
  std::uint64_t kernels = 0;  ///< records returned
  /// Damaged rows: rows that could not be read (damaged ranges, the rest after a stop) and rows refused as
  /// damage (a device not in the devices table, an end before the start, an id out of order with its
  /// neighbours). A read with no KernelReadOptions filter keeps the counting rule: kernels + skipped_rows =
  /// table_rows.
  std::uint64_t skipped_rows = 0;
  std::optional<std::uint64_t>
      table_rows;                    ///< rows of the kernels table (count(*), else max(id)); nullopt: unknown
  std::uint64_t damaged_ranges = 0;  ///< id ranges stepped over
  std::int64_t first_skipped_id = 0;  ///< first id of the first damaged range; valid when damaged_ranges > 0
  std::int64_t last_skipped_id = 0;   ///< last id of that range (inclusive)
  /// The read ended at damage it could not step over (or the table of a schema-2 file is missing or
  /// unreadable): the rest of the table is lost.
  bool stopped = false;
  std::string cause;  ///< SQLite's words on the first damage ("database disk image is malformed")
  /// True when anything was skipped or lost.
  [[nodiscard]] auto damaged() const -> bool { return skipped_rows > 0 || damaged_ranges > 0 || stopped; }
};

/// The kernel records of a trace, in nondecreasing start_ns (ties by device, then arrival order).
struct KernelTable {
  /// False for a file without a kernels table (schema 1). Also check TraceMetadata::kernel_log: a table
  /// with no kernel log behind it is empty because nothing was recorded, not because no kernel ran.
  bool present = false;
  std::vector<core::KernelRecord> kernels;
  KernelReadReport report;
  /// What was damaged, for the user: "trace run.sqlite: its kernels table is damaged: read 1200 kernel
  /// records; kernels: 85 of 1,285 rows damaged and skipped (1 unreadable range(s), the first ids 400-484)
  /// (SQLite: database disk image is malformed)"; empty
  /// when clean. Commands print it as a warning.
  std::string note;
};

/// The account of one read of the workloads table (schema 5). Ids are workloads.id (1, 2, 3, ... as the
/// writer inserted them, every device).
struct WorkloadReadReport {
  std::uint64_t rows = 0;  ///< rows returned
  /// Damaged rows: rows that could not be read (damaged ranges, the rest after a stop) and rows refused as
  /// damage (a device not in the devices table, an end before the start, a sharing or origin no solscope
  /// writes, a pids cell that is not a PID list, an sm_pct below 0, a fraction outside 0-1, an id out of
  /// order with its neighbours). rows + skipped_rows = table_rows.
  std::uint64_t skipped_rows = 0;
  std::optional<std::uint64_t> table_rows;  ///< count(*), else max(id); nullopt: unknown
  std::uint64_t damaged_ranges = 0;         ///< id ranges stepped over
  std::int64_t first_skipped_id = 0;  ///< first id of the first damaged range; valid when damaged_ranges > 0
  std::int64_t last_skipped_id = 0;   ///< last id of that range (inclusive)
  /// The read ended at damage it could not step over (or the table of a schema-5 file is missing or
  /// unreadable): the rest of the table is lost.
  bool stopped = false;
  std::string cause;  ///< SQLite's words on the first damage, or what was wrong with a refused row
  [[nodiscard]] auto damaged() const -> bool { return skipped_rows > 0 || damaged_ranges > 0 || stopped; }
};

/// The workload intervals of a trace (schema 5 `workloads` table, docs/trace-format.md), in nondecreasing
/// t_start_ns (ties by device, then id): the rows of one device with one t_start_ns are its whole set of
/// workloads from then on.
struct WorkloadTable {
  /// False for a file without a workloads table (schema 1 to 4, recorded before workloads were): no
  /// workload information, as opposed to a present, empty table (recorded, and no workload was found).
  bool present = false;
  std::vector<core::WorkloadInterval> rows;
  WorkloadReadReport report;
  /// What was damaged, for the user: "trace run.sqlite: its workloads table is damaged: read 12 workload
  /// rows; workloads: 1 of 13 rows damaged and skipped (SQLite: ...)"; empty when clean. Commands print it
  /// as a warning.
  std::string note;
};

/// At most this many NVTX records are read from a trace (about 100 bytes each in memory): a job that marks
/// its steps writes a few per step, and one that marks every operator (e.g. PyTorch's emit_nvtx) is cut, and
/// says so, rather than growing without bound.
inline constexpr std::uint64_t kMaxMarkerRows = 2'000'000;

/// The NVTX ranges and marks of a trace (schema 6 `markers` table), sorted by start_ns.
struct MarkerTable {
  /// False for a file without a markers table (schema 1 to 5): no NVTX information, as opposed to a present,
  /// empty table (recorded, and the job marked nothing).
  bool present = false;
  std::vector<core::MarkerRecord> rows;
  std::uint64_t skipped_rows = 0;   ///< damaged rows stepped over
  std::uint64_t left_out_rows = 0;  ///< rows past the first kMaxMarkerRows (in id order), not read
  /// What was damaged, for the user (the wording of WorkloadTable::note); empty when clean.
  std::string note;
};

/// Gets one kernel record of a streamed read (Reader::for_each_kernel); the record is valid during the call.
using KernelSink = std::function<void(const core::KernelRecord&)>;

/// A forward-only stream of samples from a Reader. Move-only; keeps the Reader's file open while it lives.
class SampleCursor {
 public:
  SampleCursor(SampleCursor&& other) noexcept;
  auto operator=(SampleCursor&& other) noexcept -> SampleCursor&;
  SampleCursor(const SampleCursor&) = delete;
  auto operator=(const SampleCursor&) -> SampleCursor& = delete;
  ~SampleCursor();

  /// Reads the next sample into `out`; false at the end, or where damaged data stops the read (see damage()).
  /// Values are bit-identical to those written; metrics the file lacks are NaN. In a time-ordered file a
  /// damaged row range is stepped over (the first readable id after it is found by a binary search of
  /// b-tree seeks) and counted in report(); the read stops only where no later row can be read.
  [[nodiscard]] auto next(core::RawSample& out) -> bool;
  /// Reads the next sample as SOL figures: core::derive() over the raw values and the device (for pipe and
  /// path breakdowns; the attainable SOL comes with the raw sample), then the figures stored in the file
  /// (SOL, pipe, path, bound, dram_bytes_per_s; one extra row lookup per sample, so this path is several
  /// times slower than next(RawSample&)).
  [[nodiscard]] auto next(core::SolSample& out) -> bool;
  /// The first damage met: a stop at an unreadable page, or a sample whose counters could not be decoded (its
  /// values read as NaN and the read goes on). Empty when everything read cleanly.
  [[nodiscard]] auto damage() const -> const std::optional<core::Error>&;
  /// Samples returned so far.
  [[nodiscard]] auto samples_read() const -> std::uint64_t;
  /// The account so far: samples returned, rows skipped, where the damage begins.
  [[nodiscard]] auto report() const -> const ReadReport&;

 private:
  friend class Reader;
  explicit SampleCursor(std::unique_ptr<detail::CursorState> state);
  std::unique_ptr<detail::CursorState> state_;
};

/// A trace opened for reading. Never writes the trace; cheap to move. Not thread-safe: one thread reads (each
/// thread may open its own Reader on the same file, also while a Writer appends to it).
class Reader {
 public:
  /// Opens `path` read-only (a -wal left by a killed writer is read, never checkpointed or removed).
  ///
  /// Errors, each with the path in the message:
  /// - NotFound: "no such trace: <path>";
  /// - InvalidArgument: "not a solscope trace: <path> is not an SQLite database" (also "is empty", "is a
  ///   directory"), "not a solscope trace: <path> has no meta table" (or lacks a table, or a schema_version);
  /// - Unimplemented: "trace <path> was written by a newer solscope (schema N, this build reads up to M)"
  /// (hint:
  ///   upgrade solscope), "... by an older solscope (schema N, this build reads schema M and newer)";
  /// - DataLoss: a schema_version or oldest_readable_version that no solscope writes
  /// (not 1..kMaxSchemaVersion,
  ///   or oldest above schema): "trace <path> has a damaged meta table: ...";
  /// - DataLoss: the file is damaged where nothing can be read (header, schema or metrics table), or it is
  ///   damaged and no sample at all can be read from it ("... no sample can be read").
  /// A file that is cut short or has damaged pages elsewhere opens: recovered() is true, recovery_note() says
  /// what happened, and reads return every sample that can still be read. A -wal holding commits past a
  /// damaged frame (SQLite ignores every frame after the first bad one) also opens as recovered, with a note
  /// that counts the commits lost.
  [[nodiscard]] static auto open(const std::filesystem::path& path) -> core::Result<Reader>;

  Reader(Reader&& other) noexcept = default;
  auto operator=(Reader&& other) noexcept -> Reader& = default;
  /// Not copyable: copies would share one SQLite connection, which is opened without a mutex (one thread).
  Reader(const Reader&) = delete;
  auto operator=(const Reader&) -> Reader& = delete;
  ~Reader() = default;

  [[nodiscard]] auto path() const -> const std::filesystem::path&;
  [[nodiscard]] auto metadata() const -> const TraceMetadata&;
  /// Devices recorded in the trace, by ascending index.
  [[nodiscard]] auto devices() const -> const std::vector<core::DeviceInfo>&;
  /// The recorded device with NVML index `index`, or nullptr.
  [[nodiscard]] auto device(std::uint32_t index) const -> const core::DeviceInfo*;
  /// Samples in the file (for a recovered file: those that can still be read). Counted at open; a damaged
  /// row that count(*) does not notice is found by the read (SampleCursor::report()).
  [[nodiscard]] auto sample_count() const -> std::uint64_t;
  /// True when open() found the file cut short or damaged.
  [[nodiscard]] auto recovered() const -> bool;
  /// What open() found damaged, e.g. "trace run.sqlite is cut short (1.0 MiB of the 4.0 MiB its header
  /// declares): 9319 samples can be read"; empty when not recovered.
  [[nodiscard]] auto recovery_note() const -> const std::string&;
  /// What to tell the user about this file and a read of it (`report`, e.g. a cursor's or
  /// ReadSummary::report): nullopt when open() found no damage and the read is clean; otherwise a DataLoss
  /// error whose message says how many samples were read and skipped and where the damage begins, e.g.
  /// "trace run.sqlite is damaged: read 4799 samples; samples: 1 of 4,800 rows damaged and skipped: the
  /// damage begins at sample id 2171, after 54.3 s of the trace (t_end_ns 1767225654300000000) (SQLite:
  /// database disk image is malformed)", with a hint on saving more. Commands print it as a warning when
  /// samples were read and as the error (exit 5) when none were.
  [[nodiscard]] auto problem(const ReadReport& report) const -> std::optional<core::Error>;
  /// First t_start_ns and last t_end_ns of the samples; nullopt when there are none. Scans the samples table;
  /// rows whose interval ends before it starts or spans more than kMaxSampleSpanNs are damaged, not the span.
  [[nodiscard]] auto time_span() const -> core::Result<std::optional<std::pair<std::int64_t, std::int64_t>>>;

  /// The kernel records (schema 2 `kernels` table) selected by `options`, sorted by start_ns, read into
  /// memory. A schema-1 file gives an empty table with present = false. Damaged rows are stepped over and
  /// counted (KernelTable::report and note), never an error. Errors: only failures that are not damage
  /// (Internal, ResourceExhausted), with the path.
  [[nodiscard]] auto kernels(const KernelReadOptions& options = {}) const -> core::Result<KernelTable>;
  /// kernels() without holding the records: `sink` gets each selected record in id (arrival) order, not
  /// sorted, so that a reader of millions of calls keeps only what it aggregates. Returns the table's
  /// account (present, report, note) with no records; damage and errors as kernels().
  [[nodiscard]] auto for_each_kernel(const KernelReadOptions& options, const KernelSink& sink) const
      -> core::Result<KernelTable>;

  /// The workloads table (schema 5), read into memory (it holds one row per workload and change: small).
  /// A schema-1 to -4 file gives an empty table with present = false. Damaged rows are stepped over and
  /// counted (WorkloadTable::report and note), never an error. Errors: only failures that are not damage
  /// (Internal, ResourceExhausted), with the path.
  [[nodiscard]] auto workloads() const -> core::Result<WorkloadTable>;

  /// Every NVTX range and mark (schema 6 `markers` table). Schema 1-5: present = false. Damaged rows are
  /// stepped over and counted, never an error. Errors: only failures that are not damage, with the path.
  [[nodiscard]] auto markers() const -> core::Result<MarkerTable>;

  /// A cursor over the samples selected by `options`, in time order. Reading in rowid order runs at several
  /// million samples/s (bench/trace_bench.cpp); a file whose meta says time_ordered = 0 is sorted by SQLite.
  [[nodiscard]] auto cursor(const ReadOptions& options = {}) const -> core::Result<SampleCursor>;
  /// Calls `fn` for each selected sample in time order until it returns false.
  [[nodiscard]] auto for_each(const ReadOptions& options,
                              const std::function<bool(const core::RawSample&)>& fn) const
      -> core::Result<ReadSummary>;
  /// Calls `fn` with the SOL figures of each selected sample (SampleCursor::next(SolSample&)).
  [[nodiscard]] auto for_each_sol(const ReadOptions& options,
                                  const std::function<bool(const core::SolSample&)>& fn) const
      -> core::Result<ReadSummary>;

 private:
  explicit Reader(std::shared_ptr<detail::ReaderState> state);
  std::shared_ptr<detail::ReaderState> state_;
};

}  // namespace solscope::trace
