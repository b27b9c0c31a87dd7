// `actorscope diff` end to end, through the real executable, on recordings made here: a recording
// compared with itself shows no difference; a worker that failed more in B is the first row; two
// unrelated workloads still compare and say how many actors matched; every bad file (missing, not
// SQLite, another program's database, newer, truncated, locked, no such session) exits 1 with a
// message naming it, on either side; usage mistakes exit 2; --json holds every column and never
// replaces a file unless --force, and never a recording.
#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#ifndef Q_MOC_RUN
#include "cli_run.hpp"
#include "recording_test.hpp"
#include "sqlite_test.hpp"

#include <actorscope/storage/recording_diff.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#endif

namespace {

using namespace recording_test;
using namespace cli_run;

/// The table's first data row (the line after the header line that starts with "actor").
QString first_row(const QString& out) {
  const QStringList lines = out.split('\n');
  for (int i = 0; i + 1 < lines.size(); ++i)
    if (lines[i].startsWith("actor ")) return lines[i + 1];
  return {};
}

/// Records a small supervised workload: "root" with four named workers. worker-1 gets the most
/// work, then fails `crashes` times, replaced under root after each failure (a restart).
void record_team(const std::filesystem::path& file, int crashes, const char* root_name = "root",
                 as::observe::SystemState::Limits limits = {}) {
  as::Recorder rec(file,
                   {.detail = as::Detail::full, .stats_interval = 5ms, .keyframe_every = 200, .limits = limits});
  as::System sys{as::make_runtime("asio", {.threads = 2})};
  sys.attach(rec);
  auto root = sys.spawn<Tolerant>({.name = root_name}).value();
  std::vector<as::ActorRef<WorkerMsg>> ws;
  for (int i = 0; i < 4; ++i)
    ws.push_back(sys.spawn_linked<Worker>(root, {.name = "worker-" + std::to_string(i)}).value());
  for (int i = 0; i < 4; ++i)
    for (int n = 0; n < (i == 1 ? 200 : 20); ++n) (void)ws[static_cast<std::size_t>(i)].cast(Add{1});
  for (auto& w : ws) QCOMPARE_GE(w.call(as::rpc<Total>, kTimeout).get().value_or(-1), 0);
  for (int c = 0; c < crashes; ++c) {
    (void)ws[1].cast(Crash{});
    QVERIFY(ws[1].wait(kTimeout));
    if (c + 1 < crashes) ws[1] = sys.spawn_linked<Worker>(root, {.name = "worker-1"}).value();
  }
  QVERIFY(ws[2].stop_and_wait(kTimeout));
}

}  // namespace

class TestDiffCli : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::filesystem::path once_, thrice_, other_;
  QString file(const char* name) const { return dir_.filePath(QString::fromUtf8(name)); }
  static QString q(const std::filesystem::path& p) { return QString::fromStdString(p.string()); }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    once_ = path_in(dir_, "once.db");
    thrice_ = path_in(dir_, "thrice.db");
    other_ = path_in(dir_, "other.db");
    record_team(once_, 1);
    QVERIFY(!QTest::currentTestFailed());
    record_team(thrice_, 3);
    QVERIFY(!QTest::currentTestFailed());
    record_team(other_, 1, "boss");
    QVERIFY(!QTest::currentTestFailed());
  }

  void a_recording_compared_with_itself_shows_no_difference() {
    const QByteArray before = checksum(q(once_));
    const Run r = run_actorscope({"diff", q(once_), q(once_)});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY2(r.out.contains("5 actors matched, 0 only in A, 0 only in B; no differences"), qPrintable(r.out));
    QVERIFY2(r.out.contains("root/worker-1"), qPrintable(r.out));
    // Every ratio is 1.00 or "—": no row differs.
    for (const QString& line : r.out.split('\n')) {
      if (!line.startsWith("root")) continue;
      const QStringList words = line.split(' ', Qt::SkipEmptyParts);
      QCOMPARE(words.size(), 12);  // path, 3 x (A, B, B/A), failed, restarts
      for (int i : {3, 6, 9}) QVERIFY2(words[i] == "1.00" || words[i] == "—", qPrintable(line));
    }
    QCOMPARE(checksum(q(once_)), before);  // a recording is never written to
  }

  void a_worker_that_failed_more_is_the_first_row() {
    const Run r = run_actorscope({"diff", q(once_), q(thrice_)});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    const QString row = first_row(r.out);
    QVERIFY2(row.startsWith("root/worker-1 "), qPrintable(r.out));
    QVERIFY2(row.contains("1→3") && row.contains("0→2"), qPrintable(row));  // failed, restarts
    QVERIFY2(r.out.contains("5 actors matched, 0 only in A, 0 only in B"), qPrintable(r.out));
    QVERIFY2(r.out.contains("failed 1 → 3, restarts 0 → 2"), qPrintable(r.out));
    // The other way round, it is first too.
    const Run back = run_actorscope({"diff", q(thrice_), q(once_)});
    QVERIFY2(first_row(back.out).startsWith("root/worker-1 "), qPrintable(back.out));
  }

  void two_sessions_of_one_file_compare_with_two_session_options() {
    const auto both = path_in(dir_, "both.db");
    std::filesystem::copy_file(once_, both);
    record_team(both, 3);  // appended as session 2
    QVERIFY(!QTest::currentTestFailed());
    const Run r = run_actorscope({"diff", q(both), q(both), "--session", "1", "--session", "2"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY2(first_row(r.out).startsWith("root/worker-1 "), qPrintable(r.out));
    QVERIFY2(r.out.contains("session 1") && r.out.contains("session 2"), qPrintable(r.out));
    const Run one = run_actorscope({"diff", q(both), q(both), "--session", "2"});
    QVERIFY2(one.code == 0 && one.out.contains("no differences"), qPrintable(describe(one)));
  }

  void unrelated_workloads_still_compare_and_say_how_many_actors_matched() {
    const Run r = run_actorscope({"diff", q(once_), q(other_)});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    // "root" and "boss" differ, and so does every path under them: the workers match by name.
    QVERIFY2(r.out.contains("4 actors matched, 1 only in A, 1 only in B"), qPrintable(r.out));
    QVERIFY2(r.out.contains("Only in A (1):\n  root ") && r.out.contains("Only in B (1):\n  boss "), qPrintable(r.out));
  }

  void actors_the_final_state_forgot_still_count_from_the_statistics() {
    // Keyframes that keep one stopped actor: the final state forgets the others.
    const auto forgetful = path_in(dir_, "forgetful.db");
    record_team(forgetful, 3, "root", {.stopped_actors = 1});
    QVERIFY(!QTest::currentTestFailed());
    const as::SessionReader reader(forgetful);
    const as::DiffSide side = as::read_diff_side(reader, 1);
    QVERIFY2(side.pruned >= 2, qPrintable(QString::number(side.pruned)));
    std::uint64_t handled = 0, exact = 0;
    for (const auto& f : side.figures) handled += f.handled;
    for (const auto& s : reader.stats(1)) exact += s.handled;
    QCOMPARE(handled, exact);
    // And it compares with a state that forgot nothing as the same work.
    const Run r = run_actorscope({"diff", q(thrice_), q(forgetful)});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QVERIFY2(r.out.contains("failed 3 → 3, restarts 2 → 2"), qPrintable(r.out));
    QVERIFY2(r.out.contains("stopped actors were no longer in the final state"), qPrintable(r.out));
  }

  void a_bad_file_on_either_side_exits_1_naming_it_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing") << "missing" << "no such file";
    QTest::newRow("not sqlite") << "junk" << "not an SQLite database";
    QTest::newRow("another program's database") << "foreign" << "not an Actorscope recording";
    QTest::newRow("newer format") << "newer" << "format 99";
    QTest::newRow("truncated") << "cut" << "shorter than its header says";
    QTest::newRow("locked") << "locked" << "locked by another program";
    QTest::newRow("no such session") << "session" << "has no session 9";
  }
  void a_bad_file_on_either_side_exits_1_naming_it() {
    QFETCH(QString, kind);
    QFETCH(QString, message);
    const auto bad = path_in(dir_, qPrintable("bad-" + kind + ".db"));
    std::filesystem::remove(bad);
    std::optional<Sqlite> holder;
    QStringList extra;
    if (kind == "junk") {
      std::ofstream out(bad, std::ios::binary);
      for (int i = 0; i < 5000; ++i) out << static_cast<char>(i * 7919 % 251);
    } else if (kind == "foreign") {
      Sqlite db(bad);
      QVERIFY(db.exec("CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES ('hello');"));
    } else if (kind == "newer") {
      std::filesystem::copy_file(once_, bad);
      Sqlite db(bad);
      QVERIFY(db.exec("UPDATE meta SET value = '99' WHERE key = 'format_version'"));
    } else if (kind == "cut") {
      std::ifstream in(once_, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::ofstream(bad, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    } else if (kind == "locked") {
      std::filesystem::copy_file(once_, bad);
      holder.emplace(bad);
      QVERIFY(holder->exec("BEGIN EXCLUSIVE"));
    } else if (kind == "session") {
      std::filesystem::copy_file(once_, bad);
      extra = {"--session", "9"};  // B's session; A's is 1 (below)
    }
    const QString bad_name = q(bad);
    for (const bool bad_is_b : {false, true}) {
      QStringList args{"diff"};
      args << (bad_is_b ? q(once_) : bad_name) << (bad_is_b ? bad_name : q(once_));
      if (!extra.isEmpty()) args << (bad_is_b ? QStringList{"--session", "1"} + extra : extra + QStringList{"--session", "1"});
      const Run r = run_actorscope(args);
      QVERIFY2(r.code == 1, qPrintable(describe(r)));
      QVERIFY2(r.err.contains(bad_name) && r.err.contains(message, Qt::CaseInsensitive), qPrintable(r.err));
      QVERIFY2(r.out.isEmpty(), qPrintable(r.out));  // no half report
    }
    if (holder) QVERIFY(holder->exec("COMMIT"));
    if (kind == "missing") QVERIFY(!std::filesystem::exists(bad));  // not created by the attempt
  }

  void usage_mistakes_exit_2_with_what_to_do_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no file") << QStringList{"diff"} << "give two recordings";
    QTest::newRow("one file") << QStringList{"diff", "a.db"} << "give two recordings";
    QTest::newRow("three files") << QStringList{"diff", "a.db", "b.db", "c.db"} << "one argument too many";
    QTest::newRow("unknown option") << QStringList{"diff", "a.db", "b.db", "--colour"} << "unknown option --colour";
    QTest::newRow("three sessions") << QStringList{"diff", "a.db", "b.db", "--session", "1", "--session", "2",
                                                   "--session", "3"}
                                    << "--session is given 3 times";
    QTest::newRow("bad session") << QStringList{"diff", "a.db", "b.db", "--session", "x"} << "session number";
    QTest::newRow("session without value") << QStringList{"diff", "a.db", "b.db", "--session"} << "needs a value";
  }
  void usage_mistakes_exit_2_with_what_to_do() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = run_actorscope(args);
    QVERIFY2(r.code == 2, qPrintable(describe(r)));
    QVERIFY2(r.err.contains(message) && r.err.contains("actorscope diff --help"), qPrintable(r.err));
  }

  void json_holds_every_column_of_both_sides() {
    const QString json = file("diff.json");
    const Run r = run_actorscope({"diff", q(once_), q(thrice_), "--json", json});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonObject o = doc.object();
    QCOMPARE(o["format"].toString(), QString("actorscope-diff/1"));
    QCOMPARE(o["matched"].toInt(), 5);
    QCOMPARE(o["only_in_a"].toInt(), 0);
    QCOMPARE(o["a"].toObject()["failures"].toInt(), 1);
    QCOMPARE(o["b"].toObject()["failures"].toInt(), 3);
    QCOMPARE(o["b"].toObject()["restarts"].toInt(), 2);
    QCOMPARE(o["a"].toObject()["file"].toString(), q(once_));
    const QJsonArray rows = o["rows"].toArray();
    QCOMPARE(rows.size(), 5);
    const QJsonObject top = rows[0].toObject();
    QCOMPARE(top["path"].toString(), QString("root/worker-1"));
    QCOMPARE(top["difference"].toString(), QString("infinite"));
    const QJsonObject cols = top["columns"].toObject();
    for (const char* c : {"handled", "rate", "queue_p50_ns", "queue_p99_ns", "handling_p50_ns", "handling_p99_ns",
                          "peak_mailbox", "failures", "restarts"})
      QVERIFY2(cols.contains(c), c);
    QCOMPARE(cols["failures"].toObject()["a"].toInt(), 1);
    QCOMPARE(cols["failures"].toObject()["b"].toInt(), 3);
    QCOMPARE(cols["failures"].toObject()["ratio"].toDouble(), 3.0);
    QCOMPARE(cols["restarts"].toObject()["ratio"].toString(), QString("new"));
    QVERIFY(cols["queue_p99_ns"].toObject()["a"].toDouble() > 0);  // full detail: every message timed
    QVERIFY(cols["handled"].toObject()["a"].toInt() >= 200);
  }

  void json_never_replaces_a_file_unless_forced_and_never_a_recording() {
    const QString json = file("kept.json");
    {
      QFile f(json);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("my notes\n");
    }
    const QByteArray before = checksum(json);
    const Run refused = run_actorscope({"diff", q(once_), q(thrice_), "--json", json});
    QVERIFY2(refused.code == 2, qPrintable(describe(refused)));
    QVERIFY2(refused.err.contains("already exists") && refused.err.contains("--force"), qPrintable(refused.err));
    QCOMPARE(checksum(json), before);

    const Run forced = run_actorscope({"diff", q(once_), q(thrice_), "--json", json, "--force"});
    QVERIFY2(forced.code == 0, qPrintable(describe(forced)));
    QVERIFY(checksum(json) != before);

    const QByteArray recording = checksum(q(thrice_));
    for (const QString& target : {q(thrice_), q(thrice_) + "-wal"}) {
      const Run r = run_actorscope({"diff", q(once_), q(thrice_), "--json", target, "--force"});
      QVERIFY2(r.code == 2, qPrintable(describe(r)));
      QVERIFY2(r.err.contains("would destroy it"), qPrintable(r.err));
    }
    QCOMPARE(checksum(q(thrice_)), recording);
    QVERIFY(!QFile::exists(q(thrice_) + "-wal"));
  }
};

QTEST_GUILESS_MAIN(TestDiffCli)
#include "tst_diff_cli.moc"
