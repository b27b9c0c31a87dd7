// The concurrency primitives, written once in the core and the same on every runtime: spawned tasks
// and JoinHandle, JoinSet, sleep, timeout and Interval.
#include "engine_test.hpp"

using namespace engine_test;

namespace {

struct Resume {};  // a message that resumes a coroutine handler in the tests below

// Suspends on a gate in its handler; a second actor on the same thread must still run.
struct Waiter {
  using Message = int;
  Probe* probe = nullptr;
  Gate* gate = nullptr;
  as::Task<> handle(as::Context<Waiter>&, int m, std::monostate&) {
    probe->record("suspend " + std::to_string(m));
    co_await gate->opened();
    probe->record("resumed " + std::to_string(m));
  }
};

struct Echo {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<Echo>&, int m, std::monostate&) { probe->record("echo " + std::to_string(m)); }
};

struct Napper {
  using Message = as::Duration;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<Napper>& ctx, as::Duration d, std::monostate&) {
    const as::TimePoint t0 = ctx.runtime().now();
    co_await as::sleep(d);
    const as::Duration slept = ctx.runtime().now() - t0;
    probe->record(slept >= d ? "slept long enough" : "woke early");
    if (slept == d) probe->record("slept exactly");
  }
};

as::Task<int> slow_answer(Probe* probe) {
  co_await as::sleep(1h);
  probe->record("slow answer finished");
  co_return 1;
}
as::Task<int> quick_answer() {
  co_await as::sleep(1ms);
  co_return 42;
}

struct TimeoutUser {
  using Message = int;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<TimeoutUser>&, int m, std::monostate&) {
    if (m == 0) {
      auto r = co_await as::timeout(50ms, slow_answer(probe));
      probe->record(r ? "got a value" : "timed out: " + r.error().what_text());
    } else {
      auto r = co_await as::timeout(1h, quick_answer());
      probe->record(r ? "value " + std::to_string(*r) : "timed out");
      auto s = co_await as::timeout(20ms, as::sleep(1h));
      probe->record(s ? "slept through" : "sleep cut short");
    }
  }
};

// Bounds a join with as::timeout: a join hands out its result by reference, which the timeout copies.
struct JoinTimeoutUser {
  using Message = int;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<JoinTimeoutUser>& ctx, int, std::monostate&) {
    auto quick = ctx.system().spawn_task([]() -> as::Task<int> {
      co_await as::sleep(2ms);
      co_return 21;
    });
    auto r = co_await as::timeout(1h, quick.join());
    probe->record(r ? "joined " + std::to_string(**r * 2) : "join timed out");
    auto slow = ctx.system().spawn_task([]() -> as::Task<int> {
      co_await as::sleep(1h);
      co_return 0;
    });
    auto s = co_await as::timeout(20ms, slow.join());
    probe->record(s ? "slow task joined" : "join cut short");
    slow.abort();
  }
};

// Ticks an Interval while doing 3 ms of (virtual) work per tick, and reports every tick.
struct Ticker {
  using Message = int;
  struct Tick {
    as::TimePoint scheduled, actual, start;
  };
  std::mutex* m = nullptr;
  std::vector<Tick>* ticks = nullptr;
  Probe* probe = nullptr;
  as::Duration period = 10ms;
  as::Duration work = 3ms;
  std::optional<as::Duration> first_work{};  // the first tick's work, if different
  as::MissedTick policy = as::MissedTick::burst;
  int count = 100;
  as::Task<> handle(as::Context<Ticker>& ctx, int, std::monostate&) {
    const as::TimePoint start = ctx.runtime().now();
    as::Interval iv(start, period, policy);
    for (int i = 0; i < count; ++i) {
      auto t = co_await iv.tick();
      {
        std::lock_guard lk(*m);
        ticks->push_back({t.scheduled, t.actual, start});
      }
      co_await as::sleep(i == 0 && first_work ? *first_work : work);
    }
    probe->record("ticked");
  }
};

struct TaskAwaiter {
  using Message = int;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<TaskAwaiter>& ctx, int n, std::monostate&) {
    auto h = ctx.system().spawn_task([n]() -> as::Task<int> {
      co_await as::sleep(5ms);
      co_return n * 2;
    });
    const auto& r = co_await h.join();
    probe->record("task gave " + std::to_string(*r));
  }
};

struct SetUser {
  using Message = int;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<SetUser>& ctx, int, std::monostate&) {
    as::JoinSet<int> set(ctx.system());
    for (int i = 1; i <= 3; ++i) {
      set.spawn([i]() -> as::Task<int> {
        co_await as::sleep(std::chrono::milliseconds(10 * (4 - i)));
        co_return i;
      });
    }
    int sum = 0;
    while (auto r = co_await set.next()) sum += **r;
    probe->record("sum " + std::to_string(sum));
  }
};

}  // namespace

class TestConcurrency : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  // -- tasks and JoinHandle ------------------------------------------------------------------

  void a_spawned_task_gives_its_value_through_the_handle() {
    auto sys = make_system();
    auto plain = sys->spawn_task([] { return 6 * 7; });
    auto coro = sys->spawn_task([]() -> as::Task<std::string> {
      co_await as::sleep(2ms);
      co_return "done";
    });
    auto nothing = sys->spawn_task([] {});
    QVERIFY(plain.wait(kTimeout));
    QVERIFY(coro.wait(kTimeout));
    QVERIFY(nothing.wait(kTimeout));
    QCOMPARE(plain.result().value(), 42);
    QCOMPARE(QString::fromStdString(coro.result().value()), QStringLiteral("done"));
    QVERIFY(nothing.result().has_value());
    QCOMPARE(sys->task_count(), std::size_t{0});
  }

  void a_task_that_throws_gives_a_failed_join_error_with_the_text() {
    auto sys = make_system();
    auto h = sys->spawn_task([]() -> int { throw std::runtime_error("disk on fire"); });
    QVERIFY(h.wait(kTimeout));
    QVERIFY(!h.result());
    QCOMPARE(h.result().error().kind, as::JoinError::Kind::failed);
    QCOMPARE(QString::fromStdString(h.result().error().message), QStringLiteral("disk on fire"));
  }

  void abort_stops_a_running_task_without_consuming_the_handle() {
    auto sys = make_system();
    auto h = sys->spawn_task([]() -> as::Task<int> {
      co_await as::sleep(1h);
      co_return 1;
    });
    QVERIFY(!h.is_finished());
    QVERIFY(!h.wait(10ms));
    h.abort();
    QVERIFY(h.wait(kTimeout));
    QVERIFY(h.is_finished());
    QVERIFY(!h.result());
    QCOMPARE(h.result().error().kind, as::JoinError::Kind::aborted);
    h.abort();  // the handle is still usable; a second abort changes nothing
    QVERIFY(h.is_finished());
    QVERIFY_THROWS_EXCEPTION(std::logic_error,
                             (void)sys->spawn_task([]() -> as::Task<int> {
                                    co_await as::sleep(1h);
                                    co_return 0;
                                  }).result());
  }

  void a_handle_runs_a_callback_and_sends_a_message_when_done() {
    Probe probe;
    auto sys = make_system();
    auto echo = sys->spawn(Echo{.probe = &probe}, {}).value();
    auto h = sys->spawn_task([] { return 5; });
    h.on_finished([&](const auto& r) { probe.record("callback " + std::to_string(*r)); });
    h.notify(echo, [](const auto& r) { return *r + 100; });
    QVERIFY(probe.wait_for(*sys, "callback 5"));
    QVERIFY(probe.wait_for(*sys, "echo 105"));
    // Registered after the fact, a callback runs at once.
    QVERIFY(h.wait(kTimeout));
    bool ran = false;
    h.on_finished([&](const auto&) { ran = true; });
    QVERIFY(ran);
  }

  void an_actor_can_await_a_task_from_a_coroutine_handler() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(TaskAwaiter{.probe = &probe}, {}).value();
    QVERIFY(a.cast(21));
    QVERIFY(probe.wait_for(*sys, "task gave 42"));
  }

  // -- JoinSet -------------------------------------------------------------------------------

  void a_join_set_yields_results_in_the_order_they_finish() {
    std::array<Gate, 3> gates;
    auto sys = make_system();
    as::JoinSet<int> set(*sys);
    for (int i = 0; i < 3; ++i) {
      set.spawn([i, &gates]() -> as::Task<int> {
        co_await gates[static_cast<std::size_t>(i)].opened();
        co_return i;
      });
    }
    QCOMPARE(set.size(), std::size_t{3});
    for (int i : {2, 0, 1}) {
      gates[static_cast<std::size_t>(i)].open();
      auto r = set.join_next(kTimeout);
      QVERIFY(r.has_value());
      QCOMPARE(r->value(), i);
    }
    QVERIFY(set.empty());
    QVERIFY(!set.join_next(kTimeout).has_value());  // empty: returns at once
  }

  void abort_all_aborts_every_member_and_join_next_times_out_when_nothing_finishes() {
    auto sys = make_system();
    as::JoinSet<int> set(*sys);
    for (int i = 0; i < 3; ++i) {
      set.spawn([]() -> as::Task<int> {
        co_await as::sleep(1h);
        co_return 0;
      });
    }
    QVERIFY(!set.join_next(20ms).has_value());
    QCOMPARE(set.size(), std::size_t{3});
    set.abort_all();
    for (int i = 0; i < 3; ++i) {
      auto r = set.join_next(kTimeout);
      QVERIFY(r.has_value());
      QVERIFY(!r->has_value());
      QCOMPARE(r->error().kind, as::JoinError::Kind::aborted);
    }
    QCOMPARE(set.size(), std::size_t{0});
  }

  void a_join_set_can_be_drained_from_a_coroutine() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(SetUser{.probe = &probe}, {}).value();
    QVERIFY(a.cast(0));
    QVERIFY(probe.wait_for(*sys, "sum 6"));
  }

  // -- sleep and timeout ---------------------------------------------------------------------

  void a_suspended_handler_frees_its_thread_for_other_actors() {
    Probe probe;
    Gate gate;
    auto sys = std::make_unique<as::System>(as::make_runtime(current_runtime(), {.threads = 1}));
    auto waiter = sys->spawn(Waiter{.probe = &probe, .gate = &gate}, {}).value();
    auto echo = sys->spawn(Echo{.probe = &probe}, {}).value();
    QVERIFY(waiter.cast(1));
    QVERIFY(waiter.cast(2));
    QVERIFY(probe.wait_for(*sys, "suspend 1"));
    QVERIFY(echo.cast(7));
    QVERIFY2(probe.wait_for(*sys, "echo 7"), "the only thread stayed blocked by a suspended handler");
    QVERIFY2(!probe.contains("suspend 2"), "the suspended actor took another message");
    gate.open();
    QVERIFY(probe.wait_for(*sys, "resumed 2"));
    QVERIFY(probe.index_of("resumed 1") < probe.index_of("suspend 2"));
  }

  void sleep_never_wakes_early_and_is_exact_on_the_virtual_clock() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(Napper{.probe = &probe}, {}).value();
    QVERIFY(a.cast(as::Duration(25ms)));
    QVERIFY(probe.wait_until(*sys, [](const auto& ev) { return !ev.empty(); }));
    QVERIFY(probe.contains("slept long enough"));
    if (is_manual(*sys)) QVERIFY(probe.wait_for(*sys, "slept exactly"));
  }

  void timeout_cancels_the_operation_when_the_deadline_comes_first() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(TimeoutUser{.probe = &probe}, {}).value();
    QVERIFY(a.cast(0));
    QVERIFY(probe.wait_for(*sys, "timed out: timed out after 50 ms"));
    QVERIFY(!probe.contains("slow answer finished"));
    QVERIFY(!probe.contains("got a value"));
  }

  void timeout_gives_the_value_when_the_operation_finishes_in_time() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(TimeoutUser{.probe = &probe}, {}).value();
    QVERIFY(a.cast(1));
    QVERIFY(probe.wait_for(*sys, "value 42"));
    QVERIFY(probe.wait_for(*sys, "sleep cut short"));
  }

  void timeout_bounds_a_join_and_gives_its_result_when_it_comes_in_time() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(JoinTimeoutUser{.probe = &probe}, {}).value();
    QVERIFY(a.cast(0));
    QVERIFY(probe.wait_for(*sys, "join cut short"));
    QCOMPARE(probe.events(), (std::vector<std::string>{"joined 42", "join cut short"}));
  }

  // -- Interval ------------------------------------------------------------------------------

  void an_interval_does_not_drift_over_a_hundred_ticks() {
    std::mutex m;
    std::vector<Ticker::Tick> ticks;
    Probe probe;
    auto sys = make_system();
    // Fewer ticks on the real runtimes keep the suite fast; the manual runtime checks all 100.
    const int count = is_manual(*sys) ? 100 : 20;
    auto a = sys->spawn(Ticker{.m = &m, .ticks = &ticks, .probe = &probe, .count = count}, {}).value();
    QVERIFY(a.cast(0));
    QVERIFY(probe.wait_for(*sys, "ticked"));
    std::lock_guard lk(m);
    QCOMPARE(static_cast<int>(ticks.size()), count);
    for (int k = 0; k < count; ++k) {
      const auto& t = ticks[static_cast<std::size_t>(k)];
      // Absolute deadlines: tick k is due at start + (k+1)·period, whatever the handler spent.
      QCOMPARE(t.scheduled, t.start + (k + 1) * 10ms);
      QVERIFY2(t.actual >= t.scheduled, "a tick came early");
      if (is_manual(*sys)) QCOMPARE(t.actual, t.scheduled);  // and on the virtual clock, exactly on time
    }
  }

  void missed_ticks_follow_the_policy() {
    if (current_runtime() != "manual") QSKIP("exact catch-up timing needs the virtual clock");
    struct Case {
      as::MissedTick policy;
      std::vector<int> scheduled_ms, actual_ms;
    };
    // Period 10 ms. The first tick's work takes 35 ms, so the tick due at 20 is taken at 45 and the
    // ones due at 30 and 40 have been missed; later work takes 1 ms.
    const std::vector<Case> cases = {
        {as::MissedTick::burst, {10, 20, 30, 40}, {10, 45, 46, 47}},  // catch up one after another
        {as::MissedTick::delay, {10, 20, 55, 65}, {10, 45, 55, 65}},  // the schedule shifts
        {as::MissedTick::skip, {10, 20, 50, 60}, {10, 45, 50, 60}},   // back onto the old grid
    };
    for (const Case& c : cases) {
      std::mutex m;
      std::vector<Ticker::Tick> ticks;
      Probe probe;
      auto sys = make_system();
      auto a = sys->spawn(Ticker{.m = &m, .ticks = &ticks, .probe = &probe, .work = 1ms, .first_work = 35ms, .policy = c.policy, .count = 4},
                          {})
                   .value();
      QVERIFY(a.cast(0));
      QVERIFY(probe.wait_for(*sys, "ticked"));
      std::lock_guard lk(m);
      for (std::size_t k = 0; k < 4; ++k) {
        QCOMPARE(ticks[k].scheduled - ticks[k].start, as::Duration(std::chrono::milliseconds(c.scheduled_ms[k])));
        QCOMPARE(ticks[k].actual - ticks[k].start, as::Duration(std::chrono::milliseconds(c.actual_ms[k])));
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestConcurrency)
#include "tst_concurrency.moc"
