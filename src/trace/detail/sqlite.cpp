#include "trace/detail/sqlite.hpp"

#include <cmath>
#include <limits>

#include "core/text.hpp"

namespace solscope::trace::detail {

auto sqlite_error(sqlite3* db, int rc, std::string_view what) -> core::Error {
  core::ErrorCode code = core::ErrorCode::Internal;
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      code = core::ErrorCode::DataLoss;
      break;
    case SQLITE_FULL:
      code = core::ErrorCode::ResourceExhausted;
      break;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
    case SQLITE_AUTH:
      code = core::ErrorCode::PermissionDenied;
      break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
      code = core::ErrorCode::Unavailable;
      break;
    default:
      break;
  }
  std::string message(what);
  message += ": ";
  // sqlite3_errmsg describes the last call on `db`; sqlite3_errstr describes a bare code (db may be null).
  message += (db != nullptr && (sqlite3_errcode(db) & 0xff) == (rc & 0xff)) ? sqlite3_errmsg(db)
                                                                            : sqlite3_errstr(rc);
  return core::Error{code, std::move(message), {}};
}

auto prepare(sqlite3* db, std::string_view sql, std::string_view what, bool persistent)
    -> core::Result<Statement> {
  sqlite3_stmt* raw = nullptr;
  const unsigned flags = persistent ? SQLITE_PREPARE_PERSISTENT : 0u;
  const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), flags, &raw, nullptr);
  Statement statement(raw);
  if (rc != SQLITE_OK) return core::fail(sqlite_error(db, rc, what));
  return statement;
}

auto exec(sqlite3* db, const char* sql, std::string_view what) -> core::Result<void> {
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return core::fail(sqlite_error(db, rc, what));
  return core::ok();
}

void bind_real_or_null(sqlite3_stmt* statement, int column, double v) {
  if (std::isnan(v)) {
    sqlite3_bind_null(statement, column);
  } else {
    sqlite3_bind_double(statement, column, v);
  }
}

void bind_text_or_null(sqlite3_stmt* statement, int column, std::string_view text) {
  if (text.empty()) {
    sqlite3_bind_null(statement, column);
  } else {
    sqlite3_bind_text(statement, column, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }
}

auto column_real_or_nan(sqlite3_stmt* statement, int column) -> double {
  if (sqlite3_column_type(statement, column) == SQLITE_NULL) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(statement, column);
}

auto column_text(sqlite3_stmt* statement, int column) -> std::string_view {
  const auto* text = sqlite3_column_text(statement, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text),
          static_cast<std::size_t>(sqlite3_column_bytes(statement, column))};
}

auto column_utf8(sqlite3_stmt* statement, int column) -> std::string {
  return core::valid_utf8(column_text(statement, column));
}

auto is_damage(int rc) -> bool {
  const int primary = rc & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

auto file_uri(const std::string& path, std::string_view query) -> std::string {
  // RFC 3986 unreserved characters and '/' pass; everything else (notably '?', '#', '%') is escaped, as
  // https://www.sqlite.org/uri.html requires.
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    const bool plain = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
                       u == '/' || u == '-' || u == '_' || u == '.' || u == '~';
    if (plain) {
      uri += c;
    } else {
      uri += '%';
      uri += kHex[u >> 4];
      uri += kHex[u & 0xf];
    }
  }
  if (!query.empty()) {
    uri += '?';
    uri += query;
  }
  return uri;
}

}  // namespace solscope::trace::detail
