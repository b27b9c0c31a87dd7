// RecordingQuery: "ask the recording anything". It runs one read-only SQL statement over a
// recording and returns its columns and rows as plain values, at most a given number of rows. It
// never writes: the connection is opened read-only, with PRAGMA query_only on, and a statement
// that SQLite does not call read-only is refused before it runs. It works on a file another
// process is still recording (WAL): it reads the last commit, and holds no lock between runs.
// The example queries of docs/RECORDING-FORMAT.md come with it (example_queries()), taken from
// that page when the library is built, so that the page stays their one source.
#pragma once

#include <actorscope/storage/recording_error.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace actorscope {

namespace storage {
class Database;
}

/// A BLOB value, by its size only (recordings keep keyframe images there; their bytes are of no
/// use in a table).
struct QueryBlob {
  std::size_t bytes = 0;
  friend bool operator==(const QueryBlob&, const QueryBlob&) = default;
};

/// One cell: NULL, INTEGER, REAL, TEXT or BLOB, as SQLite typed it.
using QueryValue = std::variant<std::monostate, std::int64_t, double, std::string, QueryBlob>;

struct QueryResult {
  std::vector<std::string> columns;
  /// Each row has columns.size() values.
  std::vector<std::vector<QueryValue>> rows;
  /// The statement had more rows than QueryOptions::max_rows; `rows` holds the first ones.
  bool truncated = false;
};

struct QueryOptions {
  /// Rows kept; the statement stops there and the result says it was truncated.
  std::size_t max_rows = 10'000;
  /// A statement still running after this long is interrupted (QueryError::Kind::timed_out), so
  /// that a runaway recursive query cannot hang the caller.
  std::chrono::milliseconds timeout{10'000};
  /// When set, the statement stops (QueryError::Kind::interrupted) once another thread makes it
  /// true: how a window's Cancel button stops a query running on a worker thread.
  const std::atomic<bool>* cancel = nullptr;
};

/// Why a statement was not run, or failed while running. what() says what to do.
class QueryError : public std::runtime_error {
 public:
  enum class Kind {
    empty,          ///< nothing but white space and comments
    sql,            ///< SQLite refused or failed it: what() holds SQLite's own message
    not_read_only,  ///< it would change the file (INSERT, UPDATE, CREATE, PRAGMA x = y, ...)
    not_allowed,    ///< read-only, but not for this connection: ATTACH, BEGIN, SAVEPOINT, ...
    several,        ///< more than one statement
    timed_out,      ///< ran longer than QueryOptions::timeout
    interrupted,    ///< QueryOptions::cancel was set while it ran
  };
  QueryError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

class RecordingQuery {
 public:
  struct Options {
    /// How long to wait for another connection's lock before reporting RecordingError::locked.
    std::chrono::milliseconds busy_timeout{2000};
  };

  /// Opens `file` read-only and checks that it is a recording this build can read. Throws
  /// RecordingError as SessionReader does (cannot_open, not_sqlite, not_a_recording, too_new, ...).
  explicit RecordingQuery(std::filesystem::path file) : RecordingQuery(std::move(file), Options{}) {}
  RecordingQuery(std::filesystem::path file, Options options);
  ~RecordingQuery();
  RecordingQuery(RecordingQuery&&) noexcept;
  RecordingQuery& operator=(RecordingQuery&&) noexcept;

  const std::filesystem::path& file() const noexcept { return file_; }

  /// Runs one statement. Throws QueryError for a statement that is empty, not read-only, not
  /// allowed, one of several, or that SQLite rejects or fails (with SQLite's message).
  QueryResult run(std::string_view sql) const { return run(sql, QueryOptions{}); }
  /// One thread at a time (the connection is not shared between threads); options.cancel is how
  /// another thread stops it.
  QueryResult run(std::string_view sql, const QueryOptions& options) const;

 private:
  std::filesystem::path file_;
  std::unique_ptr<storage::Database> db_;
};

/// One of the example queries of docs/RECORDING-FORMAT.md ("Querying recordings with sqlite3").
struct ExampleQuery {
  /// Its first comment line, without "-- ": "Events by kind in session 1."
  std::string title;
  /// The whole example as the page shows it: its comment lines, then the statement.
  std::string sql;
};

/// The page's examples, in its order.
const std::vector<ExampleQuery>& example_queries();

/// `sql` with every "session_id = 1" (the session the examples are written for) made
/// "session_id = <session>".
std::string for_session(std::string_view sql, std::int64_t session);

}  // namespace actorscope
