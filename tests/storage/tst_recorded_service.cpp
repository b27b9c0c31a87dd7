// examples/recorded_service, end to end as a user runs it: it records itself into the file named on
// its command line, that file can be read (and queried) while the service still writes it, Ctrl+C
// (SIGINT) ends it cleanly, and the recording holds its failures with their whole chain of causes.
// `--seconds N` ends it by itself. Waits are for events (the process, the file's content) with
// generous deadlines, never for a time.
#include "recording_test.hpp"

#include <actorscope/storage/query.hpp>

#include <QProcess>

#include <signal.h>

using namespace recording_test;

namespace {

/// Failed events recorded in `file` so far, or -1 while it is not a readable recording yet.
std::int64_t failures_in(const std::filesystem::path& file) {
  try {
    const as::RecordingQuery q(file);
    const as::QueryResult r = q.run("SELECT count(*) FROM events WHERE kind = 'failed'");
    return std::get<std::int64_t>(r.rows.at(0).at(0));
  } catch (const std::exception&) {
    return -1;  // not created yet, or its schema not committed yet
  }
}

}  // namespace

class TestRecordedService : public QObject {
  Q_OBJECT

 private slots:
  void it_records_until_ctrl_c_and_the_file_explains_its_failures() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "service.db");
    QProcess service;
    service.setProgram(QStringLiteral(EXAMPLE_RECORDED_SERVICE));
    service.setArguments({QStringLiteral("--seconds"), QStringLiteral("600"), QString::fromStdString(file.string())});
    service.start();
    QVERIFY(service.waitForStarted(30'000));

    // Read while it writes: the first failure (the 7th order) shows up in the file.
    QVERIFY2(QTest::qWaitFor([&] { return failures_in(file) >= 1; }, 60'000),
             service.readAllStandardError().constData());
    QCOMPARE(service.state(), QProcess::Running);

    // Ctrl+C: it stops the service, ends the session and exits 0.
    QCOMPARE(::kill(static_cast<pid_t>(service.processId()), SIGINT), 0);
    QVERIFY(service.waitForFinished(60'000));
    QCOMPARE(service.exitStatus(), QProcess::NormalExit);
    QCOMPARE(service.exitCode(), 0);
    const QString out = QString::fromUtf8(service.readAllStandardOutput());
    QVERIFY2(out.contains(QStringLiteral("actorscope ") + QString::fromStdString(file.string())), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("Stopped by a signal")), qPrintable(out));

    const as::SessionReader reader(file);
    const auto sessions = reader.sessions();
    QCOMPARE(sessions.size(), std::size_t{1});
    QVERIFY(sessions[0].ended_cleanly());
    QCOMPARE(sessions[0].detail, as::Detail::full);
    QCOMPARE(sessions[0].scenario, std::string("recorded_service"));

    // The first failed worker's chain: its order came from the dispatcher, which the gateway sent it
    // while handling a tick of its timer (from outside any actor).
    const auto actors = reader.actors(sessions[0].id);
    const auto failed = std::find_if(actors.begin(), actors.end(), [](const as::ActorInfo& a) {
      return a.exit_kind == as::ExitKind::failed;
    });
    QVERIFY(failed != actors.end());
    QVERIFY2(failed->exit_reason.find("negative quantity") != std::string::npos, failed->exit_reason.c_str());
    const as::CauseChain chain = reader.cause_chain(sessions[0].id, failed->id);
    QVERIFY2(chain.hops.size() == 3, chain.explanation.c_str());
    QCOMPARE(chain.end, as::CauseChain::End::outside);
    const auto name_of = [&](as::ActorId id) {
      const auto a = std::find_if(actors.begin(), actors.end(), [&](const as::ActorInfo& x) { return x.id == id; });
      return a == actors.end() ? std::string() : a->name;
    };
    QCOMPARE(name_of(chain.hops[0].handled.actor).substr(0, 7), std::string("worker-"));
    QCOMPARE(name_of(chain.hops[1].handled.actor), std::string("dispatcher"));
    QCOMPARE(name_of(chain.hops[2].handled.actor), std::string("gateway"));
    // The worker was restarted in its slot: another actor of the same name came after it.
    const auto same_name = std::count_if(actors.begin(), actors.end(),
                                         [&](const as::ActorInfo& a) { return a.name == failed->name; });
    QVERIFY(same_name >= 2);
  }

  void seconds_ends_it_by_itself() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "short.db");
    QProcess service;
    service.start(QStringLiteral(EXAMPLE_RECORDED_SERVICE),
                  {QStringLiteral("--seconds"), QStringLiteral("1"), QStringLiteral("--detail"), QStringLiteral("sampled"),
                   QString::fromStdString(file.string())});
    QVERIFY(service.waitForFinished(120'000));
    QCOMPARE(service.exitCode(), 0);
    QVERIFY(QString::fromUtf8(service.readAllStandardOutput()).contains(QStringLiteral("Time is up")));
    const as::SessionReader reader(file);
    QCOMPARE(reader.sessions().size(), std::size_t{1});
    QVERIFY(reader.sessions()[0].ended_cleanly());
    QCOMPARE(reader.sessions()[0].detail, as::Detail::sampled);
    QVERIFY(reader.sessions()[0].events_recorded > 0);
  }

  void a_bad_command_line_says_what_is_wrong() {
    QProcess service;
    service.start(QStringLiteral(EXAMPLE_RECORDED_SERVICE), {QStringLiteral("--seconds"), QStringLiteral("soon")});
    QVERIFY(service.waitForFinished(60'000));
    QCOMPARE(service.exitCode(), 2);
    const QString err = QString::fromUtf8(service.readAllStandardError());
    QVERIFY2(err.contains(QStringLiteral("--seconds takes a positive whole number")), qPrintable(err));
  }
};

QTEST_GUILESS_MAIN(TestRecordedService)
#include "tst_recorded_service.moc"
