// Database and Statement: the thin RAII layer over the sqlite3 C API that the recorder and the
// reader share. Every failing call throws SqliteError with SQLite's code and text; the public
// classes turn those into RecordingErrors that name the file (see errors_for in database.cpp).
#pragma once

#include <actorscope/storage/recording_error.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace actorscope::storage {

class SqliteError : public std::runtime_error {
 public:
  SqliteError(int code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  /// The extended result code (SQLITE_BUSY_SNAPSHOT, SQLITE_CORRUPT_INDEX, ...); primary() is code & 0xff.
  int code() const noexcept { return code_; }
  int primary() const noexcept { return code_ & 0xff; }

 private:
  int code_;
};

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(Statement&& o) noexcept;
  Statement& operator=(Statement&& o) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binding (1-based, as SQLite counts). Text and blobs are not copied: they must stay alive until
  // the statement is reset.
  void bind(int index, std::int64_t value);
  void bind(int index, double value);
  void bind(int index, std::string_view text);
  void bind_blob(int index, std::string_view bytes);
  void bind_null(int index);
  /// NULL when the value equals its default (0 or ""): how optional columns are written.
  void bind_or_null(int index, std::int64_t value) {
    if (value == 0)
      bind_null(index);
    else
      bind(index, value);
  }
  void bind_or_null(int index, std::string_view text) {
    if (text.empty())
      bind_null(index);
    else
      bind(index, text);
  }

  /// True when a row is ready, false when done. Throws SqliteError.
  bool step();
  /// Ready for another run with new bindings.
  void reset() noexcept;
  /// Runs a statement that returns no rows, then resets it.
  void run();

  bool is_null(int column) const noexcept;
  std::int64_t int64(int column) const noexcept;
  std::optional<std::int64_t> optional_int64(int column) const noexcept;
  double real(int column) const noexcept;
  /// Valid until the next step or reset.
  std::string_view text(int column) const noexcept;
  std::string_view blob(int column) const noexcept;

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  enum class Mode { read_only, read_write, create };

  /// Opens `file`. read_only never writes (nor creates); create makes the file if it is missing.
  Database(const std::filesystem::path& file, Mode mode, int busy_timeout_ms);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  sqlite3* handle() const noexcept { return db_; }
  /// Runs one or more statements that return no rows.
  void exec(const char* sql);
  Statement prepare(std::string_view sql) { return Statement(db_, sql); }
  /// The first column of the first row of `sql`, or nullopt if it returns no row or NULL.
  std::optional<std::int64_t> scalar(std::string_view sql);
  /// The rowid of the last row inserted on this connection.
  std::int64_t last_insert_rowid() const noexcept;
  /// Whether a transaction is open (so that a failure knows whether to roll back).
  bool in_transaction() const noexcept;

 private:
  sqlite3* db_ = nullptr;
};

/// Throws SqliteError for `code` (not SQLITE_OK/ROW/DONE), with the connection's message.
[[noreturn]] void throw_sqlite(sqlite3* db, int code, std::string_view doing);

/// Turns an SQLite failure on `file` into a RecordingError that says what to do.
RecordingError recording_error(const std::filesystem::path& file, const SqliteError& e);

/// The quoted file name messages start with.
std::string quoted(const std::filesystem::path& file);

}  // namespace actorscope::storage
