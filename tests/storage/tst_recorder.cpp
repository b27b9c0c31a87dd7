// The recorder, on every runtime: what a recorded session holds, that replaying it from the file
// gives the state the recorder folded live (from keyframes or from the start, at the end and at any
// time in between), exact statistics whatever the detail level, counted drops, and clean session
// ends whichever of the System and the Recorder goes first.
#include "recording_test.hpp"

#include <sqlite3.h>

using namespace recording_test;
namespace obs = as::observe;

namespace {

/// Counts every event an engine emits, to check "recorded + dropped = emitted".
class CountingObserver final : public obs::Observer {
 public:
  explicit CountingObserver(obs::Interest i) : interest_(i) {}
  obs::Interest interest() const noexcept override { return interest_; }
  void on_event(const obs::Event&) noexcept override { count.fetch_add(1, std::memory_order_relaxed); }
  std::atomic<std::uint64_t> count{0};

 private:
  obs::Interest interest_;
};

struct Counter {
  using Message = int;
  using State = int;
  Probe* probe = nullptr;
  int until = 0;
  int pre_start(as::Context<Counter>&) { return 0; }
  void handle(as::Context<Counter>&, int, int& seen) {
    if (++seen == until) probe->record("counted");
  }
};

/// Forwards every number to the next actor (counting what it handles and sends); the last one
/// tells the probe at every hundredth.
struct Relay {
  using Message = int;
  using State = int;
  Probe* probe = nullptr;
  std::optional<as::ActorRef<int>> next;
  int pre_start(as::Context<Relay>&) { return 0; }
  void handle(as::Context<Relay>&, int n, int& seen) {
    if (next) {
      (void)next->cast(n);
    } else if (++seen % 100 == 0) {
      probe->record("hundred");
    }
  }
};

/// Opened by the test; a handler that waits on it holds its thread as a blocking call would.
class Latch {
 public:
  void open() {
    std::lock_guard lk(m_);
    open_ = true;
    cv_.notify_all();
  }
  void block() {
    std::unique_lock lk(m_);
    cv_.wait_for(lk, std::chrono::minutes(2), [&] { return open_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = false;
};

struct Blocker {
  using Message = int;
  Latch* latch = nullptr;
  Probe* probe = nullptr;
  void handle(as::Context<Blocker>&, int, std::monostate&) {
    probe->record("blocking");
    latch->block();
    probe->record("unblocked");
  }
};

as::Duration longest_busy(const as::SessionReader& r, std::int64_t session, as::ActorId id) {
  as::Duration most{};
  for (const auto& s : r.stats(session))
    if (s.actor == id) most = std::max(most, s.busy);
  return most;
}

std::uint64_t handled_in_stats(const as::SessionReader& r, std::int64_t session, as::ActorId id) {
  std::uint64_t n = 0;
  for (const auto& s : r.stats(session))
    if (s.actor == id) n += s.handled;
  return n;
}

std::uint64_t timed_in_stats(const as::SessionReader& r, std::int64_t session, as::ActorId id) {
  std::uint64_t n = 0;
  for (const auto& s : r.stats(session))
    if (s.actor == id) n += s.timed;
  return n;
}

/// The handling times that the recorded message_handled events of `id` carry, added up.
as::Duration handling_in_events(const as::SessionReader& r, std::int64_t session, as::ActorId id) {
  as::Duration sum{};
  for (const obs::Event& e : r.events(session, {.actors = {id}, .kinds = {obs::EventKind::message_handled}}))
    if (e.actor == id && e.timed) sum += e.handling;
  return sum;
}

/// Times spread over the session: the first event, quartiles, the last.
std::vector<as::TimePoint> times_across(const std::vector<obs::Event>& ev) {
  std::vector<as::TimePoint> out;
  if (ev.empty()) return out;
  for (std::size_t q = 0; q <= 8; ++q) out.push_back(ev[(ev.size() - 1) * q / 8].time);
  out.push_back(ev.front().time - 1ms);
  return out;
}

}  // namespace

class TestRecorder : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void a_recorded_session_replays_to_the_state_the_recorder_folded_live() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "roundtrip.db");
    as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 2ms, .keyframe_every = 64});
    auto sys = make_system();
    sys->attach(rec);
    WorkloadResult w;
    run_workload(*sys, w);
    if (QTest::currentTestFailed()) return;
    sys->shutdown();
    QVERIFY(sys->detach(rec));  // ends the session: the final poll and keyframe are written
    const as::Recorder::Progress p = rec.progress();
    QVERIFY(!p.recording);
    QVERIFY2(!p.error, p.error ? p.error->c_str() : "");
    QCOMPARE(p.events_dropped, 0u);
    const obs::SystemState live = rec.state();

    const as::SessionReader r(file);
    QCOMPARE(r.format_version(), as::kRecordingFormatVersion);
    const auto sessions = r.sessions();
    QCOMPARE(sessions.size(), 1u);
    const as::SessionInfo& s = sessions.front();
    QVERIFY(s.ended_cleanly());
    QCOMPARE(s.runtime, current_runtime());
    QCOMPARE(s.threads, sys->runtime().thread_count());
    QCOMPARE(s.detail, as::Detail::full);
    QCOMPARE(s.events_recorded, live.events_applied());
    QCOMPARE(s.events_recorded, p.events_recorded);
    QCOMPARE(s.events_dropped, 0u);

    // At the end: from the last keyframe, and folded from the start, both equal the live fold.
    QVERIFY(r.state_at(s.id, as::TimePoint::max()) == live);
    QVERIFY(r.state_at(s.id, as::TimePoint::max(), {.use_keyframes = false}) == live);

    // What the workload did is all there.
    const obs::ActorRecord* root = live.actor(w.root);
    QVERIFY(root != nullptr);
    QCOMPARE(root->name, std::string("root"));
    QCOMPARE(root->child_failures, 1u);
    QCOMPARE(live.actor(w.crashed)->exit_kind, std::optional<as::ExitKind>(as::ExitKind::failed));
    QCOMPARE(live.actor(w.stopped)->exit_reason, std::string("enough for today"));
    for (as::ActorId id : w.workers)
      QCOMPARE(live.actor(id)->handled, w.adds_per_worker + (id == w.crashed ? 2 : 1));
    QCOMPARE(live.alive_count(), 0u);
    QCOMPARE(live.events_of(obs::EventKind::group_joined), 3u);
    QVERIFY(live.events_of(obs::EventKind::group_left) >= 1u);  // the leave, then the rest as members stop
    QCOMPARE(live.events_of(obs::EventKind::timer_started), 1u);
    QVERIFY(live.events_of(obs::EventKind::timer_fired) >= 3u);
    QCOMPARE(live.events_of(obs::EventKind::timer_cancelled), 1u);

    // In between: the state at t (keyframe + fold) equals the fold of everything up to t.
    const std::vector<obs::Event> all = r.events(s.id);
    QCOMPARE(all.size(), s.events_recorded);
    for (std::size_t i = 0; i < all.size(); ++i) QCOMPARE(all[i].seq, i + 1);
    for (as::TimePoint t : times_across(all)) {
      const obs::SystemState fast = r.state_at(s.id, t);
      const obs::SystemState slow = r.state_at(s.id, t, {.use_keyframes = false});
      QVERIFY2(fast == slow, qPrintable(QString("at %1 ns").arg(obs::to_ns(t))));
      std::uint64_t upto = 0;
      for (const auto& e : all) upto += e.time <= t ? 1 : 0;
      QCOMPARE(fast.events_applied(), upto);
    }

    // The actors table agrees with the fold.
    const auto actors = r.actors(s.id);
    QCOMPARE(actors.size(), live.actors().size());
    for (const as::ActorInfo& a : actors) {
      const obs::ActorRecord* rec_a = live.actor(a.id);
      QVERIFY(rec_a != nullptr);
      QCOMPARE(a.name, rec_a->name);
      QCOMPARE(a.exit_kind, rec_a->exit_kind);
      QCOMPARE(a.parent, rec_a->parent);
    }
    const auto counts = r.event_counts(s.id);
    for (std::size_t k = 0; k < obs::kEventKindCount; ++k)
      QCOMPARE(counts[k], live.events_of(static_cast<obs::EventKind>(k)));
  }

  // The round trip the replay window stands on: the live fold kept at several moments while the
  // session runs equals what replay gives for those moments, from keyframes and from the start.
  void the_state_replayed_at_a_moment_equals_the_live_state_then() {
    // A moment is found by its time; the manual runtime's clock stands still unless a test moves it,
    // so everything it does happens at one time.
    if (current_runtime() == "manual") QSKIP("moments need a clock that moves: asio and qt only");
    QTemporaryDir dir;
    const auto file = path_in(dir, "moments.db");
    as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 5ms, .keyframe_every = 50});
    auto sys = make_system();
    sys->attach(rec);
    std::vector<obs::SystemState> moments;
    // A moment is taken while the system is quiet: once three more polls are folded, every event
    // emitted before has been folded too (a poll waits two drains), and nothing new comes.
    auto keep_moment = [&] {
      const std::uint64_t polls = rec.progress().stats_polls;
      QTRY_VERIFY_WITH_TIMEOUT(rec.progress().stats_polls >= polls + 3, 30000);
      moments.push_back(rec.state());
    };
    keep_moment();
    WorkloadResult w;
    run_workload(*sys, w);
    if (QTest::currentTestFailed()) return;
    keep_moment();
    {  // more traffic and another failure
      auto extra = sys->spawn<Worker>({.name = "extra"}).value();
      for (int n = 0; n < 50; ++n) (void)extra.cast(Add{2});
      QCOMPARE(extra.call(as::rpc<Total>, kTimeout).get().value_or(-1), 100);
      (void)extra.cast(Crash{});
      QVERIFY(extra.wait(kTimeout));
    }
    keep_moment();
    sys->shutdown();
    QVERIFY(sys->detach(rec));
    moments.push_back(rec.state());

    const as::SessionReader r(file);
    const std::int64_t session = r.sessions().front().id;
    for (std::size_t i = 0; i < moments.size(); ++i) {
      const obs::SystemState& live = moments[i];
      const as::TimePoint t = i + 1 == moments.size() ? as::TimePoint::max() : live.time();
      const obs::SystemState fast = r.state_at(session, t);
      const obs::SystemState slow = r.state_at(session, t, {.use_keyframes = false});
      const QString where = QString("moment %1: %2 events live, %3 replayed, %4 actors live, %5 replayed")
                                .arg(i)
                                .arg(live.events_applied())
                                .arg(fast.events_applied())
                                .arg(live.actors().size())
                                .arg(fast.actors().size());
      QVERIFY2(fast == live, qPrintable(where));
      QVERIFY2(slow == live, qPrintable(where));
    }
    // The moments are different pictures: the test compares something.
    QVERIFY(moments[1].events_applied() > moments[0].events_applied());
    QVERIFY(moments[2].events_applied() > moments[1].events_applied());
    QVERIFY(moments[2].actor(w.crashed)->exit_kind == as::ExitKind::failed);
  }

  // The qt runtime chooses the thread of an actor spawned from outside when the actor starts: the
  // actors table must say that thread even for an actor still running when the session ends.
  void an_actor_still_running_when_the_session_ends_has_its_thread_in_the_actors_table() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "running.db");
    as::Recorder rec(file, {.detail = as::Detail::lifecycle});
    auto sys = make_system();
    sys->attach(rec);
    Probe probe;
    auto counter = sys->spawn(Counter{.probe = &probe, .until = 1}, {}).value();
    QVERIFY(counter.cast(1));
    QVERIFY(probe.wait_for(*sys, "counted"));  // it has started, on its thread
    QVERIFY(sys->detach(rec));                 // ends the session with the actor alive
    const obs::SystemState state = rec.state();  // a copy: keep it while pointing into it
    const obs::ActorRecord* live = state.actor(counter.id());
    QVERIFY(live != nullptr);
    QVERIFY(live->thread < std::max(1u, sys->runtime().thread_count()));
    const as::SessionReader r(file);
    const auto actors = r.actors(r.sessions().front().id);
    QCOMPARE(actors.size(), 1u);
    QCOMPARE(actors.front().thread, live->thread);
  }

  void a_handler_that_holds_its_thread_is_recorded_busy_until_it_returns() {
    if (current_runtime() == "manual") QSKIP("a handler that blocks the manual runtime blocks the test itself");
    QTemporaryDir dir;
    const auto file = path_in(dir, "busy.db");
    Latch latch;
    Probe probe;
    as::Recorder rec(file, {.detail = as::Detail::lifecycle, .stats_interval = 2ms});
    auto sys = make_system();
    sys->attach(rec);
    auto blocker = sys->spawn(Blocker{&latch, &probe}, {.name = "blocker"}).value();
    blocker.cast(1);
    QVERIFY(probe.wait_for(*sys, "blocking"));
    QVERIFY(blocker.stats().in_hook);
    const std::uint64_t runs = blocker.stats().hook_runs;
    // The recorder's polls see the same hook running poll after poll, and write how long it has held
    // the thread. Wait (with a deadline) until a written row says at least 20 ms.
    std::int64_t session = 0;
    as::Duration seen{};
    const auto deadline = std::chrono::steady_clock::now() + kTimeout;
    while (seen < 20ms && std::chrono::steady_clock::now() < deadline) {
      QTest::qWait(5);
      try {
        const as::SessionReader r(file);
        if (r.sessions().empty()) continue;
        session = r.sessions().front().id;
        seen = longest_busy(r, session, blocker.id());
      } catch (const as::RecordingError&) {  // the writer may hold a lock for a moment
      }
    }
    QVERIFY2(seen >= 20ms, "no busy time was recorded for a handler that holds its thread");
    QCOMPARE(blocker.stats().hook_runs, runs);  // still the same hook
    latch.open();
    QVERIFY(probe.wait_for(*sys, "unblocked"));
    sys.reset();
    const as::SessionReader r(file);
    const auto stats = r.stats(session);
    // The last row of the blocker says busy no more, and the replayed state agrees.
    as::Duration last{-1};
    for (const auto& s : stats)
      if (s.actor == blocker.id()) last = s.busy;
    QCOMPARE(last, as::Duration::zero());
    const auto state = r.state_at(session, as::TimePoint::max());
    QVERIFY(state.actor(blocker.id()) != nullptr);
    QCOMPARE(state.actor(blocker.id())->busy, as::Duration::zero());
    QVERIFY(longest_busy(r, session, blocker.id()) >= 20ms);
  }

  void exact_statistics_add_up_whatever_the_detail_level() {
    for (as::Detail detail : {as::Detail::lifecycle, as::Detail::sampled, as::Detail::full}) {
      QTemporaryDir dir;
      const auto file = path_in(dir, "stats.db");
      as::Recorder rec(file, {.detail = detail, .sample_every = 10, .stats_interval = 1ms});
      auto sys = make_system();
      sys->attach(rec);
      Probe probe;
      auto counter =
          sys->spawn<Counter>(Counter{.probe = &probe, .until = 1000}, {.name = "counter"}).value();
      for (int i = 0; i < 1000; ++i) QVERIFY(counter.cast(i));
      QVERIFY(probe.wait_for(*sys, "counted"));
      QVERIFY(counter.stop_and_wait(kTimeout));
      sys.reset();  // the System goes first: the recorder still ends the session with the final counts
      QVERIFY(!rec.progress().recording);

      const as::SessionReader r(file);
      const as::SessionInfo s = r.sessions().back();
      QVERIFY(s.ended_cleanly());
      QCOMPARE(s.detail, detail);
      QCOMPARE(handled_in_stats(r, s.id, counter.id()), 1000u);
      const obs::SystemState end = r.state_at(s.id, as::TimePoint::max());
      QCOMPARE(end.actor(counter.id())->handled, 1000u);
      const auto counts = r.event_counts(s.id);
      const auto handled_events = counts[static_cast<std::size_t>(obs::EventKind::message_handled)];
      switch (detail) {
        case as::Detail::lifecycle:
          QCOMPARE(handled_events, 0u);
          QCOMPARE(s.sample_every, 0u);
          QCOMPARE(end.actor(counter.id())->handling_time, as::Duration::zero());
          QCOMPARE(timed_in_stats(r, s.id, counter.id()), 0u);
          break;
        case as::Detail::sampled:
          QCOMPARE(handled_events, 100u);
          QCOMPARE(s.sample_every, 10u);
          // Only the sampled messages are timed, and actor_stats says so: the sums are theirs.
          QCOMPARE(timed_in_stats(r, s.id, counter.id()), 100u);
          QCOMPARE(end.actor(counter.id())->timed, 100u);
          QCOMPARE(end.actor(counter.id())->handling_time, handling_in_events(r, s.id, counter.id()));
          break;
        case as::Detail::full:
          QCOMPARE(handled_events, 1000u);
          QCOMPARE(end.actor(counter.id())->handling_ns.count(), 1000u);
          QCOMPARE(timed_in_stats(r, s.id, counter.id()), 1000u);
          QCOMPARE(end.actor(counter.id())->handling_time, handling_in_events(r, s.id, counter.id()));
          break;
      }
    }
  }

  void a_recording_started_on_a_running_system_counts_only_what_it_did_from_then_on() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "late.db");
    auto sys = make_system();
    Probe probe;
    auto sink = sys->spawn<Relay>(Relay{.probe = &probe, .next = std::nullopt}, {.name = "sink"}).value();
    auto relay = sys->spawn<Relay>(Relay{.probe = &probe, .next = sink}, {.name = "relay"}).value();
    // Before anyone records it: 700 numbers through both actors, queued at once (deep mailboxes).
    // (A message is counted once its handler returns, a moment after the probe hears of it: the
    // counters settle before the recording starts.)
    for (int i = 0; i < 700; ++i) QVERIFY(relay.cast(i));
    QVERIFY(probe.wait_count(*sys, "hundred", 7));
    QTRY_COMPARE_WITH_TIMEOUT(relay.stats().handled, 700u, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(sink.stats().handled, 700u, 20000);

    as::Recorder rec(file, {.detail = as::Detail::full, .stats_interval = 1ms});
    sys->attach(rec);
    for (int i = 0; i < 300; ++i) QVERIFY(relay.cast(i));
    QVERIFY(probe.wait_count(*sys, "hundred", 10));
    sys->shutdown();  // the last handler returns, is counted and observed, before the session ends
    QVERIFY(sys->detach(rec));
    QCOMPARE(sink.stats().handled, 1000u);

    // The file counts the 300 handled while recording, not the actors' lifetimes.
    const as::SessionReader r(file);
    const as::SessionInfo s = r.sessions().front();
    QVERIFY(s.ended_cleanly());
    QCOMPARE(handled_in_stats(r, s.id, relay.id()), 300u);
    QCOMPARE(handled_in_stats(r, s.id, sink.id()), 300u);
    std::uint64_t sent = 0, deepest = 0;
    for (const auto& b : r.stats(s.id)) {
      sent += b.sent;
      deepest = std::max(deepest, b.mailbox_max);
    }
    QCOMPARE(sent, 300u);
    QVERIFY2(deepest <= 300, qPrintable(QString::number(deepest)));  // not the 700 queued before
    // The same totals as the events recorded with every message.
    const auto counts = r.event_counts(s.id);
    QCOMPARE(counts[static_cast<std::size_t>(obs::EventKind::message_handled)], 600u);
    const obs::SystemState end = r.state_at(s.id, as::TimePoint::max());
    QCOMPARE(end.actor(relay.id())->handled, 300u);
    QCOMPARE(end.actor(sink.id())->handled, 300u);
    QCOMPARE(end.actor(relay.id())->sent, 300u);
    QVERIFY(end.actor(sink.id())->mailbox_max <= 300);
  }

  void a_recorder_destroyed_before_its_system_detaches_and_ends_the_session_cleanly() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "sketch.db");
    auto sys = make_system();
    Probe probe;
    auto pinger = sys->spawn<Pinger>(Pinger{.probe = &probe}, {}).value();
    auto ponger = sys->spawn<Ponger>({}, pinger).value();
    {
      as::Recorder rec(file, {.detail = as::Detail::full});
      sys->attach(rec);
      QVERIFY(pinger.cast(ponger));
      QVERIFY(pinger.cast(20000));
    }  // destroyed mid-rally, as in `System system; Recorder recorder; system.attach(recorder);`
    QVERIFY(probe.wait_for(*sys, "rally over"));  // the System carries on unobserved
    const as::SessionReader r(file);
    const as::SessionInfo s = r.sessions().front();
    QVERIFY(s.ended_cleanly());
    QVERIFY(s.events_recorded > 0);
    // The attach-time present: both actors were alive before the recorder came.
    const obs::SystemState end = r.state_at(s.id, as::TimePoint::max());
    QVERIFY(end.actor(pinger.id()) != nullptr);
    QVERIFY(end.actor(ponger.id()) != nullptr);
    QCOMPARE(end.runtime(), current_runtime());
  }

  void a_full_buffer_drops_events_and_the_file_counts_every_one() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "drops.db");
    // Tiny buffers and a writer that drains rarely: most message events cannot be kept.
    as::Recorder rec(file, {.detail = as::Detail::full,
                            .stats_interval = 1ms,
                            .flush_interval = std::chrono::milliseconds(200),
                            .per_thread_capacity = 16});
    CountingObserver all({.messages = true, .timing = true, .type_names = true});
    auto sys = make_system();
    sys->attach(rec);
    sys->attach(all);
    Probe probe;
    auto counter = sys->spawn<Counter>(Counter{.probe = &probe, .until = 3000}, {}).value();
    for (int i = 0; i < 3000; ++i) QVERIFY(counter.cast(i));
    QVERIFY(probe.wait_for(*sys, "counted"));
    sys->shutdown();
    QVERIFY(sys->detach(all));
    QVERIFY(sys->detach(rec));

    const as::Recorder::Progress p = rec.progress();
    QVERIFY(p.events_dropped > 0);
    const as::SessionReader r(file);
    const as::SessionInfo s = r.sessions().front();
    QCOMPARE(s.events_dropped, p.events_dropped);
    QCOMPARE(s.events_recorded, p.events_recorded);
    // Every event was either recorded or counted. (Each observer got its own attach-time present,
    // a runtime_info alone, as no actor was alive yet.)
    QCOMPARE(s.events_recorded + s.events_dropped, all.count.load());
    const obs::SystemState end = r.state_at(s.id, as::TimePoint::max());
    QCOMPARE(end.dropped(), s.events_dropped);
    QCOMPARE(end.actor(counter.id())->handled, 3000u);  // statistics stay exact
  }

  void one_recorder_records_systems_one_after_another_as_sessions_of_one_file() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "sessions.db");
    {
      as::Recorder rec(file, {.detail = as::Detail::sampled, .scenario = "first", .seed = 42});
      for (int round = 0; round < 2; ++round) {
        auto sys = make_system();
        sys->attach(rec);
        auto other = make_system();
        try {
          other->attach(rec);
          QFAIL("a second System was accepted while recording");
        } catch (const std::logic_error& e) {
          QVERIFY2(std::string(e.what()).find("one System at a time") != std::string::npos, e.what());
        }
        WorkloadResult w;
        run_workload(*sys, w, 2, 5, 10);
        if (QTest::currentTestFailed()) return;
      }  // each System's end ends its session
    }
    {
      as::Recorder again(file, {.detail = as::Detail::lifecycle});  // appends by default
      auto sys = make_system();
      sys->attach(again);
    }
    const as::SessionReader r(file);
    const auto sessions = r.sessions();
    QCOMPARE(sessions.size(), 3u);
    QCOMPARE(sessions[0].scenario, std::string("first"));
    QCOMPARE(sessions[0].seed, std::optional<std::uint64_t>(42));
    QCOMPARE(sessions[2].detail, as::Detail::lifecycle);
    QVERIFY(!sessions[2].seed.has_value());
    for (const auto& s : sessions) {
      QVERIFY(s.ended_cleanly());
      QCOMPARE(r.state_at(s.id, as::TimePoint::max()).events_applied(), s.events_recorded);
    }
    // Ids are per System: both first sessions have an actor 0.1, each in its own session.
    QCOMPARE(r.actors(sessions[0].id).front().name, std::string("root"));
    QCOMPARE(r.actors(sessions[1].id).front().name, std::string("root"));
  }

  void a_write_that_fails_stops_the_recording_and_counts_the_rest_as_dropped() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "blocked.db");
    as::Recorder rec(file, {.detail = as::Detail::full, .busy_timeout = 50ms});
    auto sys = make_system();
    sys->attach(rec);
    {
      // Another program takes the write lock and keeps it longer than the recorder waits.
      sqlite3* other = nullptr;
      QCOMPARE(sqlite3_open(file.c_str(), &other), SQLITE_OK);
      sqlite3_busy_timeout(other, 30000);  // the recorder holds the lock only while it commits a batch
      QCOMPARE(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
      WorkloadResult w;
      run_workload(*sys, w, 2, 50, 100);
      const auto deadline = std::chrono::steady_clock::now() + 60s;
      while (!rec.progress().error && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
      sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
      sqlite3_close_v2(other);
      if (QTest::currentTestFailed()) return;
    }
    const as::Recorder::Progress p = rec.progress();
    QVERIFY(p.error);
    QVERIFY2(
        p.error->find("locked") != std::string::npos && p.error->find(file.string()) != std::string::npos,
        p.error->c_str());
    sys.reset();
    QVERIFY(rec.progress().events_dropped > 0);  // what could not be written is counted
    // The file is as it was at its last commit: the session exists and did not end cleanly.
    const as::SessionReader r(file);
    const as::SessionInfo s = r.sessions().front();
    QVERIFY(!s.ended_cleanly());
    QCOMPARE(r.events(s.id).size(), s.events_recorded);
  }

  void an_existing_file_is_appended_to_replaced_or_refused_as_asked() {
    QTemporaryDir dir;
    const auto file = path_in(dir, "exists.db");
    {
      as::Recorder rec(file);
      auto sys = make_system();
      sys->attach(rec);
    }
    auto e = error_of([&] { as::Recorder rec(file, {.if_exists = as::RecorderOptions::IfExists::refuse}); });
    QVERIFY(e);
    QCOMPARE(e->kind(), as::RecordingError::Kind::already_exists);
    QVERIFY2(std::string(e->what()).find(file.string()) != std::string::npos, e->what());
    {
      as::Recorder rec(file, {.if_exists = as::RecorderOptions::IfExists::replace});
      auto sys = make_system();
      sys->attach(rec);
    }
    QCOMPARE(as::SessionReader(file).sessions().size(), 1u);

    // A file that is not a recording is never written to.
    const auto foreign = path_in(dir, "notes.txt");
    std::ofstream(foreign) << "my notes, not a recording\n";
    e = error_of([&] { as::Recorder rec(foreign); });
    QVERIFY(e);
    QCOMPARE(e->kind(), as::RecordingError::Kind::not_sqlite);
    std::ifstream in(foreign);
    std::string line;
    std::getline(in, line);
    QCOMPARE(line, std::string("my notes, not a recording"));
  }
};

QTEST_GUILESS_MAIN(TestRecorder)
#include "tst_recorder.moc"
