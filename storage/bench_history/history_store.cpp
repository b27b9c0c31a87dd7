// The benchmark history in SQLite: runs, their results with statistics, and every sample. It uses
// storage's SQLite wrapper (database.hpp); SQLite's failures become HistoryErrors naming the file.
#include <actorscope/benchmarks/history_store.hpp>

#include "database.hpp"

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

using storage::Database;
using storage::SqliteError;
using storage::Statement;

// Text bound to storage's Statement is not copied, so every bound string below outlives the step
// that reads it; and a reset keeps the bindings, so a column that may be NULL is always bound.

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


namespace {

// SQLite's failure on the history, as the error the callers know.
HistoryError history_error(const std::string& path, const SqliteError& e) {
  return HistoryError("benchmark history \"" + path + "\": " + e.what());
}

}  // namespace

HistoryStore::HistoryStore(const std::string& path) : path_(path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw HistoryError("cannot create the directory of the benchmark history \"" + path + "\": " + ec.message());
  }
  try {
    db_ = std::make_unique<Database>(path, Database::Mode::create, 5000);
  } catch (const SqliteError& e) {
    throw HistoryError("cannot open the benchmark history \"" + path + "\": " + e.what());
  }
  try {
    exec("PRAGMA foreign_keys = ON");
    Statement version = db_->prepare("PRAGMA user_version");
    const std::int64_t v = version.step() ? version.int64(0) : 0;
    if (v > kHistorySchemaVersion)
      throw HistoryError("the benchmark history \"" + path + "\" has schema version " + std::to_string(v) +
                         ", newer than this build understands (" + std::to_string(kHistorySchemaVersion) +
                         "); use a newer actorscope or another file");
    if (v == 0) {
      // A new file, or one that is not ours: refuse a database that has other tables.
      Statement tables = db_->prepare(
          "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT IN ('runs', 'results', 'samples', "
          "'phases')");
      if (tables.step() && tables.int64(0) > 0)
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
  } catch (const SqliteError& e) {
    throw history_error(path_, e);
  }
}

HistoryStore::~HistoryStore() = default;

void HistoryStore::set_version(std::int64_t version) const {
  exec(("PRAGMA user_version = " + std::to_string(version)).c_str());
}

void HistoryStore::exec(const char* sql) const {
  try {
    db_->exec(sql);
  } catch (const SqliteError& e) {
    if (db_->in_transaction()) {
      try {
        db_->exec("ROLLBACK");
      } catch (const SqliteError&) {
        // The first failure is the one to report; a failed rollback leaves the file as SQLite keeps it.
      }
    }
    throw history_error(path_, e);
  }
}

std::int64_t HistoryStore::record(const RunReport& report) {
  exec("BEGIN IMMEDIATE");
  try {
    std::string runtimes;
    for (const auto& r : report.options.runtimes) runtimes += (runtimes.empty() ? "" : ",") + r;
    Statement run = db_->prepare(
        "INSERT INTO runs (started_at, seconds, git_revision, quick, threads, filter, runtimes, samples, "
        "cancelled, cpu_model, cores, os, compiler, build_type, hostname, idle_spin_us, wait_spin_us) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)");
    run.bind(1, report.started_at);
    run.bind(2, report.seconds);
    run.bind(3, report.git_revision);
    run.bind(4, std::int64_t{report.options.quick});
    run.bind(5, std::int64_t{report.options.threads});
    run.bind(6, report.options.filter);
    run.bind(7, runtimes);
    run.bind(8, std::int64_t{report.options.samples});
    run.bind(9, std::int64_t{report.cancelled});
    run.bind(10, report.machine.cpu_model);
    run.bind(11, std::int64_t{report.machine.cores});
    run.bind(12, report.machine.os);
    run.bind(13, report.machine.compiler);
    run.bind(14, report.machine.build_type);
    run.bind(15, report.machine.hostname);
    run.bind(16, std::int64_t{report.options.idle_spin.count()});
    run.bind(17, std::int64_t{report.options.wait_spin.count()});
    run.run();
    const std::int64_t run_id = db_->last_insert_rowid();

    Statement result = db_->prepare(
        "INSERT INTO results (run_id, benchmark, bench_group, runtime, threads, measure, unit, elements, "
        "element, error, warm_up_iterations, count, min, q1, median, q3, p95, p99, max, mean, stddev, "
        "outliers_mild, outliers_severe, dist_count, dist_median, dist_p95, dist_p99, dist_max, dist_mean) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
        "?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)");
    Statement sample = db_->prepare("INSERT INTO samples (result_id, idx, value) VALUES (?1, ?2, ?3)");
    Statement phase = db_->prepare("INSERT INTO phases (result_id, name, median, min, max) VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const Result& r : report.results) {
      const Statistics& s = r.statistics;
      const std::string_view measure = measure_name(r.measure);  // a string literal: lives long enough
      result.bind(1, run_id);
      result.bind(2, r.benchmark);
      result.bind(3, r.group);
      result.bind(4, r.runtime);
      result.bind(5, std::int64_t{r.threads});
      result.bind(6, measure);
      result.bind(7, r.unit);
      result.bind(8, r.elements);
      result.bind(9, r.element);
      if (r.ok()) {
        result.bind_null(10);
      } else {
        result.bind(10, r.error);
      }
      result.bind(11, as_int(r.warm_up_iterations));
      result.bind(12, as_int(s.count));
      // The statistics are NULL for a result without samples (a failed benchmark).
      if (s.count > 0) {
        const double stats[] = {s.min, s.q1, s.median, s.q3, s.p95, s.p99, s.max, s.mean, s.stddev};
        for (int i = 0; i < 9; ++i) result.bind(13 + i, stats[i]);
      } else {
        for (int i = 13; i <= 21; ++i) result.bind_null(i);
      }
      result.bind(22, as_int(s.outliers_mild));
      result.bind(23, as_int(s.outliers_severe));
      if (r.distribution) {
        const Statistics& d = *r.distribution;
        result.bind(24, as_int(d.count));
        const double dist[] = {d.median, d.p95, d.p99, d.max, d.mean};
        for (int i = 0; i < 5; ++i) result.bind(25 + i, dist[i]);
      } else {
        for (int i = 24; i <= 29; ++i) result.bind_null(i);
      }
      result.run();
      const std::int64_t result_id = db_->last_insert_rowid();
      for (std::size_t i = 0; i < r.samples.size(); ++i) {
        sample.bind(1, result_id);
        sample.bind(2, as_int(i));
        sample.bind(3, r.samples[i]);
        sample.run();
      }
      for (const auto& p : r.phases) {
        phase.bind(1, result_id);
        phase.bind(2, p.name);
        phase.bind(3, p.statistics.median);
        phase.bind(4, p.statistics.min);
        phase.bind(5, p.statistics.max);
        phase.run();
      }
    }
    exec("COMMIT");
    return run_id;
  } catch (...) {
    if (db_->in_transaction()) {
      try {
        db_->exec("ROLLBACK");
      } catch (const SqliteError&) {
        // Reporting the first failure matters more than this one.
      }
    }
    try {
      throw;
    } catch (const SqliteError& e) {
      throw history_error(path_, e);
    }
  }
}

std::vector<HistoryRun> HistoryStore::runs() const {
  try {
    Statement q = db_->prepare(
        "SELECT r.id, r.started_at, r.git_revision, r.cpu_model, r.hostname, r.quick, r.threads, "
        "(SELECT count(*) FROM results WHERE run_id = r.id) FROM runs r ORDER BY r.id DESC");
    std::vector<HistoryRun> out;
    while (q.step()) {
      HistoryRun h;
      h.id = q.int64(0);
      h.started_at = q.text(1);
      h.git_revision = q.text(2);
      h.cpu_model = q.text(3);
      h.hostname = q.text(4);
      h.quick = q.int64(5) != 0;
      h.threads = static_cast<unsigned>(q.int64(6));
      h.results = static_cast<std::size_t>(q.int64(7));
      out.push_back(std::move(h));
    }
    return out;
  } catch (const SqliteError& e) {
    throw history_error(path_, e);
  }
}

std::vector<HistoryPoint> HistoryStore::history(const std::string& benchmark, const std::string& runtime) const {
  try {
    Statement q = db_->prepare(
        "SELECT r.run_id, u.started_at, u.git_revision, r.runtime, r.count, r.min, r.q1, r.median, r.q3, "
        "r.p95, r.p99, r.max, r.mean, r.stddev, r.outliers_mild, r.outliers_severe, r.elements "
        "FROM results r JOIN runs u ON u.id = r.run_id "
        "WHERE r.benchmark = ?1 AND (?2 = '' OR r.runtime = ?2) AND r.error IS NULL "
        "ORDER BY r.run_id, r.id");
    q.bind(1, benchmark);
    q.bind(2, runtime);
    std::vector<HistoryPoint> out;
    while (q.step()) {
      HistoryPoint p;
      p.run_id = q.int64(0);
      p.started_at = q.text(1);
      p.git_revision = q.text(2);
      p.runtime = q.text(3);
      Statistics& s = p.statistics;
      s.count = static_cast<std::size_t>(q.int64(4));
      s.min = q.real(5);
      s.q1 = q.real(6);
      s.median = q.real(7);
      s.q3 = q.real(8);
      s.p95 = q.real(9);
      s.p99 = q.real(10);
      s.max = q.real(11);
      s.mean = q.real(12);
      s.stddev = q.real(13);
      s.outliers_mild = static_cast<std::size_t>(q.int64(14));
      s.outliers_severe = static_cast<std::size_t>(q.int64(15));
      p.elements = q.real(16);
      out.push_back(std::move(p));
    }
    return out;
  } catch (const SqliteError& e) {
    throw history_error(path_, e);
  }
}

std::vector<double> HistoryStore::samples(std::int64_t run_id, const std::string& benchmark,
                                          const std::string& runtime) const {
  try {
    Statement q = db_->prepare(
        "SELECT s.value FROM samples s JOIN results r ON r.id = s.result_id "
        "WHERE r.run_id = ?1 AND r.benchmark = ?2 AND r.runtime = ?3 ORDER BY s.idx");
    q.bind(1, run_id);
    q.bind(2, benchmark);
    q.bind(3, runtime);
    std::vector<double> out;
    while (q.step()) out.push_back(q.real(0));
    return out;
  } catch (const SqliteError& e) {
    throw history_error(path_, e);
  }
}

}  // namespace actorscope::bench
