// The recording commands end to end, through the real `actorscope` executable: every scenario
// records and inspects on both runtimes, exports to trace JSON, existing files are refused or
// appended to or replaced as asked, usage mistakes exit 2 and bad files exit 1, each with a
// message that says what to do. A command that refuses, or a mistaken one, leaves every file of
// the user's byte for byte as it was (checked by checksum), with no SQLite file left beside it.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.hpp"

#ifndef Q_MOC_RUN
#include <actorscope/storage/session_reader.hpp>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#endif

namespace {

using namespace cli_run;

/// The files SQLite keeps beside `db` while it is open (a WAL, its index, a rollback journal).
QStringList side_files(const QString& db) {
  QStringList found;
  for (const char* suffix : {"-wal", "-shm", "-journal"})
    if (QFileInfo::exists(db + suffix)) found << db + suffix;
  return found;
}

/// Runs SQL on `db` as another program would, with a connection of the test's own.
bool sqlite_exec(const QString& db, const char* sql) {
  sqlite3* h = nullptr;
  bool ok = sqlite3_open(db.toUtf8().constData(), &h) == SQLITE_OK &&
            sqlite3_exec(h, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(h);
  return ok;
}

}  // namespace

class TestRecordCli : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString file(const char* name) const { return dir_.filePath(QString::fromUtf8(name)); }

 private slots:
  void scenarios_lists_every_built_in_scenario() {
    const Run r = run_actorscope({"scenarios"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    for (const char* name : {"supervision", "pipeline", "groups", "timers", "storm", "factory"})
      QVERIFY2(r.out.contains(name), qPrintable(r.out));
  }

  void every_scenario_records_and_inspects_on_both_runtimes_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("runtime");
    for (const char* s : {"supervision", "pipeline", "groups", "timers", "storm", "factory"})
      for (const char* rt : {"asio", "qt"})
        QTest::newRow(qPrintable(QString("%1 on %2").arg(s, rt))) << s << rt;
  }
  void every_scenario_records_and_inspects_on_both_runtimes() {
    QFETCH(QString, scenario);
    QFETCH(QString, runtime);
    const QString db = file(qPrintable(scenario + "-" + runtime + ".db"));
    const Run rec = run_actorscope({"record", "--scenario", scenario, "--runtime", runtime, "--seconds",
                                    "0.5", "--detail", "full", "--seed", "7", "--out", db});
    QVERIFY2(rec.code == 0, qPrintable(describe(rec)));
    QVERIFY2(rec.out.contains(QString("session 1: %1 on %2").arg(scenario, runtime)), qPrintable(rec.out));
    QVERIFY2(rec.err.contains("recording:"), qPrintable(rec.err));  // progress on stderr

    const Run ins = run_actorscope({"inspect", db});
    QVERIFY2(ins.code == 0, qPrintable(describe(ins)));
    QVERIFY2(ins.out.contains("ended       cleanly"), qPrintable(ins.out));
    QVERIFY2(ins.out.contains("message_handled"), qPrintable(ins.out));
    // What each scenario is about shows up in its events.
    if (scenario == "groups")
      QVERIFY2(ins.out.contains("group_joined") && ins.out.contains("group_left"), qPrintable(ins.out));
    if (scenario == "timers")
      QVERIFY2(ins.out.contains("timer_fired") && ins.out.contains("timer_cancelled"), qPrintable(ins.out));
    if (scenario == "supervision" || scenario == "storm")
      QVERIFY2(ins.out.contains("supervision_delivered"), qPrintable(ins.out));
    if (scenario == "factory")
      QVERIFY2(ins.out.contains("factory_configured"), qPrintable(ins.out));
    // The pipeline's bounded stage is counted among the mailboxes; the others have none.
    QCOMPARE(ins.out.contains("mailboxes   1 bounded"), scenario == "pipeline");
    // A factory's jobs are summarised ("factories N; jobs done N; discarded N (...); stuck N;
    // retried N"); a scenario without a factory has no such line.
    QCOMPARE(ins.out.contains("factories   "), scenario == "factory");
    if (scenario == "factory")
      QVERIFY2(ins.out.contains("; jobs done ") && ins.out.contains("; stuck ") && ins.out.contains("; retried "),
               qPrintable(ins.out));

    const actorscope::SessionReader reader(db.toStdString());
    const auto s = reader.sessions().front();
    QCOMPARE(s.scenario, scenario.toStdString());
    QCOMPARE(s.runtime, runtime.toStdString());
    QCOMPARE(s.seed, std::optional<std::uint64_t>(7));
    QVERIFY(s.events_recorded > 0);
    QVERIFY(reader.actors(s.id).size() >= 3);

    const QString json = file(qPrintable(scenario + "-" + runtime + ".json"));
    const Run exp = run_actorscope({"export", db, "--format", "chrome-trace", "--out", json});
    QVERIFY2(exp.code == 0, qPrintable(describe(exp)));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
    QVERIFY(doc.isObject());
    QVERIFY(!doc.object().value("traceEvents").toArray().isEmpty());
  }

  void an_existing_file_is_refused_unless_appended_to_or_replaced() {
    const QString db = file("twice.db");
    const QStringList base = {"record", "--scenario", "storm", "--seconds", "0.2", "--out", db};
    QVERIFY2(run_actorscope(base).code == 0, "first recording");
    const Run again = run_actorscope(base);
    QCOMPARE(again.code, 2);
    QVERIFY2(again.err.contains("already exists; use --force to replace it, --append to add"),
             qPrintable(again.err));
    const Run appended = run_actorscope(base + QStringList{"--append"});
    QVERIFY2(appended.code == 0, qPrintable(describe(appended)));
    QVERIFY2(appended.out.contains("session 2: storm"), qPrintable(appended.out));
    QCOMPARE(actorscope::SessionReader(db.toStdString()).sessions().size(), 2u);
    const Run replaced = run_actorscope(base + QStringList{"--force", "--detail", "lifecycle"});
    QVERIFY2(replaced.code == 0, qPrintable(describe(replaced)));
    const auto sessions = actorscope::SessionReader(db.toStdString()).sessions();
    QCOMPARE(sessions.size(), 1u);
    QCOMPARE(sessions.front().detail, actorscope::Detail::lifecycle);
    const Run exp = run_actorscope({"export", db, "--out", file("twice.json")});
    QVERIFY2(exp.code == 0, qPrintable(describe(exp)));
    const Run exp2 = run_actorscope({"export", db, "--out", file("twice.json")});
    QCOMPARE(exp2.code, 2);
    QVERIFY2(exp2.err.contains("already exists; use --force"), qPrintable(exp2.err));
  }

  void usage_mistakes_exit_2_with_a_message_that_says_what_to_do_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString out = file("never.db");
    QTest::newRow("no scenario")
        << QStringList{"record", "--out", out}
        << "--scenario is required; the scenarios are: supervision, pipeline, groups, timers, storm, factory";
    QTest::newRow("unknown scenario") << QStringList{"record", "--scenario", "tornado", "--out", out}
                                      << "there is no scenario \"tornado\"; the scenarios are: supervision, "
                                         "pipeline, groups, timers, storm, factory";
    QTest::newRow("no out") << QStringList{"record", "--scenario", "storm"} << "--out is required";
    QTest::newRow("manual runtime") << QStringList{"record", "--scenario", "storm", "--runtime",
                                                   "manual", "--out",      out}
                                    << "--runtime must be asio or qt, not \"manual\"";
    QTest::newRow("unknown runtime") << QStringList{"record", "--scenario", "storm", "--runtime",
                                                    "tokio",  "--out",      out}
                                     << "--runtime must be asio or qt";
    QTest::newRow("bad detail") << QStringList{"record",     "--scenario", "storm", "--detail",
                                               "everything", "--out",      out}
                                << "--detail must be lifecycle, sampled or full";
    QTest::newRow("bad seconds") << QStringList{"record", "--scenario", "storm", "--seconds",
                                                "-3",     "--out",      out}
                                 << "--seconds must be a number of seconds";
    QTest::newRow("sampling without sampled")
        << QStringList{"record",         "--scenario", "storm", "--detail", "full",
                       "--sample-every", "5",          "--out", out}
        << "--sample-every only applies to --detail sampled";
    QTest::newRow("append and force")
        << QStringList{"record", "--scenario", "storm", "--append", "--force", "--out", out}
        << "contradict each other";
    QTest::newRow("unknown option") << QStringList{"record", "--scenario", "storm", "--out", out, "--colour"}
                                    << "unknown option --colour";
    QTest::newRow("inspect without file") << QStringList{"inspect"} << "which recording?";
    QTest::newRow("export bad format")
        << QStringList{"export", out, "--format", "svg", "--out", file("x.json")}
        << "--format must be chrome-trace, not \"svg\"";
    QTest::newRow("export without out") << QStringList{"export", out} << "--out is required";
  }
  void usage_mistakes_exit_2_with_a_message_that_says_what_to_do() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = run_actorscope(args);
    QVERIFY2(r.code == 2, qPrintable(describe(r)));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(r.err.contains("--help"), qPrintable(r.err));
    QVERIFY(!QFile::exists(file("never.db")));
  }

  // -- a user's file is never changed by a command that refuses, or by a mistaken one ----------

  void a_refused_append_leaves_the_file_byte_for_byte_as_it_was_data() {
    QTest::addColumn<QString>("sql");      // what damages a fresh recording, or
    QTest::addColumn<QString>("foreign");  // what makes another program's database instead
    QTest::addColumn<QStringList>("message");
    QTest::newRow("another program's database")
        << QString() << "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
        << QStringList{"is an SQLite database but not an Actorscope recording"};
    QTest::newRow("another program's database in WAL mode")
        << QString() << "PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);"
        << QStringList{"is an SQLite database but not an Actorscope recording"};
    QTest::newRow("a recording whose events table was dropped")
        << "DROP TABLE events;" << QString() << QStringList{"is damaged", "its events table is missing"};
    QTest::newRow("a recording that lost a column")
        << "ALTER TABLE actors DROP COLUMN exit_reason;" << QString()
        << QStringList{"is damaged", "its actors table has no exit_reason column"};
    QTest::newRow("a recording of a newer format")
        << "UPDATE meta SET value = '99' WHERE key = 'format_version';" << QString()
        << QStringList{"format 99", "open it with a newer Actorscope"};
  }
  void a_refused_append_leaves_the_file_byte_for_byte_as_it_was() {
    QFETCH(QString, sql);
    QFETCH(QString, foreign);
    QFETCH(QStringList, message);
    const QString db = file(qPrintable("append-" + QString(QTest::currentDataTag()).replace(' ', '-') + ".db"));
    if (foreign.isEmpty()) {
      const Run made = run_actorscope({"record", "--scenario", "storm", "--seconds", "0.2", "--out", db});
      QVERIFY2(made.code == 0, qPrintable(describe(made)));
      QVERIFY(sqlite_exec(db, sql.toUtf8().constData()));
    } else {
      QVERIFY(sqlite_exec(db, foreign.toUtf8().constData()));
    }
    QCOMPARE(side_files(db), QStringList());
    const QByteArray before = checksum(db);
    QVERIFY(!before.isEmpty());

    const Run r = run_actorscope({"record", "--scenario", "pipeline", "--seconds", "0.3", "--append", "--out", db});
    QVERIFY2(r.code == 1, qPrintable(describe(r)));
    QCOMPARE(checksum(db), before);
    QCOMPARE(side_files(db), QStringList());
    for (const QString& words : message) QVERIFY2(r.err.contains(words), qPrintable(r.err));
    QVERIFY2(r.err.contains(db) && r.err.contains("the file was left as it was"), qPrintable(r.err));
  }

  void export_never_writes_over_the_recording_it_reads_data() {
    QTest::addColumn<QString>("out");  // relative to the folder of rec.db, where the command runs
    QTest::addColumn<bool>("force");
    QTest::addColumn<QString>("what");
    for (const bool force : {false, true}) {
      const char* with = force ? " with --force" : "";
      QTest::newRow(qPrintable(QString("the same name%1").arg(with))) << "rec.db" << force << "is the recording being exported";
      QTest::newRow(qPrintable(QString("the same file spelled ./rec.db%1").arg(with)))
          << "./rec.db" << force << "is the recording being exported";
      QTest::newRow(qPrintable(QString("a hard link to it%1").arg(with)))
          << "hard.db" << force << "is the recording being exported (\"rec.db\" under another name)";
      QTest::newRow(qPrintable(QString("a symbolic link to it%1").arg(with)))
          << "sym.db" << force << "is the recording being exported (\"rec.db\" under another name)";
      QTest::newRow(qPrintable(QString("its write-ahead log's name%1").arg(with)))
          << "rec.db-wal" << force << "is the write-ahead log of the recording being exported";
    }
  }
  void export_never_writes_over_the_recording_it_reads() {
    QFETCH(QString, out);
    QFETCH(bool, force);
    QFETCH(QString, what);
    QTemporaryDir here;
    const QString db = here.filePath("rec.db");
    const Run made = run_actorscope({"record", "--scenario", "storm", "--seconds", "0.2", "--out", db});
    QVERIFY2(made.code == 0, qPrintable(describe(made)));
    std::error_code ec;
    std::filesystem::create_hard_link(db.toStdString(), here.filePath("hard.db").toStdString(), ec);
    QVERIFY2(!ec, ec.message().c_str());
    std::filesystem::create_symlink("rec.db", here.filePath("sym.db").toStdString(), ec);
    QVERIFY2(!ec, ec.message().c_str());
    const QStringList files_before = QDir(here.path()).entryList(QDir::Files | QDir::System);
    const QByteArray before = checksum(db);

    QStringList args{"export", "rec.db", "--format", "chrome-trace", "--out", out};
    if (force) args << "--force";
    const Run r = run_actorscope(args, here.path());
    QCOMPARE(checksum(db), before);
    QCOMPARE(QDir(here.path()).entryList(QDir::Files | QDir::System), files_before);  // nothing written beside it
    QVERIFY2(r.code == 2, qPrintable(describe(r)));
    QVERIFY2(r.err.contains("--out \"" + out + "\" " + what), qPrintable(r.err));
    QVERIFY2(r.err.contains("with or without --force; choose another --out, e.g. rec.json"), qPrintable(r.err));
    QCOMPARE(actorscope::SessionReader(db.toStdString()).sessions().size(), 1u);
  }

  void export_to_a_folder_says_it_is_a_folder_data() {
    QTest::addColumn<bool>("force");
    QTest::newRow("without --force") << false;
    QTest::newRow("with --force") << true;
  }
  void export_to_a_folder_says_it_is_a_folder() {
    QFETCH(bool, force);
    QTemporaryDir here;
    const QString db = here.filePath("rec.db");
    const Run made = run_actorscope({"record", "--scenario", "storm", "--seconds", "0.2", "--out", db});
    QVERIFY2(made.code == 0, qPrintable(describe(made)));
    QVERIFY(QDir(here.path()).mkdir("traces"));
    const QByteArray before = checksum(db);
    QStringList args{"export", db, "--out", here.filePath("traces")};
    if (force) args << "--force";
    const Run r = run_actorscope(args);
    QVERIFY2(r.code == 2, qPrintable(describe(r)));
    QVERIFY2(r.err.contains("--out \"" + here.filePath("traces") + "\" is a folder; give the trace a file name, e.g. " +
                            here.filePath("traces/rec.json")),
             qPrintable(r.err));
    QVERIFY(QFileInfo(here.filePath("traces")).isDir());
    QCOMPARE(QDir(here.filePath("traces")).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
    QCOMPARE(QDir(here.path()).entryList(QDir::Files), QStringList{"rec.db"});
    QCOMPARE(checksum(db), before);
  }

  // -- every argument is used or refused ---------------------------------------------------------

  void inspect_summarises_every_file_it_is_given() {
    const QString a = file("inspect-a.db"), b = file("inspect-b.db"), missing = file("inspect-missing.db");
    for (const QString& db : {a, b}) {
      const Run made = run_actorscope({"record", "--scenario", "storm", "--seconds", "0.2", "--out", db});
      QVERIFY2(made.code == 0, qPrintable(describe(made)));
    }
    const QByteArray before_a = checksum(a), before_b = checksum(b);

    const Run both = run_actorscope({"inspect", a, b});
    QVERIFY2(both.code == 0, qPrintable(describe(both)));
    QVERIFY2(both.out.contains(a + ": Actorscope recording") && both.out.contains(b + ": Actorscope recording"),
             qPrintable(both.out));
    QCOMPARE(both.out.count("session 1: storm"), 2);

    // A file that cannot be read is reported, the others are still summarised, and the exit code says so.
    const Run partly = run_actorscope({"inspect", a, missing, b});
    QCOMPARE(partly.code, 1);
    QVERIFY2(partly.out.contains(a + ": Actorscope recording") && partly.out.contains(b + ": Actorscope recording"),
             qPrintable(partly.out));
    QVERIFY2(partly.err.contains("cannot open \"" + missing + "\": there is no such file"), qPrintable(partly.err));
    QVERIFY2(partly.err.contains("1 of 3 files could not be read"), qPrintable(partly.err));
    QCOMPARE(checksum(a), before_a);
    QCOMPARE(checksum(b), before_b);
  }

  void every_command_refuses_an_argument_it_does_not_take_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString out = file("extra.db");
    QTest::newRow("scenarios") << QStringList{"scenarios", "storm"}
                               << "unexpected argument \"storm\": scenarios takes only options";
    QTest::newRow("runtimes") << QStringList{"runtimes", "asio"}
                              << "unexpected argument \"asio\": runtimes takes only options";
    QTest::newRow("help") << QStringList{"help", "record", "export"}
                          << "\"export\" is one argument too many: help takes one command name";
    QTest::newRow("record") << QStringList{"record", "--scenario", "storm", "--out", out, "pipeline"}
                            << "unexpected argument \"pipeline\": record takes only options";
    QTest::newRow("export") << QStringList{"export", file("a.db"), file("b.db"), "--out", file("extra.json")}
                            << "\"" + file("b.db") + "\" is one argument too many: export takes one recording";
    QTest::newRow("inspect --session") << QStringList{"inspect", "--session", "1", file("a.db"), file("b.db")}
                                       << "--session picks a session of one recording, but 2 files are given";
    QTest::newRow("bench") << QStringList{"bench", "--list", "quiescent"}
                           << "unexpected argument \"quiescent\": bench takes only options";
    // A file name opens a recording now; a live session's choices with it are refused.
    QTest::newRow("the observatory") << QStringList{"--scenario", "storm", "session.db"}
                                     << "--scenario, --runtime and --threads choose a live session; a recording "
                                        "replays what it recorded";
  }
  void every_command_refuses_an_argument_it_does_not_take() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = run_actorscope(args);
    QVERIFY2(r.code == 2, qPrintable(describe(r)));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(r.err.contains("--help"), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
    QVERIFY(!QFile::exists(file("extra.db")));
    QVERIFY(!QFile::exists(file("extra.json")));
  }

  void bench_json_replaces_an_earlier_report_and_nothing_else_data() {
    QTest::addColumn<QString>("what");  // recording, notes, folder or report
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("a recording") << "recording" << 2
                                 << "exists and is not a report of 'actorscope bench', so it is not replaced";
    QTest::newRow("another file") << "notes" << 2
                                  << "exists and is not a report of 'actorscope bench', so it is not replaced";
    QTest::newRow("a folder") << "folder" << 2 << "is a folder; give a file name, e.g. ";
    QTest::newRow("an earlier report") << "report" << 0 << QString();
  }
  void bench_json_replaces_an_earlier_report_and_nothing_else() {
    QFETCH(QString, what);
    QFETCH(int, code);
    QFETCH(QString, message);
    QTemporaryDir here;
    const QString target = here.filePath(what == "folder" ? "out" : "out.json");
    const QStringList bench{"bench", "--filter", "^Creation of 100 actors$", "--runtime", "asio", "--samples", "1",
                            "--warm-up-ms", "0", "--no-history", "--json", target};
    if (what == "recording") {
      const Run made = run_actorscope({"record", "--scenario", "storm", "--seconds", "0.2", "--out", target});
      QVERIFY2(made.code == 0, qPrintable(describe(made)));
    } else if (what == "notes") {
      std::ofstream(target.toStdString()) << "my notes, not a report\n";
    } else if (what == "folder") {
      QVERIFY(QDir(here.path()).mkdir("out"));
    } else {
      const Run first = run_actorscope(bench);
      QVERIFY2(first.code == 0, qPrintable(describe(first)));
    }
    const QByteArray before = checksum(target);

    const Run r = run_actorscope(bench);
    if (code == 0) {  // replaced by the new report
      QVERIFY2(r.code == 0, qPrintable(describe(r)));
      QFile f(target);
      QVERIFY(f.open(QIODevice::ReadOnly));
      QCOMPARE(QJsonDocument::fromJson(f.readAll()).object().value("format").toString().left(17),
               QString("actorscope-bench/"));
      return;
    }
    QCOMPARE(checksum(target), before);
    QVERIFY2(r.code == code, qPrintable(describe(r)));
    QVERIFY2(r.err.contains("--json \"" + target + "\" " + message), qPrintable(r.err));
    QVERIFY2(!r.err.contains("[1/"), qPrintable(r.err));  // refused before anything ran
  }

  void a_bad_file_makes_inspect_and_export_exit_1_with_the_reason() {
    const QString junk = file("junk.db");
    {
      std::ofstream out(junk.toStdString(), std::ios::binary);
      for (int i = 0; i < 5000; ++i) out << static_cast<char>(i * 7919 % 251);
    }
    const Run ins = run_actorscope({"inspect", junk});
    QCOMPARE(ins.code, 1);
    QVERIFY2(ins.err.contains(junk) && ins.err.contains("not an SQLite database"), qPrintable(ins.err));
    const Run missing = run_actorscope({"inspect", file("missing.db")});
    QCOMPARE(missing.code, 1);
    QVERIFY2(missing.err.contains("no such file"), qPrintable(missing.err));
    const Run exp = run_actorscope({"export", junk, "--out", file("junk.json")});
    QCOMPARE(exp.code, 1);
    QVERIFY(!QFile::exists(file("junk.json")));
    QVERIFY(QDir(dir_.path()).entryList({"junk.json*"}).isEmpty());  // no half-written file either
  }
};

QTEST_GUILESS_MAIN(TestRecordCli)
#include "tst_record_cli.moc"
