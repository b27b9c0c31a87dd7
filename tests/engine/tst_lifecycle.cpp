// Actor lifecycle and mailbox behaviour, on every runtime: spawn, hooks, the priority lanes,
// stop, kill, drain, waits and the status.
#include "engine_test.hpp"

using namespace engine_test;

namespace {

// -- actors used below ------------------------------------------------------------------------

struct Noop {
  using Message = int;
  void handle(as::Context<Noop>&, int, std::monostate&) {}
};

struct FailsToStart {
  using Message = int;
  using State = int;
  Probe* probe = nullptr;
  int pre_start(as::Context<FailsToStart>&) { throw std::runtime_error("the configuration is missing"); }
  void post_start(as::Context<FailsToStart>&, int&) { probe->record("post_start ran"); }
  void handle(as::Context<FailsToStart>&, int, int&) { probe->record("handle ran"); }
};

struct RefusesToStart {
  using Message = int;
  using State = int;
  Probe* probe = nullptr;
  as::Expected<int, std::string> pre_start(as::Context<RefusesToStart>&) {
    return as::unexpected(std::string("port 8080 is taken"));
  }
  void post_start(as::Context<RefusesToStart>&, int&) { probe->record("post_start ran"); }
  void handle(as::Context<RefusesToStart>&, int, int&) { probe->record("handle ran"); }
};

// Handles ints; message 1 waits at the gate (a slow first handler) unless no gate is given.
struct Gated {
  using Message = int;
  using State = int;  // messages handled
  Probe* probe = nullptr;
  Gate* gate = nullptr;
  int pre_start(as::Context<Gated>&) { return 0; }
  as::Task<> handle(as::Context<Gated>&, int m, int& handled) {
    probe->record("started " + std::to_string(m));
    if (m == 1 && gate != nullptr) co_await gate->opened();
    ++handled;
    probe->record("handled " + std::to_string(m));
  }
  void post_stop(as::Context<Gated>&, int& handled) { probe->record("post_stop after " + std::to_string(handled)); }
};

// Sleeps (as a coroutine) far longer than any test runs.
struct Sleeper {
  using Message = int;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<Sleeper>&, int, std::monostate&) {
    probe->record("sleeping");
    co_await as::sleep(1h);
    probe->record("woke up");
  }
  void post_stop(as::Context<Sleeper>&, std::monostate&) { probe->record("post_stop"); }
};

struct SlowStop {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<SlowStop>&, int, std::monostate&) {}
  as::Task<> post_stop(as::Context<SlowStop>&, std::monostate&) {
    probe->record("post_stop begins");
    co_await as::sleep(1s);
    probe->record("post_stop done");
  }
};

struct Movable {
  std::unique_ptr<int> payload;
};
struct TakesMoveOnly {
  using Message = Movable;
  void handle(as::Context<TakesMoveOnly>&, Movable, std::monostate&) {}
};

struct Counter {
  using Message = int;
  using State = int;
  Probe* probe = nullptr;
  int pre_start(as::Context<Counter>&) { return 0; }
  void handle(as::Context<Counter>&, int m, int& n) {
    ++n;
    probe->record("got " + std::to_string(m));
  }
  void post_stop(as::Context<Counter>&, int& n) {
    probe->record("post_stop");
    probe->record("handled " + std::to_string(n));
  }
};

// Reports its status from inside each hook.
struct StatusReporter {
  using Message = int;
  Probe* probe = nullptr;
  std::monostate pre_start(as::Context<StatusReporter>& ctx) {
    probe->record("pre_start " + std::string(as::to_string(ctx.status())));
    return {};
  }
  void post_start(as::Context<StatusReporter>& ctx, std::monostate&) {
    probe->record("post_start " + std::string(as::to_string(ctx.status())));
  }
  void handle(as::Context<StatusReporter>& ctx, int, std::monostate&) {
    probe->record("handle " + std::string(as::to_string(ctx.status())));
  }
  void post_stop(as::Context<StatusReporter>& ctx, std::monostate&) {
    probe->record("post_stop " + std::string(as::to_string(ctx.status())));
  }
};

// Tries to block inside its handler, which must be refused.
struct BlocksInside {
  using Message = as::ActorCell;
  Probe* probe = nullptr;
  void handle(as::Context<BlocksInside>&, as::ActorCell other, std::monostate&) {
    try {
      other.stop_and_wait(1s);
      probe->record("blocked");
    } catch (const as::BlockingWaitError& e) {
      probe->record(std::string("refused: ") + e.what());
    }
  }
};

// Awaits another actor's exit from a coroutine: the non-blocking way to wait inside an actor.
struct Watcher {
  using Message = as::ActorCell;
  Probe* probe = nullptr;
  std::string label;
  as::Task<> handle(as::Context<Watcher>&, as::ActorCell target, std::monostate&) {
    probe->record(label + " waiting");
    const auto& result = co_await target.join_handle().join();
    probe->record(label + " saw " + std::string(as::to_string(result->kind)));
  }
};

struct SelfStopper {
  using Message = int;
  void handle(as::Context<SelfStopper>& ctx, int, std::monostate&) { ctx.stop("done with it"); }
};

struct CleanupCounter {
  using Message = int;
  std::atomic<int>* post_stops = nullptr;
  void handle(as::Context<CleanupCounter>&, int, std::monostate&) {}
  void post_stop(as::Context<CleanupCounter>&, std::monostate&) { post_stops->fetch_add(1); }
};

}  // namespace

class TestLifecycle : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void a_throw_in_pre_start_makes_spawn_fail_with_the_text_and_the_actor_never_runs() {
    Probe probe;
    auto sys = make_system();
    auto r = sys->spawn(FailsToStart{.probe = &probe}, {.name = "config"});
    QVERIFY(!r);
    QCOMPARE(r.error().kind(), as::SpawnError::Kind::startup_failed);
    QCOMPARE(QString::fromStdString(r.error().detail()), QStringLiteral("the configuration is missing"));
    const std::string what = r.error().what();
    QVERIFY2(what.find("pre_start") != std::string::npos, what.c_str());
    QVERIFY2(what.find("the configuration is missing") != std::string::npos, what.c_str());
    QCOMPARE(sys->actor_count(), std::size_t{0});
    QVERIFY(!sys->where_is("config"));
    QVERIFY(probe.events().empty());
    // value() on a failed spawn throws with the same text.
    try {
      (void)r.value();
      QFAIL("value() did not throw");
    } catch (const as::BadExpectedAccess& e) {
      QVERIFY(std::string(e.what()).find("the configuration is missing") != std::string::npos);
    }
  }

  void an_error_returned_from_pre_start_makes_spawn_fail_with_the_text() {
    Probe probe;
    auto sys = make_system();
    auto r = sys->spawn(RefusesToStart{.probe = &probe}, {});
    QVERIFY(!r);
    QCOMPARE(r.error().kind(), as::SpawnError::Kind::startup_failed);
    QCOMPARE(QString::fromStdString(r.error().detail()), QStringLiteral("port 8080 is taken"));
    QCOMPARE(sys->actor_count(), std::size_t{0});
    QVERIFY(probe.events().empty());
  }

  void messages_from_one_sender_arrive_in_order() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(Counter{.probe = &probe}, {}).value();
    for (int i = 0; i < 500; ++i) QVERIFY(a.cast(i));
    QVERIFY(probe.wait_count(*sys, "got 499", 1));
    const auto ev = probe.events();
    QCOMPARE(ev.size(), std::size_t{500});
    for (int i = 0; i < 500; ++i) QCOMPARE(QString::fromStdString(ev[static_cast<std::size_t>(i)]), QString("got %1").arg(i));
  }

  void a_stop_outranks_queued_messages_leaving_exactly_one_processed() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    auto a = sys->spawn(Gated{.probe = &probe, .gate = &gate}, {}).value();
    for (int i = 1; i <= 10; ++i) QVERIFY(a.cast(i));
    QVERIFY(probe.wait_for(*sys, "started 1"));  // the first handler is in flight, slow
    a.stop("enough");
    QCOMPARE(a.status(), as::ActorStatus::running);  // the in-flight handler is not interrupted
    gate.open();
    QVERIFY(a.wait(kTimeout));
    QCOMPARE(probe.count("handled 1"), std::size_t{1});
    for (int i = 2; i <= 10; ++i) QVERIFY(!probe.contains("started " + std::to_string(i)));
    QVERIFY(probe.contains("post_stop after 1"));
    QCOMPARE(QString::fromStdString(a.exit()->reason), QStringLiteral("enough"));
    QCOMPARE(a.exit()->kind, as::ExitKind::stopped);
  }

  void a_stop_lets_the_in_flight_handler_finish() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    auto a = sys->spawn(Gated{.probe = &probe, .gate = &gate}, {}).value();
    QVERIFY(a.cast(1));
    QVERIFY(probe.wait_for(*sys, "started 1"));
    a.stop();
    QVERIFY(!a.wait(20ms));  // still running its handler
    gate.open();
    QVERIFY(a.wait(kTimeout));
    QVERIFY(probe.index_of("handled 1") >= 0);
    QVERIFY(probe.index_of("handled 1") < probe.index_of("post_stop after 1"));
  }

  void a_kill_interrupts_a_suspended_handler_at_once_and_skips_post_stop() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(Sleeper{.probe = &probe}, {}).value();
    QVERIFY(a.cast(1));
    QVERIFY(probe.wait_for(*sys, "sleeping"));
    const auto t0 = std::chrono::steady_clock::now();
    QVERIFY(a.kill_and_wait(kTimeout));  // the handler sleeps for an hour
    const auto waited = std::chrono::steady_clock::now() - t0;
    QVERIFY2(waited < 10s, "kill did not interrupt the suspended handler");
    QVERIFY(!probe.contains("woke up"));
    QVERIFY(!probe.contains("post_stop"));
    QCOMPARE(a.exit()->kind, as::ExitKind::killed);
    QCOMPARE(a.status(), as::ActorStatus::stopped);
  }

  void a_send_to_a_dead_actor_fails_and_hands_the_message_back() {
    auto sys = make_system();
    auto a = sys->spawn<TakesMoveOnly>().value();
    QVERIFY(a.stop_and_wait(kTimeout));
    auto r = a.cast(Movable{std::make_unique<int>(42)});
    QVERIFY(!r);
    QCOMPARE(r.error().target(), a.id());
    QCOMPARE(r.error().status(), as::ActorStatus::stopped);
    QVERIFY(r.error().message().payload != nullptr);
    QCOMPARE(*r.error().message().payload, 42);
    QVERIFY(std::string(r.error().what()).find(a.id().to_string()) != std::string::npos);
  }

  void stop_and_wait_returns_only_after_a_one_second_post_stop_has_finished() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(SlowStop{.probe = &probe}, {}).value();
    const as::TimePoint t0 = sys->runtime().now();
    QVERIFY(a.stop_and_wait(kTimeout));
    // No waiting here: stop_and_wait has already returned, so post_stop must be over.
    QVERIFY(probe.contains("post_stop done"));
    QVERIFY(sys->runtime().now() - t0 >= 1s);  // virtual time on the manual runtime
    QCOMPARE(a.status(), as::ActorStatus::stopped);
  }

  void a_drain_handles_every_queued_message_and_refuses_new_ones() {
    Probe probe;
    Gate gate;
    auto sys = make_system();
    auto a = sys->spawn(Gated{.probe = &probe, .gate = &gate}, {}).value();
    for (int i = 1; i <= 100; ++i) QVERIFY(a.cast(i));
    QVERIFY(probe.wait_for(*sys, "started 1"));
    QVERIFY(a.drain());
    QCOMPARE(a.status(), as::ActorStatus::draining);
    auto late = a.cast(101);
    QVERIFY2(!late, "a draining actor accepted a new message");
    QCOMPARE(late.error().message(), 101);
    QVERIFY(!a.drain());  // only once
    gate.open();
    QVERIFY(a.wait(kTimeout));
    QVERIFY(probe.contains("post_stop after 100"));
    QVERIFY(!probe.contains("started 101"));
    QCOMPARE(QString::fromStdString(a.exit()->reason), QStringLiteral("drained"));
  }

  void two_concurrent_waiters_both_wake_and_a_wait_after_death_returns_at_once() {
    Probe probe;
    auto sys = make_system();
    auto target = sys->spawn<Noop>().value();
    auto w1 = sys->spawn(Watcher{.probe = &probe, .label = "w1"}, {}).value();
    auto w2 = sys->spawn(Watcher{.probe = &probe, .label = "w2"}, {}).value();
    QVERIFY(w1.cast(target));
    QVERIFY(w2.cast(target));
    QVERIFY(probe.wait_count(*sys, "w1 waiting", 1));
    QVERIFY(probe.wait_count(*sys, "w2 waiting", 1));
    // A blocked thread as a third waiter, where the runtime has real threads.
    std::atomic<bool> thread_woke{false};
    std::thread blocked;
    if (!is_manual(*sys)) blocked = std::thread([&] { thread_woke = target.wait(kTimeout); });
    target.stop();
    QVERIFY(probe.wait_for(*sys, "w1 saw stopped"));
    QVERIFY(probe.wait_for(*sys, "w2 saw stopped"));
    if (blocked.joinable()) {
      blocked.join();
      QVERIFY(thread_woke);
    }
    const auto t0 = std::chrono::steady_clock::now();
    QVERIFY(target.wait(0ms));
    QVERIFY(target.wait(kTimeout));
    QVERIFY(std::chrono::steady_clock::now() - t0 < 1s);
  }

  void the_status_only_moves_forward_through_the_lifecycle() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(StatusReporter{.probe = &probe}, {}).value();
    QVERIFY(a.cast(1));
    QVERIFY(probe.wait_for(*sys, "handle running"));
    QVERIFY(a.stop_and_wait(kTimeout));
    QCOMPARE(probe.events(), (std::vector<std::string>{"pre_start starting", "post_start starting", "handle running",
                                                       "post_stop stopping"}));
    QCOMPARE(a.status(), as::ActorStatus::stopped);
    // Later requests cannot move it back.
    a.stop();
    a.kill();
    QVERIFY(!a.drain());
    QCOMPARE(a.status(), as::ActorStatus::stopped);
  }

  void cleanup_runs_exactly_once_under_racing_stops_and_kills() {
    auto sys = make_system();
    Probe finished;  // "finished <round>" from each round's on_finished callback
    constexpr int kRounds = 20;
    for (int round = 0; round < kRounds; ++round) {
      std::atomic<int> post_stops{0};
      auto a = sys->spawn(CleanupCounter{.post_stops = &post_stops}, {.name = "racer"}).value();
      a.join_handle().on_finished([&finished, round](const auto&) { finished.record("finished " + std::to_string(round)); });
      auto race = [&](int k) {
        for (int i = 0; i < 50; ++i) {
          if ((i + k) % 3 == 0) {
            a.kill();
          } else if ((i + k) % 3 == 1) {
            a.stop("race " + std::to_string(k));
          } else {
            (void)a.drain();
          }
        }
      };
      if (is_manual(*sys)) {
        race(0);
        race(1);
      } else {
        std::vector<std::thread> threads;
        for (int k = 0; k < 4; ++k) threads.emplace_back(race, k);
        for (auto& t : threads) t.join();
      }
      QVERIFY(a.wait(kTimeout));
      QVERIFY(post_stops.load() <= 1);
      // wait() may return as the exit completes, before the callbacks registered on it have run.
      QVERIFY(finished.wait_for(*sys, "finished " + std::to_string(round)));
      QVERIFY(!sys->where_is("racer"));
      QCOMPARE(sys->actor_count(), std::size_t{0});
    }
    sys.reset();  // nothing can call a callback any more
    for (int round = 0; round < kRounds; ++round)
      QCOMPARE(finished.count("finished " + std::to_string(round)), std::size_t{1});
  }

  void an_actor_that_stops_itself_exits_with_its_reason() {
    auto sys = make_system();
    auto a = sys->spawn<SelfStopper>().value();
    QVERIFY(a.cast(1));
    QVERIFY(a.wait(kTimeout));
    QCOMPARE(a.exit()->kind, as::ExitKind::stopped);
    QCOMPARE(QString::fromStdString(a.exit()->reason), QStringLiteral("done with it"));
  }

  void a_blocking_wait_inside_a_handler_is_refused_with_advice_to_co_await() {
    Probe probe;
    auto sys = make_system();
    auto other = sys->spawn<Noop>().value();
    auto a = sys->spawn(BlocksInside{.probe = &probe}, {}).value();
    QVERIFY(a.cast(other));
    QVERIFY(probe.wait_until(*sys, [](const auto& ev) { return !ev.empty(); }));
    const std::string e = probe.events().front();
    QVERIFY2(e.rfind("refused: ", 0) == 0, e.c_str());
    QVERIFY2(e.find("co_await") != std::string::npos, e.c_str());
    QVERIFY(other.is_alive());  // the refused call did not stop it either
  }

  void queued_messages_are_dropped_when_an_actor_stops_and_their_replies_fail() {
    // A call queued behind a stop gets a sender error at once instead of hanging.
    struct Get {
      as::Reply<int> reply;
    };
    struct Server {
      using Message = std::variant<int, Get>;
      Gate* gate = nullptr;
      as::Task<> handle(as::Context<Server>&, Message m, std::monostate&) {
        if (std::holds_alternative<int>(m)) co_await gate->opened();
        if (auto* g = std::get_if<Get>(&m)) g->reply.send(1);
      }
    };
    Gate gate;
    auto sys = make_system();
    auto s = sys->spawn(Server{.gate = &gate}, {}).value();
    QVERIFY(s.cast(0));  // holds the actor busy
    auto pending = s.call(as::rpc<Get>, kTimeout);
    s.stop();
    gate.open();
    auto result = pending.get();
    QVERIFY(result.is_sender_error());
    QVERIFY2(result.error().find("without replying") != std::string::npos, result.error().c_str());
  }

  void the_drain_budget_lets_other_actors_run_between_batches() {
    // With one thread, a flooded actor must not starve a second one: after each budget of messages
    // it goes back to the end of the run queue.
    Probe probe;
    Gate gate;
    auto sys = std::make_unique<as::System>(as::make_runtime(current_runtime(), {.threads = 1}));
    auto flooded = sys->spawn(Gated{.probe = &probe, .gate = &gate}, {.budget = 8}).value();
    auto other = sys->spawn(Gated{.probe = &probe}, {}).value();
    for (int i = 1; i <= 2000; ++i) QVERIFY(flooded.cast(i));
    QVERIFY(probe.wait_for(*sys, "started 1"));  // everything else is queued behind the gate
    QVERIFY(other.cast(-1));
    gate.open();
    QVERIFY(probe.wait_for(*sys, "handled 2000"));
    QVERIFY(probe.wait_for(*sys, "handled -1"));
    const int other_at = probe.index_of("handled -1");
    const int flooded_done = probe.index_of("handled 2000");
    QVERIFY2(other_at < flooded_done, "a flooded actor kept the only thread until its mailbox was empty");
    // Within a couple of batches of the gate opening, not after thousands of messages.
    QVERIFY(other_at < probe.index_of("handled 100"));
  }
};

QTEST_GUILESS_MAIN(TestLifecycle)
#include "tst_lifecycle.moc"
