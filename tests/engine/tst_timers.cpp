// Timers on every runtime: send_interval, send_after, exit_after and kill_after, their handles,
// their end when the target stops, and the race between a cancel and a firing. Exact times and
// counts are checked on the manual runtime's virtual clock; on the real runtimes only what cannot
// depend on the machine's load (never early, never after a cancel, at least so many).
#include "engine_test.hpp"

#include <deque>
#include <random>

using namespace engine_test;

namespace {

/// How many times longer than the timers' natural scale a test that checks a timer *before* it
/// fires arms it: the test thread can be held up for tens of milliseconds on a loaded sanitizer
/// run, and a timer due in 20 ms would then fire before the check (seen once under tsan).
constexpr int kMargin = 10;

struct Tick {
  int gen = 0;
};
struct Marker {
  int gen = 0;
};
using TickMsg = std::variant<Tick, Marker>;

// What a ticking actor saw: for each tick, the runtime-clock time since `start`; the markers; and
// ticks that came after the marker of their own generation (which a cancel must prevent).
class TickLog {
 public:
  void set_start(as::TimePoint t) {
    std::lock_guard lk(m_);
    start_ = t;
  }
  // Notified under the lock: a waiter that sees the change may destroy the log at once.
  void tick(as::TimePoint now, int gen) {
    std::lock_guard lk(m_);
    elapsed_.push_back(now - start_);
    if (gen != 0 && gen <= last_marker_) ++late_;
    cv_.notify_all();
  }
  void marker(int gen) {
    std::lock_guard lk(m_);
    last_marker_ = gen;
    cv_.notify_all();
  }
  std::vector<as::Duration> elapsed() const {
    std::lock_guard lk(m_);
    return elapsed_;
  }
  std::size_t ticks() const {
    std::lock_guard lk(m_);
    return elapsed_.size();
  }
  int late() const {
    std::lock_guard lk(m_);
    return late_;
  }
  bool wait_until(as::System& sys, const std::function<bool(const std::vector<as::Duration>&)>& pred) {
    return wait_on(sys, m_, cv_, [&] { return pred(elapsed_); }, kTimeout);
  }
  bool wait_marker(as::System& sys, int gen) {
    return wait_on(sys, m_, cv_, [&] { return last_marker_ >= gen; }, kTimeout);
  }

 private:
  mutable std::mutex m_;
  std::condition_variable cv_;
  as::TimePoint start_{};
  std::vector<as::Duration> elapsed_;
  int last_marker_ = 0;
  int late_ = 0;
};

struct Ticker {
  using Message = TickMsg;
  TickLog* log = nullptr;
  as::Duration work{};  // virtual work per tick, as a coroutine sleep
  as::Task<> handle(as::Context<Ticker>& ctx, TickMsg msg, std::monostate&) {
    if (auto* t = std::get_if<Tick>(&msg)) {
      log->tick(ctx.runtime().now(), t->gen);
      if (work > as::Duration::zero()) co_await as::sleep(work);
    } else {
      log->marker(std::get<Marker>(msg).gen);
    }
  }
};

// Starts its own interval in pre_start, as API-SKETCH.md shows, and stops after three ticks.
struct SelfTicker {
  using Message = Tick;
  struct State {
    as::TimerHandle timer;
    int ticks = 0;
  };
  Probe* probe = nullptr;
  State pre_start(as::Context<SelfTicker>& ctx) { return {ctx.send_interval(10ms, [] { return Tick{}; }), 0}; }
  void handle(as::Context<SelfTicker>& ctx, Tick, State& s) {
    probe->record("tick " + std::to_string(++s.ticks));
    if (s.ticks == 3) {
      probe->record(s.timer.cancel() ? "cancelled" : "cancel found it ended");
      ctx.stop("three ticks");
    }
  }
};

struct Stoppable {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<Stoppable>&, int, std::monostate&) {}
  void post_stop(as::Context<Stoppable>&, std::monostate&) { probe->record("post_stop"); }
};

// Stuck in a coroutine handler far longer than any test runs.
struct Stuck {
  using Message = int;
  Probe* probe = nullptr;
  as::Task<> handle(as::Context<Stuck>&, int, std::monostate&) {
    probe->record("stuck");
    co_await as::sleep(1h);
    probe->record("woke up");
  }
  void post_stop(as::Context<Stuck>&, std::monostate&) { probe->record("post_stop"); }
};

as::ManualRuntime* manual_of(as::System& sys) {
  return is_manual(sys) ? &static_cast<as::ManualRuntime&>(sys.runtime()) : nullptr;
}

}  // namespace

class TestTimers : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void a_10ms_send_interval_delivers_none_at_once_and_at_least_7_within_150ms() {
    std::deque<TickLog> logs;  // one per attempt; they outlive the System's actors
    auto sys = make_system();
    if (as::ManualRuntime* manual = manual_of(*sys)) {
      TickLog& log = logs.emplace_back();
      auto t = sys->spawn(Ticker{.log = &log}, {}).value();
      log.set_start(manual->now());
      as::TimerHandle timer = t.send_interval(10ms, [] { return Tick{}; });
      manual->run_until_idle();
      QCOMPARE(log.ticks(), std::size_t{0});
      manual->advance(150ms);
      QCOMPARE(log.ticks(), std::size_t{15});  // at 10, 20, ... 150 ms of virtual time, exactly
      const auto elapsed = log.elapsed();
      for (std::size_t k = 0; k < elapsed.size(); ++k) QCOMPARE(elapsed[k], as::Duration(10ms * (k + 1)));
      manual->advance(9ms);
      QCOMPARE(log.ticks(), std::size_t{15});
      manual->advance(1ms);
      QCOMPARE(log.ticks(), std::size_t{16});
      QCOMPARE(timer.fired(), std::uint64_t{16});
      return;
    }
    // On a real clock, count the ticks handled by the time 150 ms of the runtime's clock have passed
    // (known once a later tick arrives: waiting is by event, never by sleep). A machine stalled in
    // that window can miss ticks, so a window is tried up to three times; a wrong period fails all.
    as::Runtime& rt = sys->runtime();
    std::vector<std::size_t> counts;
    for (int attempt = 0; attempt < 3; ++attempt) {
      TickLog& log = logs.emplace_back();
      auto t = sys->spawn(Ticker{.log = &log}, {}).value();
      log.set_start(rt.now());
      as::TimerHandle timer = t.send_interval(10ms, [] { return Tick{}; });
      QVERIFY(log.wait_until(*sys, [](const auto& e) { return !e.empty() && e.back() > 150ms; }));
      QVERIFY(timer.cancel());
      QVERIFY(t.stop_and_wait(kTimeout));
      const auto elapsed = log.elapsed();
      // None at once, and none early: tick k comes no sooner than k periods after the start.
      for (std::size_t k = 0; k < elapsed.size(); ++k)
        QVERIFY2(elapsed[k] >= 10ms * (k + 1), qPrintable(QStringLiteral("tick %1 came early").arg(k + 1)));
      counts.push_back(static_cast<std::size_t>(
          std::count_if(elapsed.begin(), elapsed.end(), [](as::Duration d) { return d <= 150ms; })));
      if (counts.back() >= 7) break;
    }
    QVERIFY2(counts.back() >= 7, qPrintable(QStringLiteral("ticks within 150 ms, per attempt: %1, %2, %3")
                                                .arg(counts[0])
                                                .arg(counts.size() > 1 ? counts[1] : 0)
                                                .arg(counts.size() > 2 ? counts[2] : 0)));
  }

  void a_send_interval_keeps_absolute_deadlines_while_its_handler_works() {
    TickLog log;
    auto sys = make_system();
    auto t = sys->spawn(Ticker{.log = &log, .work = 3ms}, {}).value();
    log.set_start(sys->runtime().now());
    as::TimerHandle timer = t.send_interval(10ms, [] { return Tick{}; });
    QVERIFY(log.wait_until(*sys, [](const auto& e) { return e.size() >= 10; }));
    QVERIFY(timer.cancel());
    const auto elapsed = log.elapsed();
    for (std::size_t k = 0; k < elapsed.size(); ++k) {
      if (is_manual(*sys)) {
        QCOMPARE(elapsed[k], as::Duration(10ms * (k + 1)));  // 3 ms of work per tick shifts nothing
      } else {
        QVERIFY(elapsed[k] >= 10ms * (k + 1));
      }
    }
  }

  void send_after_delivers_exactly_one_message() {
    TickLog log;
    auto sys = make_system();
    auto t = sys->spawn(Ticker{.log = &log}, {}).value();
    log.set_start(sys->runtime().now());
    // Far enough ahead that it is still pending when checked, even on a loaded sanitizer run.
    as::TimerHandle once = t.send_after(20ms * kMargin, Tick{});
    as::TimerHandle marker = t.send_after(20ms * kMargin + 40ms, [] { return Marker{1}; });
    QVERIFY(once.is_active());
    QVERIFY(log.wait_marker(*sys, 1));
    QVERIFY(log.wait_until(*sys, [](const auto& e) { return !e.empty(); }));
    QCOMPARE(log.ticks(), std::size_t{1});
    QCOMPARE(once.fired(), std::uint64_t{1});
    QVERIFY(!once.is_active());  // a one-shot timer ends when it has fired
    QVERIFY(!once.cancel());
    QVERIFY(!marker.is_active());
    QCOMPARE(sys->timer_count(), std::size_t{0});
    if (is_manual(*sys)) {
      QCOMPARE(log.elapsed()[0], as::Duration(20ms * kMargin));
    } else {
      QVERIFY(log.elapsed()[0] >= 20ms * kMargin);
    }
  }

  void exit_after_stops_the_actor_with_its_reason() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(Stoppable{.probe = &probe}, {}).value();
    const as::TimePoint t0 = sys->runtime().now();
    as::TimerHandle timer = a.exit_after(30ms);
    QVERIFY(a.wait(kTimeout));
    QVERIFY(sys->runtime().now() - t0 >= 30ms);
    QCOMPARE(a.exit()->kind, as::ExitKind::stopped);
    QCOMPARE(QString::fromStdString(a.exit()->reason), QStringLiteral("exit after 30 ms"));
    QVERIFY(probe.contains("post_stop"));  // a graceful stop
    QCOMPARE(timer.fired(), std::uint64_t{1});
  }

  void kill_after_kills_an_actor_stuck_in_a_long_handler() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(Stuck{.probe = &probe}, {}).value();
    QVERIFY(a.cast(1));
    QVERIFY(probe.wait_for(*sys, "stuck"));
    as::TimerHandle timer = a.kill_after(20ms);
    QVERIFY(a.wait(kTimeout));
    QCOMPARE(a.exit()->kind, as::ExitKind::killed);
    QVERIFY(!probe.contains("woke up"));
    QVERIFY(!probe.contains("post_stop"));  // a kill skips post_stop
    QCOMPARE(timer.fired(), std::uint64_t{1});
  }

  void a_cancelled_timer_never_fires() {
    TickLog log;
    auto sys = make_system();
    auto t = sys->spawn(Ticker{.log = &log}, {}).value();
    // Due far enough ahead that the cancels come first, even on a loaded sanitizer run.
    as::TimerHandle once = t.send_after(20ms * kMargin, Tick{});
    as::TimerHandle every = t.send_interval(10ms * kMargin, [] { return Tick{}; });
    as::TimerHandle stop = t.exit_after(20ms * kMargin);
    QVERIFY(once.cancel());
    QVERIFY(every.cancel());
    QVERIFY(stop.cancel());
    QVERIFY(!once.cancel());  // a second cancel finds it ended
    QVERIFY(!once.is_active() && !every.is_active() && !stop.is_active());
    (void)t.send_after(20ms * kMargin + 40ms, Marker{1});  // after all three were due
    QVERIFY(log.wait_marker(*sys, 1));
    QCOMPARE(log.ticks(), std::size_t{0});
    QCOMPARE(once.fired() + every.fired() + stop.fired(), std::uint64_t{0});
    QVERIFY(t.is_alive());
  }

  void timers_end_when_their_target_stops() {
    TickLog log;
    auto sys = make_system();
    auto t = sys->spawn(Ticker{.log = &log}, {}).value();
    as::TimerHandle every = t.send_interval(5ms, [] { return Tick{}; });
    as::TimerHandle later = t.send_after(1h, Tick{});
    as::TimerHandle kill = t.kill_after(1h);
    QCOMPARE(sys->timer_count(), std::size_t{3});
    QVERIFY(t.stop_and_wait(kTimeout));
    QVERIFY(!every.is_active());
    QVERIFY(!later.is_active());
    QVERIFY(!kill.is_active());
    QCOMPARE(sys->timer_count(), std::size_t{0});
    const std::uint64_t fired = every.fired();
    // Timers aimed at an actor that has stopped end at once.
    as::TimerHandle after = t.send_interval(5ms, [] { return Tick{}; });
    QVERIFY(!after.is_active());
    QVERIFY(!t.exit_after(1ms).is_active());
    QCOMPARE(sys->timer_count(), std::size_t{0});
    QCOMPARE(every.fired(), fired);
  }

  void a_timer_started_in_pre_start_ticks_its_own_actor_until_cancelled() {
    Probe probe;
    auto sys = make_system();
    auto a = sys->spawn(SelfTicker{.probe = &probe}, {}).value();
    QVERIFY(a.wait(kTimeout));
    QCOMPARE(QString::fromStdString(a.exit()->reason), QStringLiteral("three ticks"));
    QVERIFY(probe.contains("cancelled"));
    QCOMPARE(probe.count("tick 3"), std::size_t{1});
    QVERIFY(!probe.contains("tick 4"));  // the stop outranks any tick already queued
  }

  void cancelling_a_timer_as_it_fires_never_delivers_after_cancel_returns() {
    // Each round starts a 1 ms interval, lets 0-2 ms pass, cancels it, and then casts a marker from
    // this thread. A tick the timer queued before the cancel returned is ahead of the marker; a tick
    // queued after it would come after the marker and be counted as late. The fired count must not
    // move after cancel() returns either.
    TickLog log;
    auto sys = make_system();
    as::Runtime& rt = sys->runtime();
    as::ManualRuntime* manual = manual_of(*sys);
    auto t = sys->spawn(Ticker{.log = &log}, {}).value();
    std::mt19937 rng(20240611);
    std::uniform_int_distribution<int> pause_us(0, 2000);
    std::vector<std::pair<as::TimerHandle, std::uint64_t>> rounds;
    const auto wall_end = std::chrono::steady_clock::now() + 2s;  // bounded on a slow machine
    int gen = 0;
    int fired_rounds = 0;
    while (gen < 300 && std::chrono::steady_clock::now() < wall_end) {
      ++gen;
      as::TimerHandle timer = t.send_interval(1ms, [gen] { return Tick{gen}; });
      const as::Duration pause = std::chrono::microseconds(pause_us(rng));
      if (manual != nullptr) {
        manual->advance(pause);
      } else {
        const as::TimePoint until = rt.now() + pause;  // a race window, not a synchronisation
        while (rt.now() < until) std::this_thread::yield();
      }
      timer.cancel();
      const std::uint64_t fired = timer.fired();
      if (fired > 0) ++fired_rounds;
      rounds.emplace_back(timer, fired);
      QVERIFY(t.cast(Marker{gen}));
    }
    QVERIFY(log.wait_marker(*sys, gen));
    for (const auto& [timer, fired] : rounds) QCOMPARE(timer.fired(), fired);
    QCOMPARE(log.late(), 0);
    QCOMPARE(sys->timer_count(), std::size_t{0});
    if (manual != nullptr) QVERIFY(fired_rounds > 0 && fired_rounds < gen);  // both sides of the race were taken
  }

  void a_timer_whose_builder_throws_ends_and_says_why() {
    Probe probe;
    TickLog log;
    auto sys = make_system();
    sys->set_log_sink([&](const as::LogRecord& r) { probe.record(std::string(r.text)); });
    auto t = sys->spawn(Ticker{.log = &log}, {}).value();
    as::TimerHandle timer = t.send_interval(5ms, []() -> Tick { throw std::runtime_error("no ticks today"); });
    QVERIFY(probe.wait_until(*sys, [](const auto& ev) {
      return std::any_of(ev.begin(), ev.end(), [](const std::string& e) { return e.find("no ticks today") != std::string::npos; });
    }));
    QVERIFY(!timer.is_active());
    QCOMPARE(timer.fired(), std::uint64_t{0});
    QVERIFY(t.is_alive());  // the builder is not the actor: its failure does not stop it
  }

  void a_timer_handle_may_outlive_its_system() {
    TickLog log;
    as::TimerHandle every;
    {
      auto sys = make_system();
      auto t = sys->spawn(Ticker{.log = &log}, {}).value();
      every = t.send_interval(1h, [] { return Tick{}; });
      QVERIFY(every.is_active());
    }
    QVERIFY(!every.is_active());  // its target exited at shutdown, which ended it
    QVERIFY(!every.cancel());
    QCOMPARE(every.fired(), std::uint64_t{0});
  }

  void timers_with_an_empty_handle_or_a_zero_period_throw_timer_error() {
    TickLog log;
    auto sys = make_system();
    auto t = sys->spawn(Ticker{.log = &log}, {}).value();
    QVERIFY_THROWS_EXCEPTION(as::TimerError, (void)t.send_interval(0ms, [] { return Tick{}; }));
    QVERIFY_THROWS_EXCEPTION(as::TimerError, (void)as::ActorRef<TickMsg>().send_after(1ms, Tick{}));
    QVERIFY_THROWS_EXCEPTION(as::TimerError, (void)as::ActorCell().exit_after(1ms));
    QVERIFY_THROWS_EXCEPTION(as::TimerError, (void)as::ActorCell().kill_after(1ms));
    QCOMPARE(sys->timer_count(), std::size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestTimers)
#include "tst_timers.moc"
