// RecordingQuery: one read-only statement over a recording, with SQLite's own message for a bad
// one, a row limit, and no way to change the file (a write, a setting, a transaction, an ATTACH are
// refused; the file's bytes are the same afterwards). It reads a recording that is still being
// written. And the example queries of docs/RECORDING-FORMAT.md are the page's, and all run.
#include "recording_test.hpp"

#include <actorscope/storage/query.hpp>

#include <QCryptographicHash>
#include <QFile>

using namespace recording_test;

namespace {

QByteArray digest(const std::filesystem::path& file) {
  QFile f(QString::fromStdString(file.string()));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

/// The QueryError `f` throws, if any.
template <class F>
std::optional<as::QueryError> query_error_of(F&& f) {
  try {
    f();
  } catch (const as::QueryError& e) {
    return e;
  }
  return std::nullopt;
}

std::int64_t int_at(const as::QueryResult& r, std::size_t row, std::size_t col) {
  const auto* v = std::get_if<std::int64_t>(&r.rows.at(row).at(col));
  return v != nullptr ? *v : -1;
}

}  // namespace

class TestQuery : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::filesystem::path file_;  // a finished recording of the workload at full detail (session 1)
  WorkloadResult workload_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    file_ = path_in(dir_, "workload.db");
    as::Recorder rec(file_, {.detail = as::Detail::full, .stats_interval = 5ms});
    as::System sys(as::make_runtime("asio", {.threads = 2}));
    sys.attach(rec);
    run_workload(sys, workload_);
    QVERIFY(!QTest::currentTestFailed());
  }

  void a_query_returns_its_columns_and_typed_rows() {
    const as::RecordingQuery q(file_);
    const as::QueryResult r = q.run(
        "SELECT kind, count(*) AS n FROM events WHERE session_id = 1 AND kind IN ('failed', 'stopped') "
        "GROUP BY kind ORDER BY kind");
    QCOMPARE(r.columns, (std::vector<std::string>{"kind", "n"}));
    QCOMPARE(r.rows.size(), std::size_t{2});
    QVERIFY(!r.truncated);
    QCOMPARE(std::get<std::string>(r.rows[0][0]), std::string("failed"));
    QCOMPARE(int_at(r, 0, 1), 1);  // the one worker crashed on purpose
    QCOMPARE(std::get<std::string>(r.rows[1][0]), std::string("stopped"));
    QVERIFY(int_at(r, 1, 1) >= 1);

    // Every SQLite type comes back as itself; a blob by its size.
    const as::QueryResult t = q.run("SELECT NULL AS none_here, 42, 1.5, 'text', x'010203'");
    QCOMPARE(t.rows.size(), std::size_t{1});
    QVERIFY(std::holds_alternative<std::monostate>(t.rows[0][0]));
    QCOMPARE(std::get<std::int64_t>(t.rows[0][1]), std::int64_t{42});
    QCOMPARE(std::get<double>(t.rows[0][2]), 1.5);
    QCOMPARE(std::get<std::string>(t.rows[0][3]), std::string("text"));
    QCOMPARE(std::get<as::QueryBlob>(t.rows[0][4]).bytes, std::size_t{3});
    QCOMPARE(t.columns[0], std::string("none_here"));

    // Reading the schema is allowed: plain pragmas and the table-valued ones.
    QVERIFY(!q.run("PRAGMA table_info(events)").rows.empty());
    QCOMPARE(q.run("PRAGMA query_only").rows.size(), std::size_t{1});
    // Comments around the one statement are fine.
    QCOMPARE(q.run("-- how many\nSELECT 1; -- that's all\n").rows.size(), std::size_t{1});
  }

  void a_bad_query_gets_sqlites_own_message() {
    const as::RecordingQuery q(file_);
    auto e = query_error_of([&] { q.run("SELEC kind FROM events"); });
    QVERIFY(e.has_value());
    QCOMPARE(e->kind(), as::QueryError::Kind::sql);
    QVERIFY2(std::string(e->what()).find("syntax error") != std::string::npos, e->what());

    e = query_error_of([&] { q.run("SELECT * FROM no_such_table"); });
    QVERIFY(e.has_value());
    QCOMPARE(e->kind(), as::QueryError::Kind::sql);
    QVERIFY2(std::string(e->what()).find("no such table: no_such_table") != std::string::npos, e->what());

    e = query_error_of([&] { q.run("SELECT no_such_column FROM events"); });
    QVERIFY(e.has_value());
    QVERIFY2(std::string(e->what()).find("no such column: no_such_column") != std::string::npos, e->what());

    e = query_error_of([&] { q.run("   -- only a comment\n"); });
    QVERIFY(e.has_value());
    QCOMPARE(e->kind(), as::QueryError::Kind::empty);

    e = query_error_of([&] { q.run("SELECT 1; SELECT 2"); });
    QVERIFY(e.has_value());
    QCOMPARE(e->kind(), as::QueryError::Kind::several);

    // The connection is still good after every failure.
    QCOMPARE(q.run("SELECT 7").rows.size(), std::size_t{1});
  }

  void writes_settings_transactions_and_attach_are_refused() {
    const QByteArray before = digest(file_);
    QVERIFY(!before.isEmpty());
    {
      const as::RecordingQuery q(file_);
      const auto refused = [&](const char* sql, as::QueryError::Kind kind) {
        const auto e = query_error_of([&] { q.run(sql); });
        if (!e) {
          qWarning("not refused: %s", sql);
          return false;
        }
        if (e->kind() != kind) qWarning("%s: %s", sql, e->what());
        return e->kind() == kind;
      };
      using K = as::QueryError::Kind;
      QVERIFY(refused("DELETE FROM events", K::not_read_only));
      QVERIFY(refused("UPDATE sessions SET scenario = 'changed'", K::not_read_only));
      QVERIFY(refused("INSERT INTO meta (key, value) VALUES ('x', 'y')", K::not_read_only));
      QVERIFY(refused("CREATE TABLE extra (x)", K::not_read_only));
      QVERIFY(refused("CREATE TEMP TABLE extra (x)", K::not_read_only));
      QVERIFY(refused("DROP TABLE events", K::not_read_only));
      QVERIFY(refused("ALTER TABLE events ADD COLUMN extra", K::not_read_only));
      QVERIFY(refused("VACUUM", K::not_read_only));
      QVERIFY(refused("PRAGMA journal_mode = DELETE", K::not_read_only));
      QVERIFY(refused("PRAGMA query_only = OFF", K::not_read_only));
      QVERIFY(refused("PRAGMA user_version = 3", K::not_read_only));
      QVERIFY(refused("BEGIN", K::not_allowed));
      QVERIFY(refused("SAVEPOINT s", K::not_allowed));
      const std::string attach = "ATTACH DATABASE '" + path_in(dir_, "other.db").string() + "' AS other";
      QVERIFY(refused(attach.c_str(), K::not_allowed));
      QVERIFY(refused("SELECT 1; DELETE FROM events", K::several));
      // What the refusal says: why, and what to do instead.
      const auto e = query_error_of([&] { q.run("DELETE FROM events"); });
      QVERIFY(e && std::string(e->what()).find("SELECT") != std::string::npos);
      // Nothing was changed, and reading still works.
      const as::QueryResult r = q.run("SELECT count(*) FROM events WHERE kind = 'failed'");
      QCOMPARE(int_at(r, 0, 0), 1);
      QVERIFY(!std::filesystem::exists(path_in(dir_, "other.db")));
    }
    QCOMPARE(digest(file_), before);
    // No journal, log or shared-memory file was left beside it either.
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      std::filesystem::path companion = file_;
      companion += suffix;
      QVERIFY2(!std::filesystem::exists(companion), companion.c_str());
    }
  }

  void rows_stop_at_the_limit_and_the_result_says_so() {
    const as::RecordingQuery q(file_);
    const char* kMany =
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 25000) SELECT i FROM n";
    const as::QueryResult r = q.run(kMany);
    QCOMPARE(r.rows.size(), std::size_t{10'000});  // the default limit
    QVERIFY(r.truncated);
    QCOMPARE(int_at(r, 9'999, 0), 10'000);

    const as::QueryResult few = q.run(kMany, {.max_rows = 5});
    QCOMPARE(few.rows.size(), std::size_t{5});
    QVERIFY(few.truncated);

    const as::QueryResult exact =
        q.run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT i FROM n",
              {.max_rows = 5});
    QCOMPARE(exact.rows.size(), std::size_t{5});
    QVERIFY(!exact.truncated);
  }

  void a_runaway_query_is_stopped_at_its_deadline() {
    const as::RecordingQuery q(file_);
    // Endless, and returning nothing until its end: only the deadline stops it.
    const auto e = query_error_of([&] {
      q.run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n",
            {.timeout = 200ms});
    });
    QVERIFY(e.has_value());
    QCOMPARE(e->kind(), as::QueryError::Kind::timed_out);
    QCOMPARE(q.run("SELECT 1").rows.size(), std::size_t{1});
  }

  void a_running_query_is_cancelled_from_another_thread() {
    const as::RecordingQuery q(file_);
    std::atomic<bool> cancel{false};
    std::atomic<bool> started{false};
    std::optional<as::QueryError> error;
    std::thread runner([&] {
      started = true;
      error = query_error_of([&] {
        // Endless; the two-minute deadline is beyond any test timeout: only the cancel ends it in time.
        q.run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n",
              {.timeout = std::chrono::minutes(2), .cancel = &cancel});
      });
    });
    // Set before or after the statement starts, the flag stops it.
    while (!started) std::this_thread::yield();
    cancel = true;
    runner.join();
    QVERIFY(error.has_value());
    QCOMPARE(error->kind(), as::QueryError::Kind::interrupted);
    // The flag belongs to that run: the next one (without it) runs.
    QCOMPARE(q.run("SELECT 1").rows.size(), std::size_t{1});
  }

  void a_file_that_is_not_a_recording_is_a_recording_error() {
    const auto missing = error_of([&] { as::RecordingQuery q(path_in(dir_, "missing.db")); });
    QVERIFY(missing.has_value());
    QCOMPARE(missing->kind(), as::RecordingError::Kind::cannot_open);
    const auto text = path_in(dir_, "notes.txt");
    {
      std::ofstream out(text);
      out << "not a database, just some words long enough to have a header's worth of bytes in it.\n";
    }
    const auto not_sqlite = error_of([&] { as::RecordingQuery q(text); });
    QVERIFY(not_sqlite.has_value());
    QCOMPARE(not_sqlite->kind(), as::RecordingError::Kind::not_sqlite);
  }

  void a_recording_still_being_written_can_be_queried() {
    const auto file = path_in(dir_, "live.db");
    as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 5ms});
    as::System sys(as::make_runtime("asio", {.threads = 2}));
    sys.attach(rec);
    Probe probe;
    auto counter = sys.spawn<TickCounter>(TickCounter{.probe = &probe}, {.name = "counter"}).value();
    (void)counter.cast(1);
    QVERIFY(probe.wait_for(sys, "tick"));
    const auto handled = [&](const as::RecordingQuery& q) {
      return int_at(q.run("SELECT count(*) FROM events WHERE kind = 'message_handled'"), 0, 0);
    };
    const as::RecordingQuery q(file);
    // The recorder commits every few milliseconds: wait for the first message to be in the file.
    QVERIFY(QTest::qWaitFor([&] { return handled(q) >= 1; }, 20'000));
    for (int i = 0; i < 10; ++i) (void)counter.cast(i);
    QVERIFY(probe.wait_count(sys, "tick", 11));
    // The same connection sees later commits: it holds no snapshot between runs.
    QVERIFY(QTest::qWaitFor([&] { return handled(q) >= 11; }, 20'000));
    QVERIFY(counter.stop_and_wait(kTimeout));
  }

  void the_example_queries_are_the_pages_and_all_run() {
    const auto& examples = as::example_queries();
    // The page's block, read here independently: every statement ends a line with ';'.
    QFile doc(QStringLiteral(ACTORSCOPE_SOURCE_DIR "/docs/RECORDING-FORMAT.md"));
    QVERIFY(doc.open(QIODevice::ReadOnly | QIODevice::Text));
    const QString page = QString::fromUtf8(doc.readAll());
    const qsizetype section = page.indexOf(QStringLiteral("# Querying recordings with sqlite3"));
    QVERIFY(section >= 0);
    const qsizetype open = page.indexOf(QStringLiteral("```sql\n"), section);
    const qsizetype close = page.indexOf(QStringLiteral("```"), open + 7);
    const QString block = page.mid(open + 7, close - open - 7);
    const qsizetype statements = block.count(QStringLiteral(";\n"));
    QVERIFY(statements >= 8);
    QCOMPARE(static_cast<qsizetype>(examples.size()), statements);

    const as::RecordingQuery q(file_);
    for (const as::ExampleQuery& e : examples) {
      QVERIFY2(!e.title.empty(), e.sql.c_str());
      QVERIFY2(block.contains(QString::fromStdString(e.sql)), e.sql.c_str());
      try {
        const as::QueryResult r = q.run(e.sql);
        QVERIFY2(!r.columns.empty(), e.title.c_str());
      } catch (const as::QueryError& err) {
        QFAIL(qPrintable(QStringLiteral("%1: %2").arg(QString::fromStdString(e.title), QString::fromUtf8(err.what()))));
      }
    }
    // The failures example finds the workload's one failure.
    const auto failures = std::find_if(examples.begin(), examples.end(),
                                       [](const as::ExampleQuery& e) { return e.title.starts_with("Failures"); });
    QVERIFY(failures != examples.end());
    QCOMPARE(q.run(failures->sql).rows.size(), std::size_t{1});
  }

  void examples_are_moved_to_another_session() {
    QCOMPARE(as::for_session("SELECT * FROM events WHERE session_id = 1 AND s.session_id = 1", 12),
             std::string("SELECT * FROM events WHERE session_id = 12 AND s.session_id = 12"));
    // Only the whole number 1.
    QCOMPARE(as::for_session("WHERE session_id = 10", 3), std::string("WHERE session_id = 10"));
    QCOMPARE(as::for_session("WHERE session_id = 1", 1), std::string("WHERE session_id = 1"));
  }
};

QTEST_GUILESS_MAIN(TestQuery)
#include "tst_query.moc"
