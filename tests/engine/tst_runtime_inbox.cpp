// How the real runtimes take work from outside and keep a drain on its own thread: the lock-free
// inbox (asio: one per runtime; qt: one run list per host) that coalesces wake-ups. Work scheduled
// from outside runs exactly once and in each producer's order; what is still queued when the
// runtime shuts down is discarded, never run; a drain that keeps yielding on a qt host does not
// starve that host's timers or other posted events; and work for a qt host whose handler sleeps in
// a nested event loop still wakes it.
#include "engine_test.hpp"

#include <QAbstractEventDispatcher>
#include <QEventLoop>
#include <QObject>

#ifndef Q_MOC_RUN
#include <deque>
#endif

using namespace engine_test;

namespace {

// Counts how it ended and records its (producer, index) when it runs; the last of `total` to end
// completes `all`.
struct Tally {
  std::function<void(int, int)> on_run;
  std::atomic<int> ended{0};
  int total = 0;
  as::Completion all;
  void end() noexcept {
    if (ended.fetch_add(1, std::memory_order_acq_rel) + 1 == total) all.complete();
  }
};

class Numbered final : public as::Runnable {
 public:
  Numbered(int producer, int index, Tally* tally) : producer_(producer), index_(index), tally_(tally) {}
  void run() noexcept override {
    runs.fetch_add(1, std::memory_order_relaxed);
    tally_->on_run(producer_, index_);
    tally_->end();
  }
  void discard() noexcept override {
    discards.fetch_add(1, std::memory_order_relaxed);
    tally_->end();
  }
  std::atomic<int> runs{0}, discards{0};

 private:
  int producer_, index_;
  Tally* tally_;
};

class Counted final : public as::Runnable {
 public:
  void run() noexcept override { runs.fetch_add(1, std::memory_order_relaxed); }
  void discard() noexcept override { discards.fetch_add(1, std::memory_order_relaxed); }
  std::atomic<int> runs{0}, discards{0};
};

// A Runnable that runs a function once and completes.
class Once final : public as::Runnable {
 public:
  explicit Once(std::function<void()> f) : f_(std::move(f)) {}
  void run() noexcept override {
    f_();
    done.complete();
  }
  void discard() noexcept override {
    discarded = true;
    done.complete();
  }
  as::Completion done;
  std::atomic<bool> discarded{false};

 private:
  std::function<void()> f_;
};

bool real_runtime() { return current_runtime() == "asio" || current_runtime() == "qt"; }

QEventLoop* nested_loop = nullptr;  // touched only on the one worker thread of the test's runtime

// Runs a nested event loop and says when that loop is about to go to sleep.
struct SleepyNester {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<SleepyNester>&, int, std::monostate&) {
    QEventLoop loop;
    nested_loop = &loop;
    bool told = false;
    const auto c = QObject::connect(
        QAbstractEventDispatcher::instance(), &QAbstractEventDispatcher::aboutToBlock, &loop,
        [&] {
          if (!std::exchange(told, true)) probe->record("nested loop about to sleep");
        },
        Qt::DirectConnection);
    loop.exec();
    QObject::disconnect(c);
    nested_loop = nullptr;
    probe->record("left nested loop");
  }
};

// Runs a nested event loop in post_stop (which a stop from outside reaches through the host's
// urgent list) and says when that loop is about to go to sleep.
struct StopNester {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<StopNester>&, int, std::monostate&) { probe->record("nester up"); }
  void post_stop(as::Context<StopNester>&, std::monostate&) {
    QEventLoop loop;
    nested_loop = &loop;
    bool told = false;
    const auto c = QObject::connect(
        QAbstractEventDispatcher::instance(), &QAbstractEventDispatcher::aboutToBlock, &loop,
        [&] {
          if (!std::exchange(told, true)) probe->record("nested loop about to sleep");
        },
        Qt::DirectConnection);
    loop.exec();
    QObject::disconnect(c);
    nested_loop = nullptr;
    probe->record("left nested loop");
  }
};

struct NestedLoopQuitter {
  using Message = int;
  Probe* probe = nullptr;
  void handle(as::Context<NestedLoopQuitter>&, int, std::monostate&) {
    probe->record("quitter ran");
    if (nested_loop != nullptr) nested_loop->quit();
  }
};

}  // namespace

class TestRuntimeInbox : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase_data() { add_runtime_rows(); }

  void work_scheduled_from_outside_runs_once_each_in_each_producers_order() {
    if (!real_runtime()) QSKIP("asio and qt only (the manual runtime runs nothing until stepped)");
    // asio on one thread: with more, an idle pool thread takes the inbox over from an item that has
    // run for a whole watchdog tick (a handler that blocks its thread), and the items behind it then
    // start while that one still runs, so their order is only the order they start in. A thread
    // descheduled for a millisecond (a loaded machine, TSan) looks the same to the watchdog, and
    // the order this test records would break by design. qt runs each host's items one by one.
    const unsigned threads = current_runtime() == "asio" ? 1u : 2u;
    auto rt = as::make_runtime(current_runtime(), {.threads = threads});
    constexpr int kProducers = 3, kEach = 10'000;
    // qt: one producer per worker host and one for the GUI host (run while this thread waits).
    const auto where = [&](int producer) {
      return as::Placement{rt->name() == "qt" ? static_cast<std::uint32_t>(producer) % (rt->thread_count() + 1) : 0u};
    };
    std::mutex m;
    std::vector<std::vector<int>> order(kProducers);
    Tally tally;
    tally.total = kProducers * kEach;
    tally.on_run = [&](int producer, int index) {
      std::lock_guard lk(m);
      order[static_cast<std::size_t>(producer)].push_back(index);
    };
    std::vector<std::deque<Numbered>> work(kProducers);
    for (int p = 0; p < kProducers; ++p)
      for (int i = 0; i < kEach; ++i) work[static_cast<std::size_t>(p)].emplace_back(p, i, &tally);

    auto produce = [&](int p) {
      for (auto& w : work[static_cast<std::size_t>(p)]) rt->schedule(w, where(p), as::Urgency::normal);
    };
    std::vector<std::thread> others;
    for (int p = 1; p < kProducers; ++p) others.emplace_back(produce, p);
    produce(0);
    for (auto& t : others) t.join();
    // On qt this thread is the GUI host: the wait runs its list.
    QVERIFY(tally.all.wait_until(*rt, as::deadline_after(rt->now(), kTimeout), "all ended"));
    QCOMPARE(tally.ended.load(), kProducers * kEach);
    for (int p = 0; p < kProducers; ++p) {
      for (const auto& w : work[static_cast<std::size_t>(p)]) {
        QCOMPARE(w.runs.load(), 1);
        QCOMPARE(w.discards.load(), 0);
      }
      std::lock_guard lk(m);
      const auto& got = order[static_cast<std::size_t>(p)];
      QCOMPARE(got.size(), std::size_t{kEach});
      for (int i = 0; i < kEach; ++i)
        if (got[static_cast<std::size_t>(i)] != i)
          QFAIL(qPrintable(QStringLiteral("producer %1: item %2 ran in place %3").arg(p).arg(got[static_cast<std::size_t>(i)]).arg(i)));
    }
    rt->shutdown();
  }

  void work_queued_from_outside_when_the_runtime_shuts_down_is_discarded_not_run() {
    if (!real_runtime()) QSKIP("asio and qt only");
    auto rt = as::make_runtime(current_runtime(), {.threads = 2});
    const as::Placement where{0};  // qt: worker host 0; asio: any pool thread
    // The first item holds the inbox's consumer (asio's single inbox handler, the qt host's run
    // list) until shutdown has begun, which it learns from its own schedule() being refused: so
    // everything queued behind it is still queued when the pool stops.
    std::deque<Counted> probes;
    Once first([] {});
    std::atomic<bool> holding{false};
    Once holder([&] {
      holding.store(true);
      first.run();
      for (;;) {
        Counted& p = probes.emplace_back();
        rt->schedule(p, where, as::Urgency::normal);
        if (p.discards.load() != 0) break;  // refused at once: shutdown has begun
        std::this_thread::yield();
      }
    });
    rt->schedule(holder, where, as::Urgency::normal);
    QVERIFY(first.done.wait_until(*rt, as::deadline_after(rt->now(), kTimeout), "holder running"));
    std::deque<Counted> queued(1000);
    for (auto& q : queued) rt->schedule(q, where, as::Urgency::normal);
    rt->shutdown();
    QVERIFY(holder.done.is_done() && !holder.discarded);
    for (const auto& q : queued) {
      QCOMPARE(q.runs.load(), 0);
      QCOMPARE(q.discards.load(), 1);
    }
    rt.reset();  // the probes the holder scheduled from inside may be discarded only now (asio)
    QVERIFY(!probes.empty());
    for (const auto& p : probes) QCOMPARE(p.runs.load() + p.discards.load(), 1);
  }

  void a_drain_that_keeps_yielding_does_not_starve_its_hosts_timers_or_posted_events_data() {
    QTest::addColumn<bool>("gui");
    QTest::newRow("worker host") << false;
    QTest::newRow("GUI host") << true;
  }
  void a_drain_that_keeps_yielding_does_not_starve_its_hosts_timers_or_posted_events() {
    if (current_runtime() != "qt") QSKIP("qt only: a yielded drain stays in its host's run list");
    QFETCH(bool, gui);
    auto rt = as::make_runtime("qt", {.threads = 1});
    const as::Placement host{gui ? rt->thread_count() : 0u};
    std::atomic<bool> timer_fired{false}, event_seen{false};
    std::atomic<long> turns{0};
    Once timer([&] { timer_fired.store(true); });
    std::unique_ptr<QObject> target;
    // Yields again and again, as a flooded actor's drain does, until both have happened.
    class Spinner final : public as::Runnable {
     public:
      std::function<bool()> go_on;
      std::function<void()> each_turn;
      as::Runtime* rt = nullptr;
      as::Placement host{};
      as::Completion done;
      void run() noexcept override {
        each_turn();
        if (go_on()) {
          rt->schedule(*this, host, as::Urgency::yielded);
        } else {
          done.complete();
        }
      }
      void discard() noexcept override { done.complete(); }
    } spinner;
    spinner.rt = rt.get();
    spinner.host = host;
    spinner.go_on = [&] { return !(timer_fired.load() && event_seen.load()); };
    spinner.each_turn = [&] {
      if (turns.fetch_add(1) != 0) return;
      // On its first turn, on the host's thread: a runtime timer and a plain Qt event for this
      // thread, both behind the spinning drain. (Made here rather than from the test's thread so
      // that only the engine's own events cross threads.)
      rt->arm(timer, rt->now() + 1ms, host);
      target = std::make_unique<QObject>();
      QMetaObject::invokeMethod(target.get(), [&] { event_seen.store(true); }, Qt::QueuedConnection);
    };
    rt->schedule(spinner, host, as::Urgency::normal);
    QVERIFY2(spinner.done.wait_until(*rt, as::deadline_after(rt->now(), kTimeout), "spinner"),
             "a drain that kept yielding starved its host's timer or posted event");
    QVERIFY(timer_fired.load() && event_seen.load());
    QVERIFY(turns.load() > 1);
    rt->shutdown();  // the worker thread is gone: `target` may be destroyed here
    target.reset();
  }

  void work_for_a_host_whose_handler_sleeps_in_a_nested_loop_wakes_it() {
    if (current_runtime() != "qt") QSKIP("qt only");
    // The nested loop runs inside a turn of the host's run list, so pushes to that list post
    // nothing by themselves: the host must notice that the loop is asleep.
    Probe probe;
    auto sys = make_system(1);
    auto quitter = sys->spawn(NestedLoopQuitter{.probe = &probe}, {}).value();
    QVERIFY(quitter.cast(0));
    QVERIFY(probe.wait_for(*sys, "quitter ran"));
    auto nester = sys->spawn(SleepyNester{.probe = &probe}, {}).value();
    QVERIFY(nester.cast(1));
    QVERIFY(probe.wait_for(*sys, "nested loop about to sleep"));
    QVERIFY(quitter.cast(1));  // the same (only) worker, asleep in the nested loop
    QVERIFY2(probe.wait_for(*sys, "left nested loop"), "the work never woke the nested loop");
    QCOMPARE(probe.count("quitter ran"), std::size_t{2});
  }

  void a_kill_for_a_host_whose_urgent_turn_sleeps_in_a_nested_loop_wakes_it() {
    if (current_runtime() != "qt") QSKIP("qt only");
    // The stop reaches post_stop through a turn of the host's urgent list, so further urgent work
    // pushed meanwhile posts nothing by itself: the host must notice that the loop is asleep.
    Probe probe;
    auto sys = make_system(1);
    auto quitter = sys->spawn(NestedLoopQuitter{.probe = &probe}, {}).value();
    auto victim = sys->spawn(NestedLoopQuitter{.probe = &probe}, {}).value();
    auto nester = sys->spawn(StopNester{.probe = &probe}, {}).value();
    QVERIFY(nester.cast(0));
    QVERIFY(probe.wait_for(*sys, "nester up"));
    nester.stop();
    QVERIFY(probe.wait_for(*sys, "nested loop about to sleep"));
    QVERIFY2(victim.kill_and_wait(kTimeout), "the kill never woke the nested loop");  // the same worker
    QVERIFY(!probe.contains("left nested loop"));
    QVERIFY(quitter.cast(1));
    QVERIFY(probe.wait_for(*sys, "left nested loop"));
    QVERIFY(nester.wait(kTimeout));
  }
};

QTEST_GUILESS_MAIN(TestRuntimeInbox)
#include "tst_runtime_inbox.moc"
