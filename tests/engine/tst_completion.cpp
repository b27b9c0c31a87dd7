// The Completion under every wait in the engine (an actor's exit, a reply, a task's result), and the
// four-byte lock that guards its waiters: under contention from several threads, every waiter that
// registers hears exactly once or is taken back, never both and never neither; and the lock lets
// one thread at a time into its section.
#include "engine_test.hpp"

#ifndef Q_MOC_RUN
#include <actorscope/detail/small_mutex.hpp>
#endif

namespace {

// A waiter that counts how often it was told. Lives in the test's arrays, longer than any Completion.
struct CountingWaiter final : as::detail::WaiterNode {
  void notify() noexcept override { told.fetch_add(1, std::memory_order_relaxed); }
  std::atomic<int> told{0};
};

constexpr int kThreads = 4;

}  // namespace

class TestCompletion : public QObject {
  Q_OBJECT

 private slots:
  void a_small_mutex_lets_one_thread_at_a_time_into_its_section() {
    as::detail::SmallMutex m;
    std::uint64_t counter = 0;  // plain: only the lock keeps the increments apart
    constexpr std::uint64_t kEach = 20000;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (std::uint64_t i = 0; i < kEach; ++i) {
          std::lock_guard lk(m);
          ++counter;
        }
      });
    }
    for (auto& t : threads) t.join();
    QCOMPARE(counter, kThreads * kEach);
    QVERIFY(m.try_lock());
    QVERIFY(!m.try_lock());
    m.unlock();
  }

  void every_waiter_is_told_once_or_taken_back_when_threads_race_the_completion() {
    constexpr int kRounds = 200;
    constexpr int kPerThread = 16;
    for (int round = 0; round < kRounds; ++round) {
      as::Completion done;
      std::array<std::array<CountingWaiter, kPerThread>, kThreads> waiters;
      std::array<std::array<int, kPerThread>, kThreads> outcome{};  // 0 not added, 1 added, 2 taken back
      std::atomic<int> ready{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          ready.fetch_add(1);
          for (int i = 0; i < kPerThread; ++i) {
            if (!done.add(waiters[t][i])) continue;  // already done: nothing registered
            outcome[t][i] = 1;
            if (i % 2 == 1 && done.remove(waiters[t][i])) outcome[t][i] = 2;
          }
        });
      }
      while (ready.load() < kThreads) std::this_thread::yield();
      QVERIFY(done.complete());
      QVERIFY(!done.complete());  // only once
      for (auto& t : threads) t.join();
      QVERIFY(done.is_done());
      for (int t = 0; t < kThreads; ++t) {
        for (int i = 0; i < kPerThread; ++i) {
          const int told = waiters[t][i].told.load();
          switch (outcome[t][i]) {
            case 0: QCOMPARE(told, 0); break;  // refused: the completion had happened
            case 1: QCOMPARE(told, 1); break;  // registered and kept: told exactly once
            case 2: QCOMPARE(told, 0); break;  // taken back in time: never told
          }
        }
      }
    }
  }

  void a_thread_blocked_on_a_completion_wakes_when_another_completes_it() {
    // On asio a thread outside the runtime sleeps in wait_until (the manual runtime would drive itself instead).
    const std::unique_ptr<as::Runtime> rt = as::make_runtime("asio", as::RuntimeOptions{.threads = 1});
    for (int round = 0; round < 50; ++round) {
      as::Completion done;
      std::atomic<bool> woke{false};
      std::thread waiter([&] {
        woke.store(done.wait_until(*rt, as::Clock::now() + std::chrono::seconds(30), "the test's completion"));
      });
      std::thread completer([&] { done.complete(); });
      completer.join();
      waiter.join();
      QVERIFY(woke.load());
    }
  }
};

QTEST_GUILESS_MAIN(TestCompletion)
#include "tst_completion.moc"
