// Factories in recordings (formats 7 and 8): a session with a real factory records its configuration
// and its statistics (factory_stats), retries included, and reads back to the state the recorder
// folded live (from a keyframe and from the start); a format-6 recording opens read-only unchanged,
// without factories, and is migrated (the empty table made) when a session is added to it; a
// format-7 recording (no retries column) likewise, with no retries. Every runtime.
#include <QTest>

#include "recording_test.hpp"
#include "sqlite_test.hpp"

#include <actorscope/factory.hpp>

#include <stdexcept>
#include <string>

using namespace recording_test;
namespace obs = actorscope::observe;

namespace {

std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Records "done" for each job, after failing the first run of each job whose message is negative.
struct FailsOnce {
  using Key = int;
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::WorkerContext<FailsOnce>&, as::Job<int, int> job, std::monostate&) {
    const std::string failed = "failed " + std::to_string(job.key);
    if (job.message < 0 && probe->count(failed) == 0) {
      probe->record(failed);
      throw std::runtime_error("job " + std::to_string(job.key) + " fails once");
    }
    probe->record("done");
  }
};

/// A factory of two workers takes `jobs` jobs and runs them, then stops; returns its id. With
/// `retrying`, every third job fails once and is retried (FailsOnce).
as::ActorId run_factory(as::System& sys, int jobs, bool retrying = false) {
  Probe probe;
  as::FactorySpec<FailsOnce> spec{.workers = 2, .routing = as::Routing::queuer};
  spec.builder = [&probe](as::WorkerId) { return FailsOnce{&probe}; };
  auto pool = as::start_factory<FailsOnce>(sys, spec);
  if (!pool) {
    QTest::qFail("start_factory failed", __FILE__, __LINE__);
    return {};
  }
  for (int i = 0; i < jobs; ++i) {
    const bool fails = retrying && i % 3 == 0;
    (void)pool->dispatch(i, fails ? -1 : i, as::JobOptions{.retry = as::RetryStrategy::count(fails ? 1 : 0)});
  }
  if (!probe.wait_count(sys, "done", static_cast<std::size_t>(jobs))) {
    QTest::qFail("the jobs did not all run", __FILE__, __LINE__);
    return {};
  }
  // Every worker's report of its last job has reached the factory once none is active.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (pool->active_workers(kTimeout).get().value_or(1) != 0 && std::chrono::steady_clock::now() < deadline) {
  }
  const as::ActorId id = pool->id();
  if (!pool->stop_and_wait(kTimeout)) QTest::qFail("the factory did not stop", __FILE__, __LINE__);
  return id;
}

/// Records a session into `file` (made, or appended to) in which a factory runs `jobs` jobs, as
/// run_factory does; returns the factory's id.
as::ActorId record_factory(const std::filesystem::path& file, int jobs, bool retrying = false) {
  as::Recorder rec(file, {.detail = as::Detail::lifecycle, .stats_interval = 2ms});
  auto sys = make_system();
  sys->attach(rec);
  const as::ActorId id = run_factory(*sys, jobs, retrying);
  sys->shutdown();
  if (!sys->detach(rec)) QTest::qFail("the recorder was not attached to the end", __FILE__, __LINE__);
  return id;
}

/// What a session's factory samples add up to.
as::FactoryCounters factory_totals(const as::SessionReader& r, std::int64_t session) {
  as::FactoryCounters sum;
  for (const obs::FactorySample& s : r.factory_stats(session)) sum.add(s);
  return sum;
}

}  // namespace

class TestFactoryRecording : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void a_session_with_a_factory_reads_back_to_the_live_fold() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "factory.db");
    as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 2ms, .keyframe_every = 16});
    auto sys = make_system();
    sys->attach(rec);
    const as::ActorId factory = run_factory(*sys, 20);
    if (QTest::currentTestFailed()) return;
    sys->shutdown();
    QVERIFY(sys->detach(rec));
    const as::Recorder::Progress p = rec.progress();
    QVERIFY2(!p.error, p.error ? p.error->c_str() : "");
    const obs::SystemState live = rec.state();

    // The live fold has the factory: its configuration, and every job (its final counters came
    // with the poll after it ended).
    const obs::FactoryRecord* f = live.factory(factory);
    QVERIFY(f != nullptr);
    QCOMPARE(f->routing, std::string("queuer"));
    QCOMPARE(f->pool_size, 2u);
    QCOMPARE(f->dispatched, 20u);
    QCOMPARE(f->completed, 20u);
    QCOMPARE(f->discarded_total(), 0u);
    QCOMPARE(f->latency().count(), 20u);
    QVERIFY(!f->history.empty());
    QCOMPARE(live.events_of(obs::EventKind::factory_configured), 1u);
    // Its workers are its children.
    QCOMPARE(live.actor(factory)->children.size(), 2u);

    const as::SessionReader r(file);
    QCOMPARE(r.format_version(), as::kRecordingFormatVersion);
    const std::int64_t session = r.sessions().front().id;
    QVERIFY(r.state_at(session, as::TimePoint::max()) == live);
    QVERIFY(r.state_at(session, as::TimePoint::max(), {.use_keyframes = false}) == live);
    // The rows themselves add up to the same totals.
    for (const obs::FactorySample& s : r.factory_stats(session)) QCOMPARE(s.factory, factory);
    const as::FactoryCounters sum = factory_totals(r, session);
    QCOMPARE(sum.completed, 20u);
    QCOMPARE(sum.latency_buckets, f->latency_buckets);

    // Every place in between replays as the prefix walk does (the timeline's way).
    obs::SystemState walked;
    as::SessionReader::FoldPoint point;
    const as::SessionInfo info = r.session(session);
    (void)r.prefix_at(session, info.start_time, walked, point);
    for (const obs::FactorySample& s : r.factory_stats(session)) {
      obs::SystemState at = walked;
      r.fold_rest(session, at, point, s.end);
      QVERIFY(at == r.state_at(session, s.end));
      (void)r.advance(session, walked, point, s.end);
    }
  }

  void a_factory_that_retries_jobs_records_how_many_it_retried() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "retries.db");
    as::Recorder rec(file, {.detail = as::Detail::lifecycle, .stats_interval = 2ms, .keyframe_every = 4});
    auto sys = make_system();
    sys->attach(rec);
    const as::ActorId factory = run_factory(*sys, 12, true);  // jobs 0, 3, 6 and 9 fail once
    if (QTest::currentTestFailed()) return;
    sys->shutdown();
    QVERIFY(sys->detach(rec));
    const obs::SystemState live = rec.state();
    const obs::FactoryRecord* f = live.factory(factory);
    QVERIFY(f != nullptr);
    QCOMPARE(f->retried, 4u);
    QCOMPARE(f->worker_restarts, 4u);
    QCOMPARE(f->completed, 12u);

    const as::SessionReader r(file);
    const std::int64_t session = r.sessions().front().id;
    QCOMPARE(factory_totals(r, session).retried, 4u);
    QVERIFY(r.state_at(session, as::TimePoint::max()) == live);
    QVERIFY(r.state_at(session, as::TimePoint::max(), {.use_keyframes = false}) == live);
  }

  void a_format_7_recording_opens_unchanged_without_retries_and_is_migrated_when_a_session_is_added() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "format7.db");
    const as::ActorId first = record_factory(file, 6);
    if (QTest::currentTestFailed()) return;
    {  // What format 7 was: factory_stats without `retried` (and no keyframes: their images are
       // this build's, which a format-7 build would not have written).
      Sqlite db(file);
      QVERIFY(db.exec("ALTER TABLE factory_stats DROP COLUMN retried; DELETE FROM keyframes; "
                      "UPDATE meta SET value = '7' WHERE key = 'format_version'"));
    }
    const std::string before = read_bytes(file);
    {
      const as::SessionReader r(file);
      QCOMPARE(r.format_version(), 7);
      r.verify();
      const std::int64_t session = r.sessions().front().id;
      const as::FactoryCounters sum = factory_totals(r, session);
      QCOMPARE(sum.completed, 6u);
      QCOMPARE(sum.retried, 0u);
      const obs::SystemState st = r.state_at(session, as::TimePoint::max());
      QVERIFY(st.factory(first) != nullptr);
      QCOMPARE(st.factory(first)->completed, 6u);
    }
    QVERIFY2(read_bytes(file) == before, "reading a format-7 recording changed it");
    (void)record_factory(file, 6, true);  // (appends) jobs 0 and 3 fail once
    if (QTest::currentTestFailed()) return;
    const as::SessionReader r(file);
    QCOMPARE(r.format_version(), as::kRecordingFormatVersion);
    r.verify();
    QCOMPARE(r.sessions().size(), 2u);
    QCOMPARE(factory_totals(r, r.sessions().front().id).completed, 6u);
    QCOMPARE(factory_totals(r, r.sessions().front().id).retried, 0u);
    QCOMPARE(factory_totals(r, r.sessions().back().id).retried, 2u);
  }

  void a_format_6_recording_opens_unchanged_and_is_migrated_when_a_session_is_added() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "format6.db");
    {
      as::Recorder rec(file, {.detail = as::Detail::sampled, .stats_interval = 2ms});
      auto sys = make_system();
      sys->attach(rec);
      WorkloadResult w;
      run_workload(*sys, w, 3, 10, 20);
      if (QTest::currentTestFailed()) return;
      sys->shutdown();
      QVERIFY(sys->detach(rec));
    }
    {  // What format 6 was: no factory_stats.
      Sqlite db(file);
      QVERIFY(db.exec("DROP TABLE factory_stats; UPDATE meta SET value = '6' WHERE key = 'format_version'"));
    }
    const std::string before = read_bytes(file);
    {
      const as::SessionReader r(file);
      QCOMPARE(r.format_version(), 6);
      r.verify();
      const std::int64_t session = r.sessions().front().id;
      QVERIFY(r.factory_stats(session).empty());
      const obs::SystemState st = r.state_at(session, as::TimePoint::max());
      QVERIFY(st.events_applied() > 0);
      QVERIFY(st.factories().empty());
      QVERIFY(st == r.state_at(session, as::TimePoint::max(), {.use_keyframes = false}));
    }
    QVERIFY2(read_bytes(file) == before, "reading a format-6 recording changed it");
    (void)record_factory(file, 5);  // (appends)
    if (QTest::currentTestFailed()) return;
    const as::SessionReader r(file);
    QCOMPARE(r.format_version(), as::kRecordingFormatVersion);
    r.verify();
    QCOMPARE(r.sessions().size(), 2u);
    QVERIFY(r.factory_stats(r.sessions().front().id).empty());
    QCOMPARE(factory_totals(r, r.sessions().back().id).completed, 5u);
  }
};

QTEST_GUILESS_MAIN(TestFactoryRecording)
#include "tst_factory_recording.moc"
