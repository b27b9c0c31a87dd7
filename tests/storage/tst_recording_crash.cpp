// Crash safety: a recording process killed with SIGKILL in the middle of a session loses at most
// its last unflushed batch. The file still opens, checks out, says the session ended uncleanly,
// replays, exports, and takes a new session.
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#ifndef Q_MOC_RUN
#include <actorscope/storage/chrome_trace.hpp>
#include <actorscope/storage/recorder.hpp>
#include <actorscope/storage/session_reader.hpp>
#include <actorscope/system.hpp>

#include <chrono>
#include <sstream>
#endif

class TestRecordingCrash : public QObject {
  Q_OBJECT

 private slots:
  void a_recording_killed_mid_session_opens_and_says_it_ended_uncleanly() {
    QTemporaryDir dir;
    const std::string file = dir.filePath("killed.db").toStdString();
    QProcess p;
    p.start(QStringLiteral(ACTORSCOPE_BINARY), {"record", "--scenario", "pipeline", "--detail", "full", "--seconds",
                                                "3600", "--out", QString::fromStdString(file)});
    QVERIFY(p.waitForStarted(30000));

    // Wait for evidence of several committed batches, polling the file with a generous deadline.
    std::uint64_t seen = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (seen < 2000 && std::chrono::steady_clock::now() < deadline) {
      if (p.waitForFinished(25)) break;  // the pause between polls; also notices an early exit
      try {
        const actorscope::SessionReader r(file, {.busy_timeout = std::chrono::milliseconds(50)});
        const auto sessions = r.sessions();
        if (!sessions.empty()) seen = sessions.front().events_recorded;
      } catch (const actorscope::RecordingError&) {  // not created yet, or between writes
      }
    }
    QVERIFY2(p.state() == QProcess::Running,
             qPrintable("the recorder exited early:\n" + QString::fromUtf8(p.readAllStandardError())));
    QVERIFY2(seen >= 2000, qPrintable(QString("only %1 events were recorded before the deadline").arg(seen)));
    p.kill();  // SIGKILL: no destructor, no last batch
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::CrashExit);

    const actorscope::SessionReader r(file);
    r.verify();
    const auto sessions = r.sessions();
    QCOMPARE(sessions.size(), 1u);
    const actorscope::SessionInfo s = sessions.front();
    QVERIFY(!s.ended_cleanly());
    QVERIFY2(s.events_recorded >= seen, "committed batches were lost");
    // The session row and the events were committed together: they agree.
    QCOMPARE(r.events(s.id).size(), s.events_recorded);
    const auto end = r.state_at(s.id, actorscope::TimePoint::max());
    QCOMPARE(end.events_applied(), s.events_recorded);
    QVERIFY(end.actor({0, 1}) != nullptr);
    QCOMPARE(end.actor({0, 1})->name, std::string("pipeline"));
    QVERIFY(end.alive_count() > 0);  // nobody saw them stop
    std::ostringstream json;
    QVERIFY(actorscope::write_chrome_trace(r, s.id, json).slices > 0);

    // The file takes a new session, and keeps the old one as it was.
    {
      actorscope::Recorder rec(file);
      actorscope::System sys{actorscope::make_runtime("asio", {.threads = 1})};
      sys.attach(rec);
    }
    const actorscope::SessionReader after(file);
    const auto both = after.sessions();
    QCOMPARE(both.size(), 2u);
    QVERIFY(!both[0].ended_cleanly());
    QCOMPARE(both[0].events_recorded, s.events_recorded);
    QVERIFY(both[1].ended_cleanly());
  }
};

QTEST_GUILESS_MAIN(TestRecordingCrash)
#include "tst_recording_crash.moc"
