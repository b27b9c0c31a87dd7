// HistoryStore: the benchmark history, one SQLite file that every run is appended to, so that the
// app can chart a benchmark across commits. Its schema is documented in docs/RECORDING-FORMAT.md
// ("Benchmark history"). It lives in storage/bench_history (actorscope::bench_history), beside the
// SQLite wrapper it uses, so that the benchmark suite under engine/ needs no SQLite.
#pragma once

#include <actorscope/benchmarks/runner.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace actorscope::storage {
class Database;
}

namespace actorscope::bench {

/// The history file could not be opened, created, migrated or written. The message names the
/// file and SQLite's reason.
class HistoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The schema version this build writes (PRAGMA user_version).
inline constexpr int kHistorySchemaVersion = 2;

/// `$XDG_DATA_HOME/actorscope/bench-history.db`, or `~/.local/share/actorscope/bench-history.db`
/// when XDG_DATA_HOME is unset or not absolute. Throws HistoryError when neither is known.
std::string default_history_path();

/// One stored run, as listed by HistoryStore::runs().
struct HistoryRun {
  std::int64_t id = 0;
  std::string started_at;
  std::string git_revision;
  std::string cpu_model;
  std::string hostname;
  bool quick = false;
  unsigned threads = 0;
  std::size_t results = 0;
};

/// One point of a benchmark's history: its median on one runtime in one run.
struct HistoryPoint {
  std::int64_t run_id = 0;
  std::string started_at;
  std::string git_revision;
  std::string runtime;
  Statistics statistics;
  double elements = 1;
};

class HistoryStore {
 public:
  /// Opens (creating the file, its directory and its tables if needed) the history at `path`.
  /// Throws HistoryError when the file cannot be opened or was written by a newer schema.
  explicit HistoryStore(const std::string& path);
  ~HistoryStore();
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;

  const std::string& path() const noexcept { return path_; }

  /// Appends a run with all its results and samples in one transaction; returns the run's id.
  std::int64_t record(const RunReport& report);

  /// Every stored run, newest first.
  std::vector<HistoryRun> runs() const;
  /// The stored results of `benchmark` (on `runtime`, or every runtime if empty), oldest first.
  std::vector<HistoryPoint> history(const std::string& benchmark, const std::string& runtime = {}) const;
  /// The samples of one stored result.
  std::vector<double> samples(std::int64_t run_id, const std::string& benchmark, const std::string& runtime) const;

 private:
  void exec(const char* sql) const;
  /// Sets PRAGMA user_version (inside the caller's transaction).
  void set_version(std::int64_t version) const;
  std::string path_;
  std::unique_ptr<storage::Database> db_;
};

}  // namespace actorscope::bench
