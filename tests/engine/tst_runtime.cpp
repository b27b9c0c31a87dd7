// The runtime seam: runtimes by name, scheduling, one-shot timers, thread identity, shutdown.
#include "engine_test.hpp"

using namespace engine_test;

namespace {

// A Runnable for tests (named Work to keep it apart from engine_test::Probe): records how it ended and signals a Completion.
class Work final : public as::Runnable {
 public:
  explicit Work(as::Runtime& rt) : rt_(rt) {}
  void run() noexcept override {
    ran_at = rt_.now();
    on_runtime_thread = rt_.on_runtime_thread();
    thread_runs_actors = as::detail::this_thread_runs_actors();
    try {
      as::Completion other;
      other.wait_until(rt_, rt_.now() + 1ms, "test wait");
    } catch (const as::BlockingWaitError&) {
      blocking_wait_refused = true;
    }
    if (on_run) on_run();
    ran = true;
    done.complete();
  }
  void discard() noexcept override {
    discarded = true;
    done.complete();
  }
  bool wait(as::Duration timeout = kTimeout) { return done.wait_until(rt_, as::deadline_after(rt_.now(), timeout), "Work"); }

  as::Runtime& rt_;
  as::Completion done;
  std::function<void()> on_run;
  std::atomic<bool> ran{false}, discarded{false};
  as::TimePoint ran_at{};
  bool on_runtime_thread = false, thread_runs_actors = false, blocking_wait_refused = false;
};

std::unique_ptr<as::Runtime> make_current() { return as::make_runtime(current_runtime(), {.threads = 2}); }

}  // namespace

class TestRuntime : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void runtimes_are_created_by_name() {
    auto rt = make_current();
    QCOMPARE(QString::fromUtf8(rt->name().data(), static_cast<int>(rt->name().size())),
             QString::fromStdString(current_runtime()));
    QVERIFY(rt->thread_count() >= 1);
    const auto names = as::runtime_names();
    QVERIFY(std::find(names.begin(), names.end(), "asio") != names.end());
    QVERIFY(std::find(names.begin(), names.end(), "manual") != names.end());
  }

  void an_unknown_runtime_name_is_a_typed_error_that_lists_the_known_names() {
    try {
      (void)as::make_runtime("tokio");
      QFAIL("make_runtime accepted an unknown name");
    } catch (const as::UnknownRuntimeError& e) {
      QCOMPARE(QString::fromStdString(e.requested()), QStringLiteral("tokio"));
      const std::string what = e.what();
      QVERIFY2(what.find("\"tokio\"") != std::string::npos, what.c_str());
      QVERIFY2(what.find("\"asio\"") != std::string::npos, what.c_str());
      QVERIFY2(what.find("\"manual\"") != std::string::npos, what.c_str());
      QVERIFY(std::find(e.known().begin(), e.known().end(), "asio") != e.known().end());
    }
    QVERIFY_THROWS_EXCEPTION(as::UnknownRuntimeError, as::System("no-such-runtime"));
  }

  void scheduled_work_runs_on_a_runtime_thread_where_blocking_waits_are_refused() {
    auto rt = make_current();
    Work p(*rt);
    QVERIFY(!rt->on_runtime_thread());
    QVERIFY(!as::detail::this_thread_runs_actors());
    rt->schedule(p, {}, as::Urgency::normal);
    QVERIFY(p.wait());
    QVERIFY(p.ran);
    QVERIFY(p.on_runtime_thread);
    QVERIFY(p.thread_runs_actors);
    QVERIFY(p.blocking_wait_refused);
  }

  void a_timer_never_fires_before_its_deadline() {
    auto rt = make_current();
    std::vector<std::unique_ptr<Work>> probes;
    std::vector<as::TimePoint> deadlines;
    const as::TimePoint base = rt->now();
    for (int i = 1; i <= 20; ++i) {
      probes.push_back(std::make_unique<Work>(*rt));
      deadlines.push_back(base + std::chrono::milliseconds(i));
      rt->arm(*probes.back(), deadlines.back(), {});
    }
    for (std::size_t i = 0; i < probes.size(); ++i) {
      QVERIFY(probes[i]->wait());
      QVERIFY(probes[i]->ran);
      QVERIFY2(probes[i]->ran_at >= deadlines[i], "a timer fired early");
      QVERIFY(probes[i]->on_runtime_thread);
    }
    if (rt->name() == "manual") {
      // The virtual clock makes this exact: each timer runs at its deadline, not after.
      for (std::size_t i = 0; i < probes.size(); ++i) QCOMPARE(probes[i]->ran_at, deadlines[i]);
    }
  }

  void with_idle_spin_work_timers_and_waits_still_run_and_timers_are_never_early() {
    // Spinning idle threads take a different path to their work (asio: poll and spin, then
    // run_one; qt: a spin before the dispatcher sleeps; waits: a spin before the condition variable).
    as::RuntimeOptions o;
    o.threads = 2;
    o.idle_spin = std::chrono::microseconds(200);
    auto rt = as::make_runtime(current_runtime(), o);
    QCOMPARE(rt->idle_spin(), rt->name() == "manual" ? as::Duration::zero() : as::Duration(std::chrono::microseconds(200)));
    for (int round = 0; round < 3; ++round) {
      Work now(*rt);
      rt->schedule(now, {}, as::Urgency::normal);
      QVERIFY(now.wait());
      QVERIFY(now.ran && now.on_runtime_thread);
      Work later(*rt);
      const as::TimePoint deadline = rt->now() + std::chrono::milliseconds(3);
      rt->arm(later, deadline, {});
      QVERIFY(later.wait());
      QVERIFY2(later.ran_at >= deadline, "a timer fired early");
    }
  }

  // Blocking waits outside the runtime spin for wait_spin (none unless set), or idle_spin when
  // that is longer; workers do not. The manual runtime's waits drive it and never spin.
  void blocking_waits_spin_for_wait_spin_and_the_larger_idle_spin_wins() {
    using std::chrono::microseconds;
    const bool manual = current_runtime() == "manual";
    auto spin_of = [](as::RuntimeOptions o) {
      o.threads = 1;
      return as::make_runtime(current_runtime(), o)->wait_spin();
    };
    QCOMPARE(spin_of({}), as::Duration::zero());
    QCOMPARE(spin_of({.wait_spin = microseconds(50)}), manual ? as::Duration::zero() : as::Duration(microseconds(50)));
    QCOMPARE(spin_of({.idle_spin = microseconds(200), .wait_spin = microseconds(10)}),
             manual ? as::Duration::zero() : as::Duration(microseconds(200)));
    // A wait that outlasts its spin still sleeps and is woken.
    as::RuntimeOptions o;
    o.threads = 1;
    o.wait_spin = microseconds(1);
    auto rt = as::make_runtime(current_runtime(), o);
    Work later(*rt);
    rt->arm(later, rt->now() + std::chrono::milliseconds(5), {});
    QVERIFY(later.wait());
    QVERIFY(later.ran);
  }

  // On one thread and on two: asio wakes for a deadline differently with one thread (see
  // docs/RUNTIMES.md, "Timers").
  void timers_fire_in_deadline_order_data() {
    QTest::addColumn<unsigned>("threads");
    QTest::newRow("1 thread") << 1u;
    QTest::newRow("2 threads") << 2u;
  }
  void timers_fire_in_deadline_order() {
    QFETCH(unsigned, threads);
    auto rt = as::make_runtime(current_runtime(), {.threads = threads});
    std::mutex m;
    std::vector<int> order;
    std::vector<std::unique_ptr<Work>> probes;
    // Armed out of order, a few milliseconds apart, all well in the future: arming five timers
    // can take longer than 5 ms on a loaded machine under a sanitizer, and a timer due before the
    // next one is even armed would rightly fire first (seen once under tsan at load 8).
    const as::TimePoint base = rt->now() + std::chrono::milliseconds(300);
    for (int i : {4, 1, 3, 0, 2}) {
      auto p = std::make_unique<Work>(*rt);
      p->on_run = [&m, &order, i] {
        std::lock_guard lk(m);
        order.push_back(i);
      };
      rt->arm(*p, base + std::chrono::milliseconds(5 * (i + 1)), {});
      probes.push_back(std::move(p));
    }
    for (auto& p : probes) QVERIFY(p->wait());
    QCOMPARE(order, (std::vector<int>{0, 1, 2, 3, 4}));
  }

  // The pool sleeps until the earliest deadline it knows of; an earlier one armed meanwhile from
  // another thread must still fire on time, not when the later one comes.
  void a_timer_armed_while_the_pool_sleeps_for_a_later_one_fires_first_data() { timers_fire_in_deadline_order_data(); }
  void a_timer_armed_while_the_pool_sleeps_for_a_later_one_fires_first() {
    QFETCH(unsigned, threads);
    auto rt = as::make_runtime(current_runtime(), {.threads = threads});
    Work late(*rt);
    rt->arm(late, rt->now() + 1h, {});
    Work soon(*rt);
    const as::TimePoint deadline = rt->now() + std::chrono::milliseconds(20);
    rt->arm(soon, deadline, {});
    QVERIFY(soon.wait());  // within the probe's generous deadline, far short of the hour
    QVERIFY(soon.ran);
    QVERIFY2(soon.ran_at >= deadline, "a timer fired early");
    QVERIFY(!late.ran);
    rt->shutdown();  // before the probes go: it discards the hour-long timer
    QVERIFY(late.discarded);
  }

  void a_disarmed_timer_is_discarded_and_never_runs() {
    auto rt = make_current();
    Work p(*rt);
    const as::TimerToken t = rt->arm(p, rt->now() + 1h, {});
    QVERIFY(t != 0);
    rt->disarm(t);
    QVERIFY(p.wait());
    QVERIFY(p.discarded);
    QVERIFY(!p.ran);
    rt->disarm(t);  // disarming twice is harmless
  }

  void shutdown_discards_work_that_has_not_run() {
    auto rt = make_current();
    Work timer(*rt);
    rt->arm(timer, rt->now() + 1h, {});
    rt->shutdown();
    QVERIFY(timer.discarded);
    Work late(*rt);
    rt->schedule(late, {}, as::Urgency::normal);  // after shutdown: discarded at once
    QVERIFY(late.discarded);
    QVERIFY(!late.ran);
    rt->shutdown();  // idempotent
  }

  void run_blocking_work_runs_off_the_actor_threads() {
    auto rt = make_current();
    Work p(*rt);
    rt->run_blocking(p);
    QVERIFY(p.wait());
    QVERIFY(p.ran);
    if (rt->name() != "manual") QVERIFY2(!p.on_runtime_thread, "blocking work ran on an actor thread");
  }

  void placement_requests_are_honoured_or_refused_with_a_reason() {
    auto rt = make_current();
    if (rt->name() == "manual") QSKIP("the manual runtime has one thread, so every placement is the same one");
    if (rt->name() == "asio") {
      // Work is shared across the pool, so there is no GUI thread to pin to.
      QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rt->place(as::PlacementRequest::gui()));
      (void)rt->place(as::PlacementRequest::on_host(7));  // accepted: the pool has no fixed hosts
      return;
    }
    // qt: worker hosts 0..n-1, then the GUI thread.
    const auto gui = rt->place(as::PlacementRequest::gui());
    QCOMPARE(gui.host, rt->thread_count());
    QCOMPARE(rt->place(as::PlacementRequest::on_host(1)).host, 1u);
    try {
      (void)rt->place(as::PlacementRequest::on_host(rt->thread_count()));
      QFAIL("an out-of-range host was accepted");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("does not exist") != std::string::npos, e.what());
    }
    // "any", asked from outside the runtime's threads, leaves the home to be chosen among the
    // workers when the actor first runs (tst_qt_runtime checks where actors then run).
    QVERIFY(rt->place({}).is_deferred());
  }

  // -- the manual runtime's own API ------------------------------------------------------------

  void the_manual_runtime_runs_nothing_until_stepped_and_its_clock_is_virtual() {
    if (current_runtime() != "manual") QSKIP("manual runtime only");
    as::ManualRuntime rt;
    Work a(rt), b(rt), t(rt);
    const as::TimePoint t0 = rt.now();
    rt.schedule(a, {}, as::Urgency::normal);
    rt.schedule(b, {}, as::Urgency::high);
    rt.arm(t, t0 + 50ms, {});
    QCOMPARE(rt.ready_count(), std::size_t{2});
    QVERIFY(!a.ran && !b.ran);
    QVERIFY(rt.run_one());
    QVERIFY2(b.ran && !a.ran, "high urgency runs first");
    QCOMPARE(rt.run_until_idle(), std::size_t{1});
    QVERIFY(!rt.run_one());
    QCOMPARE(rt.now(), t0);  // no wall time leaks in
    QCOMPARE(rt.next_deadline().value(), t0 + 50ms);
    rt.advance(49ms);
    QVERIFY(!t.ran);
    rt.advance(1ms);
    QVERIFY(t.ran);
    QCOMPARE(t.ran_at, t0 + 50ms);
    QCOMPARE(rt.timer_count(), std::size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestRuntime)
#include "tst_runtime.moc"
