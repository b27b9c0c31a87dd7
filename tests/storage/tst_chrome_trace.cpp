// Chrome trace export: the JSON parses, names a process per runtime thread and a track per actor,
// has a slice per handled message with its handling time, a flow (s then f, same id) from each
// send to its handling, instants for lifecycle and for a Supervisor's events (their fields as args),
// and survives names that need escaping.
#include "recording_test.hpp"

#include <actorscope/storage/chrome_trace.hpp>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <map>
#include <set>
#include <sstream>

using namespace recording_test;
namespace obs = as::observe;

namespace {

QJsonDocument parse(const std::string& text) {
  QJsonParseError err{};
  QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &err);
  if (err.error != QJsonParseError::NoError) qWarning() << "JSON error at" << err.offset << err.errorString();
  return doc;
}

}  // namespace

class TestChromeTrace : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() {
    QTest::addColumn<QString>("runtime");
    QTest::newRow("asio") << QStringLiteral("asio");
    QTest::newRow("qt") << QStringLiteral("qt");
  }

  void a_recorded_session_exports_slices_flows_instants_and_named_tracks() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "trace.db");
    WorkloadResult w;
    std::uint32_t threads = 0;
    {
      as::Recorder rec(file, {.detail = as::Detail::full});
      auto sys = make_system(3);
      threads = sys->runtime().thread_count();
      sys->attach(rec);
      run_workload(*sys, w, 4, 10, 40);
      if (QTest::currentTestFailed()) return;
    }
    const as::SessionReader r(file);
    const as::SessionInfo s = r.sessions().front();
    const auto counts = r.event_counts(s.id);
    std::ostringstream out;
    const as::ChromeTraceSummary sum = as::write_chrome_trace(r, s.id, out);

    const QJsonDocument doc = parse(out.str());
    QVERIFY(doc.isObject());
    const QJsonArray events = doc.object().value("traceEvents").toArray();
    QVERIFY(!events.isEmpty());
    QCOMPARE(doc.object().value("otherData").toObject().value("runtime").toString(),
             QString::fromStdString(current_runtime()));

    std::map<QString, int> by_ph;
    std::map<std::pair<int, int>, QString> track_names;  // (pid, tid) -> name
    std::map<int, QString> process_names;
    std::map<qint64, QJsonObject> flow_starts, flow_ends;
    std::size_t handled_slices = 0, failed_slices = 0;
    for (const QJsonValue& v : events) {
      const QJsonObject e = v.toObject();
      const QString ph = e.value("ph").toString();
      ++by_ph[ph];
      QVERIFY(e.contains("pid") && e.contains("tid"));
      if (ph == "M" && e.value("name") == "thread_name")
        track_names[{e.value("pid").toInt(), e.value("tid").toInt()}] =
            e.value("args").toObject().value("name").toString();
      if (ph == "M" && e.value("name") == "process_name")
        process_names[e.value("pid").toInt()] = e.value("args").toObject().value("name").toString();
      if (ph == "X" && e.value("cat") == "message") {
        ++handled_slices;
        QVERIFY(e.value("dur").toDouble() >= 0);
        QVERIFY(e.value("ts").isDouble());
        QVERIFY(e.value("args").toObject().contains("handle_ns"));
        if (e.value("args").toObject().value("outcome") == "failed") ++failed_slices;
        // Every slice sits on a named actor track.
        QVERIFY(track_names.count({e.value("pid").toInt(), e.value("tid").toInt()}) == 1);
      }
      if (ph == "s") flow_starts[e.value("id").toInteger()] = e;
      if (ph == "f") {
        QCOMPARE(e.value("bp").toString(), QString("e"));
        flow_ends[e.value("id").toInteger()] = e;
      }
    }
    QCOMPARE(handled_slices, counts[static_cast<std::size_t>(obs::EventKind::message_handled)]);
    QCOMPARE(handled_slices, sum.slices);
    QCOMPARE(failed_slices, 1u);  // the crash
    QCOMPARE(std::size_t(by_ph["i"]), sum.instants);
    QCOMPARE(sum.instants, s.events_recorded -
                               counts[static_cast<std::size_t>(obs::EventKind::message_handled)] -
                               counts[static_cast<std::size_t>(obs::EventKind::message_sent)]);

    // Every send that was handled has its arrow: a start and a finish with the same id, the
    // start no later than the finish.
    QCOMPARE(flow_starts.size(), flow_ends.size());
    QCOMPARE(flow_starts.size(), sum.flows);
    QVERIFY(sum.flows >= counts[static_cast<std::size_t>(obs::EventKind::message_handled)] - 1);
    for (const auto& [id, start] : flow_starts) {
      QVERIFY(flow_ends.count(id) == 1);
      const double sent_us = start.value("ts").toDouble(), handled_us = flow_ends[id].value("ts").toDouble();
      QVERIFY2(sent_us <= handled_us + 0.001, qPrintable(QString("flow %1: sent at %2 us, handled from %3 us")
                                                             .arg(id).arg(sent_us, 0, 'f', 3).arg(handled_us, 0, 'f', 3)));
    }

    // Tracks: every actor has one, named after it, in the process of its runtime thread.
    for (const as::ActorInfo& a : r.actors(s.id)) {
      const int pid = static_cast<int>(a.thread) + 1;
      const auto it = track_names.find({pid, static_cast<int>(a.id.pid)});
      QVERIFY2(it != track_names.end(), qPrintable(QString::fromStdString(a.id.to_string())));
      if (!a.name.empty()) QVERIFY(it->second.startsWith(QString::fromStdString(a.name)));
      QVERIFY(process_names.count(pid) == 1);
    }
    QCOMPARE(sum.tracks, r.actors(s.id).size());
    if (current_runtime() == "asio") {
      QCOMPARE(process_names[1], QString("asio pool (%1 threads)").arg(threads));
    } else {
      // The qt runtime pins actors to threads, spread over the workers; every actor here ran, so
      // each has its thread, even those whose thread was chosen when they started.
      std::set<int> hosts;
      for (const as::ActorInfo& a : r.actors(s.id)) {
        QVERIFY2(a.thread < threads, qPrintable(QString("actor %1 has thread %2").arg(a.id.pid).arg(a.thread)));
        hosts.insert(static_cast<int>(a.thread));
      }
      QVERIFY(hosts.size() > 1);
      QVERIFY(process_names[*hosts.begin() + 1].startsWith("qt thread "));
    }
  }

  void a_supervisors_restarts_and_surrender_are_instants_on_their_tracks_with_their_fields() {
    QFETCH_GLOBAL(QString, runtime);
    if (runtime != "asio") return;  // (hand-built events on the manual runtime: one run is enough)
    QTemporaryDir dir;
    const auto file = path_in(dir, "supervisor.db");
    (void)record_supervisor(file);
    if (QTest::currentTestFailed()) return;
    const as::SessionReader r(file);
    std::ostringstream json;
    (void)as::write_chrome_trace(r, r.sessions().front().id, json);
    const QJsonDocument doc = parse(json.str());
    QVERIFY(doc.isObject());
    QJsonObject restarted, gave_up, configured;
    for (const QJsonValue& v : doc.object().value("traceEvents").toArray()) {
      const QJsonObject e = v.toObject();
      if (e.value("cat") != "supervision") continue;
      QCOMPARE(e.value("ph").toString(), QString("i"));
      QCOMPARE(e.value("s").toString(), QString("t"));
      const QString name = e.value("name").toString();
      if (name == "child_restarted b") restarted = e;
      if (name == "supervisor_gave_up") gave_up = e;
      if (name == "supervisor_configured") configured = e;
    }
    QVERIFY(!restarted.isEmpty() && !gave_up.isEmpty() && !configured.isEmpty());
    // The restart on the new child's track, the surrender and the configuration on the supervisor's.
    QCOMPARE(restarted.value("tid").toInteger(), 3);
    QCOMPARE(gave_up.value("tid").toInteger(), 1);
    QCOMPARE(configured.value("tid").toInteger(), 1);
    const QJsonObject ra = restarted.value("args").toObject();
    QCOMPARE(ra.value("child_id").toString(), QString("b"));
    QCOMPARE(ra.value("reason").toString(), QString("failed: boom"));
    QCOMPARE(ra.value("replaces").toString(), QString("0.2"));
    QCOMPARE(ra.value("attempt").toInteger(), 1);
    QCOMPARE(ra.value("delay_ns").toInteger(), 20'000'000);
    QCOMPARE(ra.value("start_failed").toString(), QString("yes"));
    const QJsonObject ga = gave_up.value("args").toObject();
    QVERIFY(ga.value("reason").toString().contains("max restart intensity"));
    QCOMPARE(ga.value("restarts").toInteger(), 4);
    QCOMPARE(ga.value("period_ns").toInteger(), 5'000'000'000);
    const QJsonObject ca = configured.value("args").toObject();
    QCOMPARE(ca.value("strategy").toString(), QString("one_for_all"));
    QCOMPARE(ca.value("max_restarts").toInteger(), 3);
    QVERIFY(ca.value("specs").toString().startsWith("child\tb\tpermanent"));
  }

  void names_that_need_escaping_survive_as_valid_json() {
    std::string out;
    as::append_json_string(out, "say \"hi\"\n\tback\\slash \x01 caf\xc3\xa9 \xff\xfe bad \xe2\x82 cut");
    const QJsonDocument doc = parse("[" + out + "]");
    QVERIFY(doc.isArray());
    QCOMPARE(doc.array().at(0).toString(),
             QString::fromUtf8("say \"hi\"\n\tback\\slash \x01 caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd bad "
                               "\xef\xbf\xbd\xef\xbf\xbd cut"));

    QFETCH_GLOBAL(QString, runtime);
    if (runtime != "asio") return;
    QTemporaryDir dir;
    const auto file = path_in(dir, "escape.db");
    const std::string odd = "a \"quoted\"\nname \xff";
    {
      as::Recorder rec(file, {.detail = as::Detail::full});
      as::System sys{as::make_runtime("asio", {.threads = 1})};
      sys.attach(rec);
      auto wk = sys.spawn<Worker>({.name = odd}).value();
      QVERIFY(wk.cast(Crash{}));
      QVERIFY(wk.wait(kTimeout));
    }
    const as::SessionReader r(file);
    std::ostringstream json;
    (void)as::write_chrome_trace(r, r.sessions().front().id, json);
    const QJsonDocument doc2 = parse(json.str());
    QVERIFY(doc2.isObject());
    bool found = false;
    for (const QJsonValue& v : doc2.object().value("traceEvents").toArray())
      if (v.toObject().value("name") == "thread_name" &&
          v.toObject().value("args").toObject().value("name").toString().startsWith("a \"quoted\"\nname "))
        found = true;
    QVERIFY(found);
  }
};

QTEST_GUILESS_MAIN(TestChromeTrace)
#include "tst_chrome_trace.moc"
