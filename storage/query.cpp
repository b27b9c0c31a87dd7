// RecordingQuery: one read-only statement over a recording. Three locks keep it read-only: the
// connection is opened read-only, PRAGMA query_only is on, and an authorizer refuses, while the
// statement is compiled, everything but reading (with a message that says why); a statement that
// SQLite still does not call read-only is refused before its first step.
#include <actorscope/storage/query.hpp>

#include "database.hpp"
#include "schema.hpp"

#include <sqlite3.h>

#include <actorscope/storage/recording_format.hpp>

#include <atomic>
#include <cctype>
#include <memory>
#include <utility>

namespace actorscope {

namespace storage {
/// The SQL block of docs/RECORDING-FORMAT.md's "Querying recordings with sqlite3", as the page has
/// it (generated from the page when the library is configured: example_queries.cpp.in).
std::string_view example_queries_block() noexcept;
}  // namespace storage

using storage::Database;

namespace {

/// What the authorizer refused while the last statement was compiled, and why.
struct Refusal {
  QueryError::Kind kind = QueryError::Kind::sql;
  std::string why;
};

std::string lower(const char* s) {
  std::string out = s != nullptr ? s : "";
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Pragmas that take an argument and only read: the schema's tables, columns and indexes.
bool reading_pragma(const std::string& name) {
  return name == "table_info" || name == "table_xinfo" || name == "table_list" || name == "index_list" ||
         name == "index_info" || name == "index_xinfo" || name == "foreign_key_list";
}

int authorize(void* user, int action, const char* a1, const char* a2, const char*, const char*) {
  auto* refusal = static_cast<Refusal*>(user);
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_PRAGMA:
      // PRAGMA x reads a setting; PRAGMA x = y (or x(y)) changes it, but for the few that read the
      // schema. (query_only = OFF would undo one of the locks.)
      if (a2 == nullptr || reading_pragma(lower(a1))) return SQLITE_OK;
      *refusal = {QueryError::Kind::not_read_only,
                  "PRAGMA " + lower(a1) + " = ... changes a setting, which a read-only query may not: "
                  "write PRAGMA " + lower(a1) + " without a value to read it"};
      return SQLITE_DENY;
    case SQLITE_TRANSACTION:
    case SQLITE_SAVEPOINT:
      // A transaction left open would hold a snapshot of the file for as long as the query window
      // lives, and keep a recorder that is still writing from checkpointing its log.
      *refusal = {QueryError::Kind::not_allowed,
                  "transactions are not allowed here: each query runs in its own read transaction"};
      return SQLITE_DENY;
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
      *refusal = {QueryError::Kind::not_allowed,
                  "ATTACH and DETACH are not allowed here: a query reads the open recording only"};
      return SQLITE_DENY;
    default:
      *refusal = {QueryError::Kind::not_read_only,
                  "this statement would change the recording, which is opened read-only: use SELECT "
                  "(or WITH ... SELECT) to read it"};
      return SQLITE_DENY;
  }
}

struct StatementDeleter {
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using StatementPtr = std::unique_ptr<sqlite3_stmt, StatementDeleter>;

bool only_space(std::string_view s) {
  for (const char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

RecordingQuery::RecordingQuery(std::filesystem::path file, Options options) : file_(std::move(file)) {
  if (!storage::check_file_header(file_)) throw storage::not_a_recording_error(file_, "the file is empty");
  try {
    db_ = std::make_unique<Database>(file_, Database::Mode::read_only, static_cast<int>(options.busy_timeout.count()));
    const auto version = storage::read_format_version(*db_, file_);
    if (!version) throw storage::not_a_recording_error(file_, "it has no meta table with a format_version");
    if (*version > kRecordingFormatVersion) throw storage::too_new_error(file_, *version);
    storage::check_structure(*db_, file_, *version);
    db_->exec("PRAGMA query_only = ON");
  } catch (const storage::SqliteError& e) {
    throw storage::recording_error(file_, e);
  }
}

RecordingQuery::~RecordingQuery() = default;
RecordingQuery::RecordingQuery(RecordingQuery&&) noexcept = default;
RecordingQuery& RecordingQuery::operator=(RecordingQuery&&) noexcept = default;

QueryResult RecordingQuery::run(std::string_view sql, const QueryOptions& options) const {
  sqlite3* db = db_->handle();
  Refusal refusal;
  sqlite3_set_authorizer(db, &authorize, &refusal);
  // The authorizer judges compilation only; it is removed before anything else uses the connection.
  struct Unset {
    sqlite3* db;
    ~Unset() { sqlite3_set_authorizer(db, nullptr, nullptr); }
  } unset{db};

  auto compile = [&](std::string_view text, const char** tail) {
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v2(db, text.data(), static_cast<int>(text.size()), &raw, tail);
    StatementPtr stmt(raw);
    if (rc != SQLITE_OK) {
      if (!refusal.why.empty()) throw QueryError(refusal.kind, refusal.why);
      throw QueryError(QueryError::Kind::sql, sqlite3_errmsg(db));
    }
    return stmt;
  };

  const char* tail = nullptr;
  StatementPtr stmt = compile(sql, &tail);
  if (!stmt) throw QueryError(QueryError::Kind::empty, "the query is empty: write one SELECT statement");
  const std::string_view rest = sql.substr(static_cast<std::size_t>(tail - sql.data()));
  if (!only_space(rest)) {
    // Comments after the statement are fine; another statement is not.
    const char* unused = nullptr;
    bool another = true;
    try {
      another = compile(rest, &unused) != nullptr;
    } catch (const QueryError&) {
    }
    if (another)
      throw QueryError(QueryError::Kind::several,
                       "the query holds more than one statement: run them one at a time (a ';' ends one)");
  }
  if (sqlite3_stmt_readonly(stmt.get()) == 0)
    throw QueryError(QueryError::Kind::not_read_only,
                     "this statement would change the recording, which is opened read-only: use SELECT "
                     "(or WITH ... SELECT) to read it");

  QueryResult result;
  const int n = sqlite3_column_count(stmt.get());
  for (int c = 0; c < n; ++c) {
    const char* name = sqlite3_column_name(stmt.get(), c);
    result.columns.emplace_back(name != nullptr ? name : "");
  }

  // A runaway statement (a recursive CTE without an end) is stopped at the deadline, and any
  // statement once its caller sets options.cancel. Through the progress handler rather than
  // sqlite3_interrupt: an interrupt that came as a statement ended would stay set and fail the next.
  struct Stop {
    std::chrono::steady_clock::time_point deadline;
    const std::atomic<bool>* cancel;
  } stop{std::chrono::steady_clock::now() + options.timeout, options.cancel};
  auto should_stop = [](void* p) -> int {
    const auto* s = static_cast<const Stop*>(p);
    const bool cancelled = s->cancel != nullptr && s->cancel->load(std::memory_order_relaxed);
    return cancelled || std::chrono::steady_clock::now() > s->deadline ? 1 : 0;
  };
  sqlite3_progress_handler(db, 1'000, should_stop, &stop);
  struct Unprogress {
    sqlite3* db;
    ~Unprogress() { sqlite3_progress_handler(db, 0, nullptr, nullptr); }
  } unprogress{db};

  for (;;) {
    const int rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) {
      if ((rc & 0xff) == SQLITE_INTERRUPT) {
        if (options.cancel == nullptr || !options.cancel->load())
          throw QueryError(QueryError::Kind::timed_out,
                           "the query ran longer than " + std::to_string(options.timeout.count() / 1000) +
                               " s and was stopped: narrow it with WHERE (session_id, t_ns ranges) or LIMIT");
        throw QueryError(QueryError::Kind::interrupted, "the query was cancelled");
      }
      throw QueryError(QueryError::Kind::sql, sqlite3_errmsg(db));
    }
    if (result.rows.size() == options.max_rows) {
      result.truncated = true;
      break;
    }
    std::vector<QueryValue>& row = result.rows.emplace_back();
    row.reserve(static_cast<std::size_t>(n));
    for (int c = 0; c < n; ++c) {
      switch (sqlite3_column_type(stmt.get(), c)) {
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(stmt.get(), c)));
          break;
        case SQLITE_FLOAT:
          row.emplace_back(sqlite3_column_double(stmt.get(), c));
          break;
        case SQLITE_TEXT: {
          const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt.get(), c));
          row.emplace_back(std::string(p != nullptr ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt.get(), c))));
          break;
        }
        case SQLITE_BLOB:
          row.emplace_back(QueryBlob{static_cast<std::size_t>(sqlite3_column_bytes(stmt.get(), c))});
          break;
        default:
          row.emplace_back(std::monostate{});
          break;
      }
    }
  }
  // Finalizing the statement (stmt's deleter) ends its read transaction: nothing holds the file.
  return result;
}

// ---------------------------------------------------------------------------------------------
// Example queries

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// The page's block: each example is its comment lines ("-- ...") and a statement that ends with
/// a line ending in ';'.
std::vector<ExampleQuery> parse_examples(std::string_view block) {
  std::vector<ExampleQuery> out;
  ExampleQuery current;
  bool in_statement = false;
  while (!block.empty()) {
    const std::size_t nl = block.find('\n');
    const std::string_view line = block.substr(0, nl);
    block.remove_prefix(nl == std::string_view::npos ? block.size() : nl + 1);
    const std::string_view t = trim(line);
    if (t.empty() && current.sql.empty()) continue;
    if (!in_statement && t.starts_with("--")) {
      if (current.title.empty()) current.title = std::string(trim(t.substr(2)));
    } else {
      in_statement = true;
    }
    current.sql += line;
    current.sql += '\n';
    if (in_statement && t.ends_with(";")) {
      current.sql.pop_back();
      out.push_back(std::move(current));
      current = {};
      in_statement = false;
    }
  }
  return out;
}

}  // namespace

const std::vector<ExampleQuery>& example_queries() {
  static const std::vector<ExampleQuery> examples = parse_examples(storage::example_queries_block());
  return examples;
}

std::string for_session(std::string_view sql, std::int64_t session) {
  static constexpr std::string_view kKey = "session_id = 1";
  std::string out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t at = sql.find(kKey, from);
    if (at == std::string_view::npos) break;
    const std::size_t end = at + kKey.size();
    const bool whole = end == sql.size() || !std::isdigit(static_cast<unsigned char>(sql[end]));
    out += sql.substr(from, end - from);
    if (whole) {
      out.resize(out.size() - 1);
      out += std::to_string(session);
    }
    from = end;
  }
  out += sql.substr(from);
  return out;
}

}  // namespace actorscope
