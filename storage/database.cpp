// Database and Statement over the sqlite3 C API, and how SQLite's failures become RecordingErrors.
#include "database.hpp"

#include <sqlite3.h>

#include <fstream>
#include <string>
#include <system_error>
#include <utility>

namespace actorscope::storage {

void throw_sqlite(sqlite3* db, int code, std::string_view doing) {
  std::string text = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  std::string message(doing);
  message += ": ";
  message += text;
  throw SqliteError(code, std::move(message));
}

// ---------------------------------------------------------------------------------------------
// Statement

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                    &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    throw_sqlite(db, rc, "preparing a statement");
  }
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& o) noexcept : db_(o.db_), stmt_(std::exchange(o.stmt_, nullptr)) {}

Statement& Statement::operator=(Statement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = std::exchange(o.stmt_, nullptr);
  }
  return *this;
}

namespace {
void check_bind(sqlite3* db, int rc) {
  if (rc != SQLITE_OK) throw_sqlite(db, rc, "binding a value");
}
}  // namespace

void Statement::bind(int index, std::int64_t value) {
  check_bind(db_, sqlite3_bind_int64(stmt_, index, value));
}

void Statement::bind(int index, double value) {
  check_bind(db_, sqlite3_bind_double(stmt_, index, value));
}

void Statement::bind(int index, std::string_view text) {
  check_bind(db_, sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8));
}

void Statement::bind_blob(int index, std::string_view bytes) {
  check_bind(db_, sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_STATIC));
}

void Statement::bind_null(int index) {
  check_bind(db_, sqlite3_bind_null(stmt_, index));
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite(db_, rc, "running a statement");
}

void Statement::reset() noexcept {
  sqlite3_reset(stmt_);
}

void Statement::run() {
  try {
    while (step()) {
    }
  } catch (...) {
    reset();
    throw;
  }
  reset();
}

bool Statement::is_null(int column) const noexcept {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::int64(int column) const noexcept {
  return sqlite3_column_int64(stmt_, column);
}

std::optional<std::int64_t> Statement::optional_int64(int column) const noexcept {
  if (is_null(column)) return std::nullopt;
  return sqlite3_column_int64(stmt_, column);
}

double Statement::real(int column) const noexcept {
  return sqlite3_column_double(stmt_, column);
}

std::string_view Statement::text(int column) const noexcept {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (p == nullptr) return {};
  return {p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
}

std::string_view Statement::blob(int column) const noexcept {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
  if (p == nullptr) return {};
  return {p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
}

// ---------------------------------------------------------------------------------------------
// Database

namespace {

/// Whether `file` says it is in WAL mode (header bytes 18 and 19 are 2) but has no write-ahead log
/// beside it: then there is nothing in a log to read, and opening it read-only would still leave an
/// empty -wal and a -shm file behind, which a read-only connection cannot remove.
bool wal_mode_without_log(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char h[20] = {};
  if (!in.read(h, sizeof h)) return false;
  if (h[18] != 2 && h[19] != 2) return false;
  std::filesystem::path wal = file;
  wal += "-wal";
  std::error_code ec;
  return !std::filesystem::exists(wal, ec) && !ec;
}

/// `file` as an SQLite URI ("file:///abs/path?..."), its special characters escaped.
std::string file_uri(const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(file, ec);
  if (ec) abs = file;
  std::string uri = "file://";
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const unsigned char c : abs.string()) {
    if (c == '%' || c == '?' || c == '#' || c <= 0x20 || c >= 0x7f) {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri;
}

}  // namespace

Database::Database(const std::filesystem::path& file, Mode mode, int busy_timeout_ms) {
  // One connection per thread at a time (the recorder's writer, or one reader's user), so SQLite's
  // own per-connection mutex is not needed.
  int flags = SQLITE_OPEN_NOMUTEX;
  std::string name = file.string();
  switch (mode) {
    case Mode::read_only:
      flags |= SQLITE_OPEN_READONLY;
      // "Read-only never writes": a WAL-mode file without a log is opened as immutable, which
      // needs neither the log nor the shared-memory index (nor creates them). Whoever writes it
      // next makes a log first, and a reader opened after that takes the ordinary path.
      if (wal_mode_without_log(file)) {
        flags |= SQLITE_OPEN_URI;
        name = file_uri(file) + "?mode=ro&immutable=1";
      }
      break;
    case Mode::read_write:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case Mode::create:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
  }
  const int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string text = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw SqliteError(rc, "opening the file: " + text);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busy_timeout_ms);
}

Database::~Database() {
  sqlite3_close_v2(db_);
}

void Database::exec(const char* sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string text = err != nullptr ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw SqliteError(rc, "running \"" + std::string(sql).substr(0, 40) + "\": " + text);
  }
}

std::optional<std::int64_t> Database::scalar(std::string_view sql) {
  Statement s = prepare(sql);
  if (!s.step()) return std::nullopt;
  return s.optional_int64(0);
}

std::int64_t Database::last_insert_rowid() const noexcept {
  return sqlite3_last_insert_rowid(db_);
}

bool Database::in_transaction() const noexcept {
  return sqlite3_get_autocommit(db_) == 0;
}

// ---------------------------------------------------------------------------------------------
// Errors

std::string quoted(const std::filesystem::path& file) {
  std::string out = "\"";
  out += file.string();
  out += '"';
  return out;
}

RecordingError recording_error(const std::filesystem::path& file, const SqliteError& e) {
  using Kind = RecordingError::Kind;
  std::string m = quoted(file);
  switch (e.primary()) {
    case SQLITE_NOTADB:
      m += " is not an SQLite database, so it is not an Actorscope recording (SQLite: ";
      m += e.what();
      m += "); check the file name, or make a recording with 'actorscope record'";
      return {Kind::not_sqlite, file, m};
    case SQLITE_CORRUPT:
    case SQLITE_FORMAT:
      m += " is damaged and cannot be read (SQLite: ";
      m += e.what();
      m += "); it was probably truncated or overwritten: record the session again or restore a copy";
      return {Kind::corrupt, file, m};
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      m += " is locked by another program that is writing to it (SQLite: ";
      m += e.what();
      m += "); wait until it has finished, or open a copy of the file";
      return {Kind::locked, file, m};
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      m.insert(0, "cannot open ");
      m += " (SQLite: ";
      m += e.what();
      m +=
          "); check that the file exists, is a file and is readable (and its folder writable, for recording)";
      return {Kind::cannot_open, file, m};
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_IOERR:
      if (e.code() == SQLITE_IOERR_SHORT_READ) {
        m += " is shorter than its own header says (SQLite: ";
        m += e.what();
        m += "): it was truncated, e.g. by an interrupted copy; record the session again or restore a copy";
        return {Kind::corrupt, file, m};
      }
      m.insert(0, "cannot write to ");
      m += " (SQLite: ";
      m += e.what();
      m += "); check the free disk space and that the file and its folder are writable";
      return {Kind::write_failed, file, m};
    default:
      m += " cannot be read as an Actorscope recording (SQLite: ";
      m += e.what();
      m += "); the file is probably damaged: record the session again or restore a copy";
      return {Kind::corrupt, file, m};
  }
}

}  // namespace actorscope::storage
