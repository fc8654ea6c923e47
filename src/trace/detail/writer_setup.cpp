#include "trace/detail/writer_setup.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <system_error>

#include "core/metric_catalog.hpp"
#include "trace/schema.hpp"

namespace solscope::trace::detail {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 3> kSidecarSuffixes{"-wal", "-shm", "-journal"};

auto sidecar(const fs::path& path, std::string_view suffix) -> fs::path {
  return fs::path(path.string() + std::string(suffix));
}

auto errno_error(int err, std::string_view what, const fs::path& path) -> core::Error {
  core::ErrorCode code = core::ErrorCode::Unavailable;
  if (err == EACCES || err == EPERM || err == EROFS) code = core::ErrorCode::PermissionDenied;
  if (err == ENOENT || err == ENOTDIR) code = core::ErrorCode::NotFound;
  std::string hint = code == core::ErrorCode::NotFound ? "create the directory first or choose another path"
                                                       : "choose a writable directory";
  return core::Error{code, std::string(what) + " " + path.string() + ": " + std::strerror(err),
                     std::move(hint)};
}

auto file_size_or_zero(const fs::path& path) -> std::uintmax_t {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

auto remove_file(const fs::path& path) -> core::Result<void> {
  std::error_code ec;
  fs::remove(path, ec);
  if (ec) return core::fail(errno_error(ec.value(), "cannot remove", path));
  return core::ok();
}

/// How often prepare_trace_file() starts over when another process replaces the file under it.
constexpr int kOpenAttempts = 4;

auto kind_of(mode_t mode) -> std::string_view {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// Refuses a directory and anything else that is not a regular file: SQLite would create its -journal and
/// -wal files beside it (`record -o /dev/null` as root created /dev/null-journal).
auto check_regular(const fs::path& path, const struct stat& st) -> core::Result<void> {
  if (S_ISDIR(st.st_mode)) {
    return core::fail(core::ErrorCode::InvalidArgument, "trace path " + path.string() + " is a directory",
                      "give a file name, e.g. " + (path / "run.sqlite").string());
  }
  if (!S_ISREG(st.st_mode)) {
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "trace path " + path.string() + " is " + std::string(kind_of(st.st_mode)) + ", not a regular file",
        "give the path of a new or existing trace file");
  }
  return core::ok();
}

/// Opens `path` for locking: creates it (O_EXCL, created = true) or opens the existing one read-only without
/// blocking (a FIFO would block an open for writing) and without becoming its controlling terminal.
auto open_for_lock(const fs::path& path) -> core::Result<PreparedFile> {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd >= 0) return PreparedFile{FileLock(fd), true};
  if (errno == EEXIST) {
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) return PreparedFile{FileLock(fd), false};
    // ENOENT: a dangling symbolic link (O_EXCL does not follow it), or the file was just removed.
    if (errno == ENOENT) fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd >= 0) return PreparedFile{FileLock(fd), true};
  }
  const int err = errno;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (auto kind = check_regular(path, st); !kind) return core::propagate(kind);  // e.g. a socket
  }
  return core::fail(errno_error(err, "cannot create trace", path));
}

/// True when `path` names the file described by `st` (same device and inode).
auto names_file(const fs::path& path, const struct stat& st) -> bool {
  struct stat now {};
  return ::stat(path.c_str(), &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino;
}

auto host_name() -> std::string {
  std::array<char, 256> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return {};
  return buffer.data();
}

auto now_realtime_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

auto write_meta_rows(sqlite3* db, const WriterOptions& options) -> core::Result<void> {
  const std::string host = options.host.empty() ? host_name() : options.host;
  const std::int64_t start = options.start_time_ns == 0 ? now_realtime_ns() : options.start_time_ns;
  const std::pair<std::string_view, std::string> rows[] = {
      {kMetaSchemaVersion, std::to_string(kSchemaVersion)},
      {kMetaOldestReadableVersion, std::to_string(kOldestCompatibleReader)},
      {kMetaToolVersion, SOLSCOPE_VERSION},
      {kMetaHost, host},
      {kMetaStartTimeNs, std::to_string(start)},
      {kMetaSynthetic, options.synthetic ? "1" : "0"},
      {kMetaSourceDescription, options.source_description},
      {kMetaTimeOrdered, "1"},
  };
  for (const auto& [key, value] : rows) {
    if (auto done = write_meta_row(db, key, value, "cannot write trace meta"); !done) return done;
  }
  return core::ok();
}

auto write_metrics_rows(sqlite3* db) -> core::Result<void> {
  auto statement = prepare(db, "INSERT INTO metrics(id, name, unit, help) VALUES(?1, ?2, ?3, ?4)",
                           "cannot write the trace metrics table");
  if (!statement) return core::propagate(statement);
  for (const core::MetricDef& def : core::metric_catalog()) {
    sqlite3_stmt* s = statement->get();
    sqlite3_bind_int(s, 1, static_cast<int>(core::index_of(def.id)));
    bind_text_or_null(s, 2, def.name);
    bind_text_or_null(s, 3, core::to_string(def.unit));
    bind_text_or_null(s, 4, def.help);
    const int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE) return core::fail(sqlite_error(db, rc, "cannot write the trace metrics table"));
    sqlite3_reset(s);
  }
  return core::ok();
}

/// Sets journal_mode=WAL and checks that SQLite took it (it answers the mode it ended up in).
auto enable_wal(sqlite3* db, const fs::path& path) -> core::Result<void> {
  auto statement = prepare(db, "PRAGMA journal_mode=WAL", "cannot set WAL mode on trace " + path.string());
  if (!statement) return core::propagate(statement);
  if (sqlite3_step(statement->get()) != SQLITE_ROW || column_text(statement->get(), 0) != "wal") {
    return core::fail(core::ErrorCode::Unavailable,
                      "cannot use write-ahead logging for trace " + path.string(),
                      "record onto a local filesystem (WAL needs shared memory beside the file)");
  }
  return core::ok();
}

auto write_schema(sqlite3* db, const WriterOptions& options, const fs::path& path) -> core::Result<void> {
  const std::string what = "cannot write the schema of trace " + path.string();
  if (auto done = exec(db, "BEGIN", what); !done) return done;
  const std::string schema(kSchemaSql);
  auto done = exec(db, schema.c_str(), what);
  if (done) done = write_meta_rows(db, options);
  if (done) done = write_metrics_rows(db);
  if (done) done = exec(db, "COMMIT", what);
  if (!done) {
    (void)exec(db, "ROLLBACK", what);  // the first error is the one to report
    return done;
  }
  return core::ok();
}

}  // namespace

auto write_meta_row(sqlite3* db, std::string_view key, std::string_view value, std::string_view what)
    -> core::Result<void> {
  auto statement = prepare(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", what);
  if (!statement) return core::propagate(statement);
  bind_text_or_null(statement->get(), 1, key);
  // Not bind_text_or_null: an empty value (e.g. source_description) is stored as '' (the column is NOT NULL;
  // a null pointer would bind NULL).
  sqlite3_bind_text(statement->get(), 2, value.empty() ? "" : value.data(), static_cast<int>(value.size()),
                    SQLITE_STATIC);
  const int rc = sqlite3_step(statement->get());
  if (rc != SQLITE_DONE) return core::fail(sqlite_error(db, rc, what));
  return core::ok();
}

/// Binds the schema-4 MIG identity of `device` (parent_uuid ... mig_memory_share) from parameter `first` on;
/// unknown values (-1, NaN, "") as NULL.
void bind_mig_identity(sqlite3_stmt* s, int first, const core::DeviceInfo& device) {
  const auto bind_index = [s](int param, std::int32_t value) {
    if (value < 0) {
      sqlite3_bind_null(s, param);
    } else {
      sqlite3_bind_int64(s, param, value);
    }
  };
  bind_text_or_null(s, first, device.parent_uuid);
  bind_index(first + 1, device.gpu_index);
  bind_index(first + 2, device.mig_compute_instance_id);
  bind_real_or_null(s, first + 3, device.mig_sm_share);
  bind_real_or_null(s, first + 4, device.mig_memory_share);
}

auto write_device_rows(sqlite3* db, std::span<const core::DeviceInfo> devices, std::string_view what)
    -> core::Result<void> {
  auto statement =
      prepare(db,
              "INSERT OR REPLACE INTO devices(device, uuid, name, chip, pci_bus_id, sm_count, "
              "max_sm_clock_mhz, max_mem_clock_mhz, memory_total_bytes, dram_peak_bytes_per_s, host, "
              "mig_profile, mig_instance_id, attribution, parent_uuid, gpu_index, mig_compute_instance_id, "
              "mig_sm_share, mig_memory_share) "
              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
              what);
  if (!statement) return core::propagate(statement);
  auto done = exec(db, "BEGIN", what);
  for (const core::DeviceInfo& device : devices) {
    if (!done) break;
    sqlite3_stmt* s = statement->get();
    sqlite3_bind_int64(s, 1, device.index);
    bind_text_or_null(s, 2, device.uuid);
    bind_text_or_null(s, 3, device.name);
    bind_text_or_null(s, 4, device.chip);
    bind_text_or_null(s, 5, device.pci_bus_id);
    if (device.sm_count == 0)
      sqlite3_bind_null(s, 6);
    else
      sqlite3_bind_int64(s, 6, device.sm_count);
    bind_real_or_null(s, 7, device.max_sm_clock_mhz);
    bind_real_or_null(s, 8, device.max_mem_clock_mhz);
    if (device.memory_total_bytes == 0) {
      sqlite3_bind_null(s, 9);
    } else {
      sqlite3_bind_int64(s, 9, static_cast<sqlite3_int64>(device.memory_total_bytes));
    }
    bind_real_or_null(s, 10, device.dram_peak_bytes_per_s);
    bind_text_or_null(s, 11, device.host);
    bind_text_or_null(s, 12, device.mig_profile);
    if (device.mig_instance_id < 0) {
      sqlite3_bind_null(s, 13);
    } else {
      sqlite3_bind_int64(s, 13, device.mig_instance_id);
    }
    bind_text_or_null(s, 14, device.attribution);
    bind_mig_identity(s, 15, device);
    const int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) done = core::fail(sqlite_error(db, rc, what));
  }
  if (done) done = exec(db, "COMMIT", what);
  if (!done) (void)exec(db, "ROLLBACK", what);  // the first error is the one to report
  return done;
}

auto prepare_trace_file(const fs::path& path, bool overwrite) -> core::Result<PreparedFile> {
  // Open (or create), lock, then check that `path` still names the locked file: another Writer may have
  // replaced it in between. Replacing an old trace unlinks it and starts over with a new file.
  for (int attempt = 0; attempt < kOpenAttempts; ++attempt) {
    auto opened = open_for_lock(path);
    if (!opened) return core::propagate(opened);
    auto& [lock, created] = *opened;
    struct stat st {};
    if (::fstat(lock.fd(), &st) != 0) return core::fail(errno_error(errno, "cannot inspect trace", path));
    if (auto kind = check_regular(path, st); !kind) return core::propagate(kind);
    if (auto locked = lock_exclusive(lock.fd(), path); !locked) return core::propagate(locked);
    if (!names_file(path, st)) continue;
    const bool holds_data = st.st_size > 0 || file_size_or_zero(sidecar(path, kSidecarSuffixes[0])) > 0;
    if (holds_data && !overwrite) {
      return core::fail(core::ErrorCode::InvalidArgument, "trace " + path.string() + " already exists",
                        "choose another path, or ask for it to be overwritten");
    }
    if (holds_data) {
      if (auto removed = remove_file(path); !removed) return core::propagate(removed);
    }
    // Any -wal/-shm/-journal beside an empty or replaced file is stale and would be applied to the new
    // database.
    for (const auto suffix : kSidecarSuffixes) {
      if (auto removed = remove_file(sidecar(path, suffix)); !removed) return core::propagate(removed);
    }
    if (holds_data) continue;  // the old trace is gone: create, lock and check the new file
    return PreparedFile{std::move(lock), created};
  }
  return core::fail(core::ErrorCode::Unavailable,
                    "trace " + path.string() + " keeps being replaced by another process",
                    "stop the other recorder, or choose another path");
}

void remove_trace_files(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);
  for (const auto suffix : kSidecarSuffixes) fs::remove(sidecar(path, suffix), ec);
}

auto create_trace_database(const fs::path& path, const WriterOptions& options) -> core::Result<Connection> {
  // NOMUTEX: a Writer is used from one thread (documented); SQLite's per-call mutex would be pure cost.
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  Connection db(raw);
  if (rc != SQLITE_OK) return core::fail(sqlite_error(db.get(), rc, "cannot open trace " + path.string()));
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), 1000);
  const std::string pragmas = "PRAGMA page_size=" + std::to_string(kPageSizeBytes) +
                              "; PRAGMA application_id=" + std::to_string(kApplicationId) +
                              "; PRAGMA user_version=" + std::to_string(kSchemaVersion) + ";";
  if (auto done = exec(db.get(), pragmas.c_str(), "cannot set up trace " + path.string()); !done) {
    return core::propagate(done);
  }
  if (auto done = enable_wal(db.get(), path); !done) return core::propagate(done);
  // Checkpoint every 4096 pages (64 MiB of WAL) instead of SQLite's 1000: a quarter of the checkpoint fsyncs.
  // A 16 MiB page cache holds a whole default batch (4096 samples of about 460 bytes) without spilling.
  const char* tuning =
      "PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=4096; PRAGMA journal_size_limit=67108864; "
      "PRAGMA cache_size=-16384;";
  if (auto done = exec(db.get(), tuning, "cannot set up trace " + path.string()); !done) {
    return core::propagate(done);
  }
  if (auto done = write_schema(db.get(), options, path); !done) return core::propagate(done);
  return db;
}

}  // namespace solscope::trace::detail
