// The recording commands end to end, through the real `actorscope` executable: every scenario
// records and inspects on both runtimes, exports to trace JSON, existing files are refused or
// appended to or replaced as asked, usage mistakes exit 2 and bad files exit 1, each with a
// message that says what to do.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#ifndef Q_MOC_RUN
#include <actorscope/storage/session_reader.hpp>

#include <filesystem>
#include <fstream>
#endif

namespace {

struct Run {
  int code = -1;
  QString out;
  QString err;
};

/// Runs `actorscope ARGS...` with a generous deadline.
Run run_actorscope(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(ACTORSCOPE_BINARY), args);
  Run r;
  if (!p.waitForStarted(30000) || !p.waitForFinished(120000)) {
    p.kill();
    p.waitForFinished();
    r.err = "did not finish: actorscope " + args.join(' ');
    return r;
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

QString describe(const Run& r) { return QString("exit %1\n--- stdout\n%2\n--- stderr\n%3").arg(r.code).arg(r.out, r.err); }

}  // namespace

class TestRecordCli : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString file(const char* name) const { return dir_.filePath(QString::fromUtf8(name)); }

 private slots:
  void scenarios_lists_every_built_in_scenario() {
    const Run r = run_actorscope({"scenarios"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    for (const char* name : {"supervision", "pipeline", "groups", "timers", "storm"})
      QVERIFY2(r.out.contains(name), qPrintable(r.out));
  }

  void every_scenario_records_and_inspects_on_both_runtimes_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("runtime");
    for (const char* s : {"supervision", "pipeline", "groups", "timers", "storm"})
      for (const char* rt : {"asio", "qt"}) QTest::newRow(qPrintable(QString("%1 on %2").arg(s, rt))) << s << rt;
  }
  void every_scenario_records_and_inspects_on_both_runtimes() {
    QFETCH(QString, scenario);
    QFETCH(QString, runtime);
    const QString db = file(qPrintable(scenario + "-" + runtime + ".db"));
    const Run rec = run_actorscope({"record", "--scenario", scenario, "--runtime", runtime, "--seconds", "0.5",
                                "--detail", "full", "--seed", "7", "--out", db});
    QVERIFY2(rec.code == 0, qPrintable(describe(rec)));
    QVERIFY2(rec.out.contains(QString("session 1: %1 on %2").arg(scenario, runtime)), qPrintable(rec.out));
    QVERIFY2(rec.err.contains("recording:"), qPrintable(rec.err));  // progress on stderr

    const Run ins = run_actorscope({"inspect", db});
    QVERIFY2(ins.code == 0, qPrintable(describe(ins)));
    QVERIFY2(ins.out.contains("ended       cleanly"), qPrintable(ins.out));
    QVERIFY2(ins.out.contains("message_handled"), qPrintable(ins.out));
    // What each scenario is about shows up in its events.
    if (scenario == "groups") QVERIFY2(ins.out.contains("group_joined") && ins.out.contains("group_left"), qPrintable(ins.out));
    if (scenario == "timers") QVERIFY2(ins.out.contains("timer_fired") && ins.out.contains("timer_cancelled"), qPrintable(ins.out));
    if (scenario == "supervision" || scenario == "storm") QVERIFY2(ins.out.contains("supervision_delivered"), qPrintable(ins.out));

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
    QVERIFY2(again.err.contains("already exists; use --force to replace it, --append to add"), qPrintable(again.err));
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
    QTest::newRow("no scenario") << QStringList{"record", "--out", out}
                                 << "--scenario is required; the scenarios are: supervision, pipeline, groups, timers, storm";
    QTest::newRow("unknown scenario") << QStringList{"record", "--scenario", "tornado", "--out", out}
                                      << "there is no scenario \"tornado\"; the scenarios are: supervision, pipeline, groups, timers, storm";
    QTest::newRow("no out") << QStringList{"record", "--scenario", "storm"} << "--out is required";
    QTest::newRow("manual runtime") << QStringList{"record", "--scenario", "storm", "--runtime", "manual", "--out", out}
                                    << "--runtime must be asio or qt, not \"manual\"";
    QTest::newRow("unknown runtime") << QStringList{"record", "--scenario", "storm", "--runtime", "tokio", "--out", out}
                                     << "--runtime must be asio or qt";
    QTest::newRow("bad detail") << QStringList{"record", "--scenario", "storm", "--detail", "everything", "--out", out}
                                << "--detail must be lifecycle, sampled or full";
    QTest::newRow("bad seconds") << QStringList{"record", "--scenario", "storm", "--seconds", "-3", "--out", out}
                                 << "--seconds must be a number of seconds";
    QTest::newRow("sampling without sampled")
        << QStringList{"record", "--scenario", "storm", "--detail", "full", "--sample-every", "5", "--out", out}
        << "--sample-every only applies to --detail sampled";
    QTest::newRow("append and force")
        << QStringList{"record", "--scenario", "storm", "--append", "--force", "--out", out} << "contradict each other";
    QTest::newRow("unknown option") << QStringList{"record", "--scenario", "storm", "--out", out, "--colour"}
                                    << "unknown option --colour";
    QTest::newRow("inspect without file") << QStringList{"inspect"} << "which recording?";
    QTest::newRow("export bad format") << QStringList{"export", out, "--format", "svg", "--out", file("x.json")}
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
    QVERIFY(!QFile::exists(file("junk.json.partial")));
  }
};

QTEST_GUILESS_MAIN(TestRecordCli)
#include "tst_record_cli.moc"
