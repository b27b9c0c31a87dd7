// The benchmark history in SQLite: runs, their results with statistics, and every sample.
#include <actorscope/benchmarks/history_store.hpp>

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <system_error>

namespace actorscope::bench {

namespace {

// The whole schema of the current version (2). Statistics columns are in the result's unit; the
// per-element figure is median / elements.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  id            INTEGER PRIMARY KEY,
  started_at    TEXT NOT NULL,
  seconds       REAL NOT NULL,
  git_revision  TEXT NOT NULL,
  quick         INTEGER NOT NULL,
  threads       INTEGER NOT NULL,
  filter        TEXT NOT NULL,
  runtimes      TEXT NOT NULL,
  samples       INTEGER NOT NULL,
  idle_spin_us  INTEGER NOT NULL,
  wait_spin_us  INTEGER NOT NULL DEFAULT 0,
  cancelled     INTEGER NOT NULL,
  cpu_model     TEXT NOT NULL,
  cores         INTEGER NOT NULL,
  os            TEXT NOT NULL,
  compiler      TEXT NOT NULL,
  build_type    TEXT NOT NULL,
  hostname      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  benchmark           TEXT NOT NULL,
  bench_group         TEXT NOT NULL,
  runtime             TEXT NOT NULL,
  threads             INTEGER NOT NULL,
  measure             TEXT NOT NULL,
  unit                TEXT NOT NULL,
  elements            REAL NOT NULL,
  element             TEXT NOT NULL,
  error               TEXT,
  warm_up_iterations  INTEGER NOT NULL,
  count               INTEGER NOT NULL,
  min                 REAL, q1 REAL, median REAL, q3 REAL, p95 REAL, p99 REAL, max REAL,
  mean                REAL, stddev REAL,
  outliers_mild       INTEGER NOT NULL,
  outliers_severe     INTEGER NOT NULL,
  dist_count          INTEGER,
  dist_median         REAL, dist_p95 REAL, dist_p99 REAL, dist_max REAL, dist_mean REAL
);
CREATE INDEX IF NOT EXISTS results_by_benchmark ON results(benchmark, runtime, run_id);
CREATE TABLE IF NOT EXISTS samples (
  result_id  INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
  idx        INTEGER NOT NULL,
  value      REAL NOT NULL,
  PRIMARY KEY (result_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS phases (
  result_id  INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  median     REAL NOT NULL,
  min        REAL NOT NULL,
  max        REAL NOT NULL,
  PRIMARY KEY (result_id, name)
) WITHOUT ROWID;
)sql";

// What turns a file of version N - 1 into version N, for each N from 2 on (index N - 2). Each
// runs in the same transaction as the update of user_version.
constexpr const char* kMigrations[] = {
    // 2: runs record --wait-spin-us; older runs had none.
    "ALTER TABLE runs ADD COLUMN wait_spin_us INTEGER NOT NULL DEFAULT 0",
};
static_assert(std::size(kMigrations) == kHistorySchemaVersion - 1, "one migration per schema version after 1");

// A prepared statement that finalises itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& path) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK)
      throw HistoryError("benchmark history \"" + path + "\": " + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& s) {
    sqlite3_bind_text(st_, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, double d) {
    sqlite3_bind_double(st_, i, d);
    return *this;
  }
  Statement& bind(int i, std::int64_t n) {
    sqlite3_bind_int64(st_, i, n);
    return *this;
  }
  Statement& bind_null(int i) {
    sqlite3_bind_null(st_, i);
    return *this;
  }
  /// Steps once; true if a row is available.
  bool step(const std::string& path) {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw HistoryError("benchmark history \"" + path + "\": " + sqlite3_errmsg(db_));
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(st_, col); }
  double real(int col) const { return sqlite3_column_double(st_, col); }
  std::string text(int col) const {
    const auto* t = sqlite3_column_text(st_, col);
    return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t));
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

std::int64_t as_int(std::size_t n) { return static_cast<std::int64_t>(n); }

}  // namespace

std::string default_history_path() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/actorscope/bench-history.db";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.local/share/actorscope/bench-history.db";
  throw HistoryError(
      "no place for the benchmark history: neither XDG_DATA_HOME nor HOME is set; give a file with --history, or "
      "skip it with --no-history");
}

HistoryStore::HistoryStore(const std::string& path) : path_(path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw HistoryError("cannot create the directory of the benchmark history \"" + path + "\": " + ec.message());
  }
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw HistoryError("cannot open the benchmark history \"" + path + "\": " + why);
  }
  sqlite3_busy_timeout(db_, 5000);
  try {
    exec("PRAGMA foreign_keys = ON");
    Statement version(db_, "PRAGMA user_version", path_);
    const std::int64_t v = version.step(path_) ? version.integer(0) : 0;
    if (v > kHistorySchemaVersion)
      throw HistoryError("the benchmark history \"" + path + "\" has schema version " + std::to_string(v) +
                         ", newer than this build understands (" + std::to_string(kHistorySchemaVersion) +
                         "); use a newer actorscope or another file");
    if (v == 0) {
      // A new file, or one that is not ours: refuse a database that has other tables.
      Statement tables(db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT IN ('runs', 'results', 'samples', 'phases')", path_);
      if (tables.step(path_) && tables.integer(0) > 0)
        throw HistoryError("\"" + path + "\" is an SQLite database but not a benchmark history; choose another file");
      exec("BEGIN");
      exec(kSchema);
      set_version(kHistorySchemaVersion);
      exec("COMMIT");
    } else if (v < kHistorySchemaVersion) {
      // An older file: bring it up to date in one transaction, so that it is either migrated
      // completely or left as it was.
      exec("BEGIN IMMEDIATE");
      for (std::int64_t to = v + 1; to <= kHistorySchemaVersion; ++to) {
        exec(kMigrations[to - 2]);
        set_version(to);
      }
      exec("COMMIT");
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

HistoryStore::~HistoryStore() { sqlite3_close(db_); }

void HistoryStore::set_version(std::int64_t version) const {
  exec(("PRAGMA user_version = " + std::to_string(version)).c_str());
}

void HistoryStore::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string why = err != nullptr ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw HistoryError("benchmark history \"" + path_ + "\": " + why);
  }
}

std::int64_t HistoryStore::record(const RunReport& report) {
  exec("BEGIN IMMEDIATE");
  try {
    std::string runtimes;
    for (const auto& r : report.options.runtimes) runtimes += (runtimes.empty() ? "" : ",") + r;
    Statement run(db_,
                  "INSERT INTO runs (started_at, seconds, git_revision, quick, threads, filter, runtimes, samples, "
                  "cancelled, cpu_model, cores, os, compiler, build_type, hostname, idle_spin_us, wait_spin_us) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
                  path_);
    run.bind(1, report.started_at)
        .bind(2, report.seconds)
        .bind(3, report.git_revision)
        .bind(4, std::int64_t{report.options.quick})
        .bind(5, std::int64_t{report.options.threads})
        .bind(6, report.options.filter)
        .bind(7, runtimes)
        .bind(8, std::int64_t{report.options.samples})
        .bind(9, std::int64_t{report.cancelled})
        .bind(10, report.machine.cpu_model)
        .bind(11, std::int64_t{report.machine.cores})
        .bind(12, report.machine.os)
        .bind(13, report.machine.compiler)
        .bind(14, report.machine.build_type)
        .bind(15, report.machine.hostname)
        .bind(16, std::int64_t{report.options.idle_spin.count()})
        .bind(17, std::int64_t{report.options.wait_spin.count()});
    run.step(path_);
    const std::int64_t run_id = sqlite3_last_insert_rowid(db_);

    Statement result(db_,
                     "INSERT INTO results (run_id, benchmark, bench_group, runtime, threads, measure, unit, elements, "
                     "element, error, warm_up_iterations, count, min, q1, median, q3, p95, p99, max, mean, stddev, "
                     "outliers_mild, outliers_severe, dist_count, dist_median, dist_p95, dist_p99, dist_max, dist_mean) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
                     "?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)",
                     path_);
    Statement sample(db_, "INSERT INTO samples (result_id, idx, value) VALUES (?1, ?2, ?3)", path_);
    Statement phase(db_, "INSERT INTO phases (result_id, name, median, min, max) VALUES (?1, ?2, ?3, ?4, ?5)", path_);
    for (const Result& r : report.results) {
      const Statistics& s = r.statistics;
      result.reset();
      result.bind(1, run_id)
          .bind(2, r.benchmark)
          .bind(3, r.group)
          .bind(4, r.runtime)
          .bind(5, std::int64_t{r.threads})
          .bind(6, std::string(measure_name(r.measure)))
          .bind(7, r.unit)
          .bind(8, r.elements)
          .bind(9, r.element)
          .bind(11, as_int(r.warm_up_iterations))
          .bind(12, as_int(s.count))
          .bind(22, as_int(s.outliers_mild))
          .bind(23, as_int(s.outliers_severe));
      if (r.ok()) {
        result.bind_null(10);
      } else {
        result.bind(10, r.error);
      }
      if (s.count > 0) {
        result.bind(13, s.min).bind(14, s.q1).bind(15, s.median).bind(16, s.q3).bind(17, s.p95).bind(18, s.p99);
        result.bind(19, s.max).bind(20, s.mean).bind(21, s.stddev);
      }
      if (r.distribution) {
        const Statistics& d = *r.distribution;
        result.bind(24, as_int(d.count)).bind(25, d.median).bind(26, d.p95).bind(27, d.p99).bind(28, d.max);
        result.bind(29, d.mean);
      }
      result.step(path_);
      const std::int64_t result_id = sqlite3_last_insert_rowid(db_);
      for (std::size_t i = 0; i < r.samples.size(); ++i) {
        sample.reset();
        sample.bind(1, result_id).bind(2, as_int(i)).bind(3, r.samples[i]);
        sample.step(path_);
      }
      for (const auto& p : r.phases) {
        phase.reset();
        phase.bind(1, result_id).bind(2, p.name).bind(3, p.statistics.median).bind(4, p.statistics.min);
        phase.bind(5, p.statistics.max);
        phase.step(path_);
      }
    }
    exec("COMMIT");
    return run_id;
  } catch (...) {
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<HistoryRun> HistoryStore::runs() const {
  Statement q(db_,
              "SELECT r.id, r.started_at, r.git_revision, r.cpu_model, r.hostname, r.quick, r.threads, "
              "(SELECT count(*) FROM results WHERE run_id = r.id) FROM runs r ORDER BY r.id DESC",
              path_);
  std::vector<HistoryRun> out;
  while (q.step(path_)) {
    HistoryRun h;
    h.id = q.integer(0);
    h.started_at = q.text(1);
    h.git_revision = q.text(2);
    h.cpu_model = q.text(3);
    h.hostname = q.text(4);
    h.quick = q.integer(5) != 0;
    h.threads = static_cast<unsigned>(q.integer(6));
    h.results = static_cast<std::size_t>(q.integer(7));
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<HistoryPoint> HistoryStore::history(const std::string& benchmark, const std::string& runtime) const {
  Statement q(db_,
              "SELECT r.run_id, u.started_at, u.git_revision, r.runtime, r.count, r.min, r.q1, r.median, r.q3, "
              "r.p95, r.p99, r.max, r.mean, r.stddev, r.outliers_mild, r.outliers_severe, r.elements "
              "FROM results r JOIN runs u ON u.id = r.run_id "
              "WHERE r.benchmark = ?1 AND (?2 = '' OR r.runtime = ?2) AND r.error IS NULL "
              "ORDER BY r.run_id, r.id",
              path_);
  q.bind(1, benchmark).bind(2, runtime);
  std::vector<HistoryPoint> out;
  while (q.step(path_)) {
    HistoryPoint p;
    p.run_id = q.integer(0);
    p.started_at = q.text(1);
    p.git_revision = q.text(2);
    p.runtime = q.text(3);
    Statistics& s = p.statistics;
    s.count = static_cast<std::size_t>(q.integer(4));
    s.min = q.real(5);
    s.q1 = q.real(6);
    s.median = q.real(7);
    s.q3 = q.real(8);
    s.p95 = q.real(9);
    s.p99 = q.real(10);
    s.max = q.real(11);
    s.mean = q.real(12);
    s.stddev = q.real(13);
    s.outliers_mild = static_cast<std::size_t>(q.integer(14));
    s.outliers_severe = static_cast<std::size_t>(q.integer(15));
    p.elements = q.real(16);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<double> HistoryStore::samples(std::int64_t run_id, const std::string& benchmark,
                                          const std::string& runtime) const {
  Statement q(db_,
              "SELECT s.value FROM samples s JOIN results r ON r.id = s.result_id "
              "WHERE r.run_id = ?1 AND r.benchmark = ?2 AND r.runtime = ?3 ORDER BY s.idx",
              path_);
  q.bind(1, run_id).bind(2, benchmark).bind(3, runtime);
  std::vector<double> out;
  while (q.step(path_)) out.push_back(q.real(0));
  return out;
}

}  // namespace actorscope::bench
