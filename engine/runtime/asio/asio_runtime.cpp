// The Boost.Asio backend.
#include "asio_runtime.hpp"

#include "../runnable_inbox.hpp"

#include <actorscope/detail/message_pool.hpp>
#include <actorscope/detail/spin_wait.hpp>

#include <boost/asio/defer.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace actorscope {

namespace {
thread_local const AsioRuntime* current_runtime = nullptr;
struct PoolThread;
// The calling pool thread's own (pools of two threads or more).
thread_local PoolThread* own_thread = nullptr;

// Counts a posted handler in `queued` until it starts, or is destroyed without running, so that
// idle workers can see work arrive without taking Asio's lock (nullptr: not counted; only spinning
// workers look). Moves with its handler; only the last holder counts it down.
class QueuedMark {
 public:
  explicit QueuedMark(std::atomic<std::int64_t>* queued) noexcept : queued_(queued) {}
  QueuedMark(QueuedMark&& o) noexcept : queued_(std::exchange(o.queued_, nullptr)) {}
  QueuedMark& operator=(QueuedMark&&) = delete;
  ~QueuedMark() { taken(); }
  void taken() noexcept {
    if (queued_ != nullptr) std::exchange(queued_, nullptr)->fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  std::atomic<std::int64_t>* queued_;
};

// Where Asio allocates the operation that carries a posted handler. Its own recycling keeps a
// couple of blocks per thread, which works when a thread frees what it allocated; a drain posted
// by one pool thread and run by the other is allocated on one and freed on the other, so the
// poster's cache is always empty (a memalign) and the runner's always full (a free into another
// thread's arena). The engine's MessagePool hands blocks between threads in batches instead.
template <class T>
struct PooledOps {
  using value_type = T;
  PooledOps() noexcept = default;
  template <class U>
  PooledOps(const PooledOps<U>&) noexcept {}  // implicit: Asio rebinds it to its operation type
  T* allocate(std::size_t n) { return static_cast<T*>(detail::MessagePool::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { detail::MessagePool::deallocate(p, n * sizeof(T)); }
  friend bool operator==(PooledOps, PooledOps) noexcept { return true; }
};

// A posted Runnable. If Asio destroys the handler without calling it (the pool stopped), the
// work is discarded, so every scheduled Runnable hears exactly one of run() or discard().
class RunHandler {
 public:
  using allocator_type = PooledOps<void>;
  allocator_type get_allocator() const noexcept { return {}; }
  RunHandler(Runnable* r, std::atomic<std::int64_t>* queued) noexcept : r_(r), mark_(queued) {}
  RunHandler(RunHandler&& o) noexcept : r_(std::exchange(o.r_, nullptr)), mark_(std::move(o.mark_)) {}
  RunHandler& operator=(RunHandler&&) = delete;
  ~RunHandler() {
    if (Runnable* r = std::exchange(r_, nullptr)) {
      mark_.taken();
      r->discard();
    }
  }
  void operator()() {
    mark_.taken();
    std::exchange(r_, nullptr)->run();
  }

 private:
  Runnable* r_;
  QueuedMark mark_;
};

// Items of the outside inbox one handler runs before it lets other handlers (timers, yielded
// drains) go first.
constexpr unsigned kInboxBatch = 64;
// How often the watchdog looks at the inbox while it is in use: an item that runs through a whole
// tick is taken to block its thread, and an idle pool thread takes the rest of the inbox over. The
// first tick comes soon after the watchdog starts; while it finds the consumer moving on, it looks
// half as often, down to the slowest period: a tick wakes an idle pool thread, which a busy
// two-core machine feels (1 ms ticks cost a fifth of "Waiting on 1000 actors"; 8 ms, nothing
// measurable), and a handler that blocks for long is found within two slow periods either way.
constexpr std::chrono::milliseconds kInboxWatchFirst{1};
constexpr std::chrono::milliseconds kInboxWatchSlowest{8};
// Items of its ready queue a pool thread runs in a row before it looks at due timers (and measures
// how long they took: see kHeavyItem), and before it runs one of Asio's handlers (a turn of the
// outside inbox, a timer's wake-up, a blocking job's completion), so that neither waits behind a
// queue that never empties.
constexpr unsigned kReadyTimerCheck = 16;
constexpr unsigned kReadyAsioTurn = 64;
// The mean time a pool thread's items take (measured over kReadyTimerCheck items) from which it
// shares its queue with a sleeping pool thread at once: below it, a cross-core hand-off (a worker's
// reply crossing back, the cell's lines moving) costs about what the item does, and the work runs
// faster on one thread (docs/PERFORMANCE.md, the thirteenth round).
constexpr Duration kHeavyItem = std::chrono::microseconds(2);
// While work waits on a pool thread's queue and another sleeps, a tick wakes the sleeper to take
// half of it: every 1 ms at first, then half as often down to every 8 ms (as the inbox's watchdog,
// and for the same reason). So work queued behind a handler that blocks its thread waits at most
// about two periods, whatever its items cost.
constexpr std::chrono::milliseconds kShareFirst{1};
constexpr std::chrono::milliseconds kShareSlowest{8};

// A ready queue's lock: a spin lock, since what it guards is a few stores; its own thread takes it
// for every push and pop, another pool thread when it steals. A thread that finds it
// held looks again (reading, so that the line stays shared until it is free) for a while, then
// lets other threads run: the holder may have lost its processor.
class ReadyLock {
 public:
  void lock() noexcept {
    for (unsigned n = 0;; ++n) {
      if (!held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire)) return;
      if (n < kSpins) {
        detail::cpu_relax();
      } else {
        std::this_thread::yield();
      }
    }
  }
  void unlock() noexcept { held_.store(false, std::memory_order_release); }

 private:
  static constexpr unsigned kSpins = 1024;
  std::atomic<bool> held_{false};
};

// A pool thread's ready queue (pools of two threads or more): a FIFO of Runnables linked through
// Runnable::runtime_link, under a ReadyLock. Only its own thread pushes; its own thread pops, and
// the other pool threads steal from it when theirs are empty.
class alignas(64) ReadyQueue {
 public:
  void push(Runnable& r) noexcept {
    r.runtime_link = nullptr;
    std::lock_guard lk(lock_);
    append_locked(&r, &r, 1);
  }
  /// The oldest item, unlinked; nullptr when empty.
  Runnable* pop() noexcept {
    if (size_.load(std::memory_order_relaxed) == 0) return nullptr;
    std::lock_guard lk(lock_);
    Runnable* r = first_;
    if (r == nullptr) return nullptr;
    first_ = r->runtime_link;
    if (first_ == nullptr) last_ = nullptr;
    size_.store(size_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    r->runtime_link = nullptr;
    return r;
  }
  /// Another pool thread, whose own queue `to` is empty: takes the older half of this queue (at
  /// least one item), returns the oldest to run now, unlinked, and queues the rest on `to`, in
  /// order. nullptr when there is nothing to take.
  Runnable* steal_into(ReadyQueue& to) noexcept {
    if (size_.load(std::memory_order_relaxed) == 0) return nullptr;
    Runnable* first = nullptr;
    Runnable* last = nullptr;
    std::size_t n = 0;
    {
      std::lock_guard lk(lock_);
      const std::size_t size = size_.load(std::memory_order_relaxed);
      if (size == 0) return nullptr;
      n = (size + 1) / 2;
      first = last = first_;
      for (std::size_t i = 1; i < n; ++i) last = last->runtime_link;
      first_ = last->runtime_link;
      if (first_ == nullptr) last_ = nullptr;
      size_.store(size - n, std::memory_order_relaxed);
    }
    last->runtime_link = nullptr;
    Runnable* rest = std::exchange(first->runtime_link, nullptr);
    if (rest != nullptr) {
      std::lock_guard lk(to.lock_);
      to.append_locked(rest, last, n - 1);
    }
    return first;
  }
  /// Any thread, without the lock: a look that may be stale by the time it returns.
  std::size_t size(std::memory_order order = std::memory_order_relaxed) const noexcept { return size_.load(order); }

 private:
  void append_locked(Runnable* first, Runnable* last, std::size_t n) noexcept {
    if (last_ != nullptr) {
      last_->runtime_link = first;
    } else {
      first_ = first;
    }
    last_ = last;
    // Sequentially consistent: see AsioRuntime::Impl::wake_one_if_asleep.
    size_.store(size_.load(std::memory_order_relaxed) + n, std::memory_order_seq_cst);
  }

  ReadyLock lock_;
  Runnable* first_ = nullptr;
  Runnable* last_ = nullptr;
  std::atomic<std::size_t> size_{0};
};
// A pool thread's own, in pools of two threads or more: its ready queue, which other pool threads
// steal from, and (on a line of their own, touched by it alone) the mean time its recent items took.
struct PoolThread {
  ReadyQueue queue;
  // Written by its thread every kReadyTimerCheck items in a row; read by the others as they look
  // for work. Light until measured.
  alignas(64) std::atomic<Clock::rep> item_ns{0};
  TimePoint sampled{};  // its thread's: when the current measure began
  bool heavy() const noexcept { return item_ns.load(std::memory_order_relaxed) >= kHeavyItem.count(); }
};

}  // namespace

struct AsioRuntime::Impl {
  explicit Impl(const RuntimeOptions& o)
      : threads(o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency())),
        blocking_threads(o.blocking_threads != 0 ? o.blocking_threads : 4),
        idle_spin(o.effective_idle_spin()),
        wait_spin(o.effective_wait_spin()),
        ioc(static_cast<int>(threads)),
        work(boost::asio::make_work_guard(ioc)) {
    if (threads > 1) timer.emplace(ioc);
  }

  // -- timers: a deadline map under timer_m, and one way to wake up for its earliest deadline ------
  //
  // With a steady_timer on the pool's io_context, Asio keeps its reactor in the handler queue and,
  // whenever no thread is asleep in it, runs it (an epoll_wait system call) on each pass through
  // the queue. A pool's only thread is never asleep in it while it has work, and a drain that
  // yields passes through the queue once per budget of messages: one system call per 64 messages,
  // 20-30 ns per message of a self-message loop, and a ping-pong between two actors on one thread
  // took 2.5 us instead of 0.28. So a pool of one thread has
  // no Asio timer: with nothing to run it sleeps in run_one_until(the earliest deadline), runs what
  // is due between handlers, and arming a deadline earlier than all the others posts an empty
  // handler, which wakes it to sleep again for the new one. A larger pool keeps the steady_timer
  // (its handler runs what is due): there an idle thread sleeps in the reactor, and measured
  // without it (idle threads on Asio's condition variable instead), messages between actors on two
  // threads took half as long again (ping-pong 0.9 -> 1.4 us; a call between actors 1.9 -> 3.0 us).

  static constexpr Clock::rep kNoTimer = TimePoint::max().time_since_epoch().count();

  // With the steady_timer (under timer_m): wakes the reactor at `deadline`.
  void arm_steady_timer_locked(TimePoint deadline) {
    timer->expires_at(deadline);
    timer->async_wait([this](const boost::system::error_code& ec) {
      if (ec != boost::asio::error::operation_aborted) run_due_timers();
    });
  }

  TimerToken arm_timer(Runnable& work, TimePoint deadline) noexcept {
    TimerToken token = 0;
    bool earliest = false;
    {
      std::lock_guard lk(timer_m);
      if (!stopped) {
        token = next_token++;
        by_deadline.emplace(std::make_pair(deadline, token), &work);
        by_token.emplace(token, deadline);
        if (deadline < armed_for) {
          armed_for = deadline;
          next_timer.store(deadline.time_since_epoch().count(), std::memory_order_release);
          if (timer) {
            arm_steady_timer_locked(deadline);  // cancels the wait for the later deadline
          } else {
            earliest = true;
          }
        }
      }
    }
    if (token == 0) {
      work.discard();
    } else if (earliest) {
      boost::asio::post(ioc, [] {});  // the worker asleep until a later deadline (or for good) looks again
    }
    return token;
  }

  // A pool thread between handlers (one thread), or the steady_timer's handler: runs what is due.
  // Costs one load while nothing is armed, and a clock read while something is.
  void run_due_timers() {
    const Clock::rep next = next_timer.load(std::memory_order_acquire);
    if (next == kNoTimer || next > Clock::now().time_since_epoch().count()) return;
    std::vector<Runnable*> due;
    {
      std::lock_guard lk(timer_m);
      if (stopped) return;
      const TimePoint now = Clock::now();
      while (!by_deadline.empty() && by_deadline.begin()->first.first <= now) {
        auto it = by_deadline.begin();
        due.push_back(it->second);
        by_token.erase(it->first.second);
        by_deadline.erase(it);
      }
      armed_for = by_deadline.empty() ? TimePoint::max() : by_deadline.begin()->first.first;
      next_timer.store(armed_for.time_since_epoch().count(), std::memory_order_release);
      if (timer && !by_deadline.empty()) arm_steady_timer_locked(armed_for);
    }
    for (Runnable* r : due) r->run();
  }

  // A worker: runs ready handlers and (one thread) due timers; with nothing to run, sleeps until
  // the earliest deadline (one thread) or in Asio's reactor. With idle_spin it first spins that
  // long watching `queued` and the deadline, because waking a sleeping thread costs far more than
  // a short spin (bench-reference.md: 1-50 us on this kind of machine).
  void run_worker(unsigned self) {
    if (threads > 1) {
      run_pool_worker(self);
      return;
    }
    while (!ioc.stopped()) {
      if (!timer) run_due_timers();
      if (idle_spin != Duration::zero()) {
        if (ioc.poll() != 0) continue;
        if (ioc.stopped()) return;
        const bool more = detail::spin_until(
            [this] {
              return queued.load(std::memory_order_relaxed) > 0 ||
                     next_timer.load(std::memory_order_relaxed) <= Clock::now().time_since_epoch().count();
            },
            idle_spin);
        if (more) {
          if (timer) run_due_timers();  // due before the reactor would have said so
          continue;
        }
      }
      const Clock::rep next = next_timer.load(std::memory_order_acquire);
      if (timer || next == kNoTimer) {
        ioc.run_one();
      } else if (const TimePoint until{Clock::duration(next)}; until > Clock::now()) {
        ioc.run_one_until(until);
      }
    }
  }

  // -- work scheduled by pool threads (pools of two threads or more): the ready queues -----------
  //
  // An actor's drain scheduled on a pool thread (an actor woke another, a drain used its budget)
  // goes on that thread's own ready queue, not into Asio's handler queue. Asio's scheduler takes
  // one mutex for every post, every handler it hands out and every handler's end, and glibc's mutex
  // sends a thread that finds it held to sleep in the kernel and the one that releases it into the
  // kernel to wake it: two pool threads passing work back and forth met on it for nearly every
  // message, 0.7 system calls per factory job (docs/PERFORMANCE.md).
  //
  // Work an actor hands another stays on its thread unless it is worth moving. Spread eagerly (one
  // queue for the pool, and a sleeping thread woken for every drain queued), the actors of a chain
  // of short handlers (a factory and its workers, a ping-pong, a call) ran on both threads, and
  // every message between them, every pop and every push moved a cache line from one core to the
  // other: on this machine class that made them 2-3.5 times slower than kept on one thread
  // (docs/PERFORMANCE.md, the thirteenth round). So a pool thread measures the mean time of its
  // items (over every kReadyTimerCheck in a row, one clock read each time), and work moves when:
  //  - its items are heavy (kHeavyItem or more): a schedule, or a measure with work waiting, wakes a
  //    sleeping thread, and an idle thread steals from a heavy thread's queue;
  //  - work has waited on some queue through a share tick (1 ms, then every 2, 4 and 8 ms while work
  //    waits anywhere): the tick wakes a sleeping thread and grants the next idle thread one steal,
  //    whatever the items cost. This is what serves the drains a handler queued before it blocked
  //    its thread (tst_blocked_threads), as the inbox's watchdog does for work from outside.
  // A steal takes the older half of the other queue. A pool thread runs its own queue first, oldest
  // first; every kReadyTimerCheck items it runs what timers are due, and every kReadyAsioTurn items
  // one of Asio's handlers. With nothing it may take it sleeps in Asio (run_one: in its reactor or on
  // its condition variable), counted in `sleeping`. A drain that yielded wakes nobody: its own
  // thread comes back to it.

  void push_ready(Runnable& work, Urgency urgency) noexcept {
    PoolThread& me = *own_thread;
    me.queue.push(work);
    if (urgency != Urgency::yielded && me.heavy()) wake_one_if_asleep();
    watch_shares();
  }

  // Makes sure the share tick is armed (one tick at a time: whoever sets `sharing` arms it).
  void watch_shares() noexcept {
    if (!sharing.load(std::memory_order_seq_cst) && !sharing.exchange(true, std::memory_order_acq_rel))
      arm_share_tick(kShareFirst);
  }

  // After a push, whose store of the queue's size is sequentially consistent, as this load of
  // `sleeping` and the sleeper's increment of it and look at every queue's size: either this sees
  // the sleeper, or the sleeper sees the item. (No fence: ThreadSanitizer does not model them.)
  // At most one wake-up is in Asio's queue at a time (`wake_queued`, cleared by the handler as it
  // runs): more would only make the sleepers' next turns come back at once.
  void wake_one_if_asleep() noexcept {
    if (sleeping.load(std::memory_order_seq_cst) == 0) return;
    if (wake_queued.load(std::memory_order_relaxed) || wake_queued.exchange(true, std::memory_order_acq_rel)) return;
    boost::asio::post(ioc, [this] { wake_queued.store(false, std::memory_order_release); });
  }

  // Pool thread `self`: the next item of its own queue, else the older half of another's where
  // that one's items are heavy, or of any other's when the share tick has granted it.
  Runnable* next_ready(unsigned self) noexcept {
    ReadyQueue& own = threads_[self].queue;
    if (Runnable* r = own.pop()) return r;
    const bool granted = steal_granted.load(std::memory_order_relaxed) &&
                         steal_granted.exchange(false, std::memory_order_acq_rel);
    for (unsigned k = 1; k < threads; ++k) {
      PoolThread& other = threads_[(self + k) % threads];
      if (!granted && !other.heavy()) continue;
      if (Runnable* r = other.queue.steal_into(own)) return r;
    }
    return nullptr;
  }

  // Whether next_ready(self) would find something (sequentially consistent: see
  // wake_one_if_asleep; a thread about to sleep asks).
  bool may_take(unsigned self) const noexcept {
    if (threads_[self].queue.size(std::memory_order_seq_cst) != 0) return true;
    if (steal_granted.load(std::memory_order_seq_cst)) return true;
    for (unsigned k = 1; k < threads; ++k) {
      const PoolThread& other = threads_[(self + k) % threads];
      if (other.heavy() && other.queue.size(std::memory_order_seq_cst) != 0) return true;
    }
    return false;
  }

  bool any_ready() const noexcept {
    for (unsigned i = 0; i < threads; ++i)
      if (threads_[i].queue.size(std::memory_order_seq_cst) != 0) return true;
    return false;
  }

  // Every kReadyTimerCheck items in a row: the mean time they took, and with heavy items waiting
  // here and a pool thread asleep, a wake-up for it to take half of them.
  void measure_items(PoolThread& me) noexcept {
    const TimePoint now = Clock::now();
    me.item_ns.store((now - me.sampled).count() / kReadyTimerCheck, std::memory_order_relaxed);
    me.sampled = now;
    if (me.heavy() && me.queue.size() != 0) wake_one_if_asleep();
  }

  void run_pool_worker(unsigned self) {
    PoolThread& me = threads_[self];
    own_thread = &me;
    unsigned streak = 0;
    while (accepting.load(std::memory_order_acquire)) {
      if (Runnable* r = next_ready(self)) {
        if (streak == 0) me.sampled = Clock::now();
        r->run();
        if (++streak % kReadyTimerCheck == 0) {
          measure_items(me);
          run_due_timers();
        }
        if (streak % kReadyAsioTurn == 0) (void)ioc.poll_one();  // a long run: Asio's handlers get a turn
        continue;
      }
      streak = 0;
      if (idle_spin != Duration::zero() &&
          detail::spin_until(
              [this, self] {
                return may_take(self) || queued.load(std::memory_order_relaxed) > 0 ||
                       next_timer.load(std::memory_order_relaxed) <= Clock::now().time_since_epoch().count();
              },
              idle_spin)) {
        run_due_timers();  // due before the reactor would have said so
        // What came to Asio (a turn of the outside inbox), and only then: with nothing else
        // queued, poll_one runs Asio's reactor, a system call.
        if (queued.load(std::memory_order_relaxed) > 0) (void)ioc.poll_one();
        continue;
      }
      // Nothing ready anywhere: run Asio's handlers, sleeping in it when it has none. (Straight to
      // run_one, not first poll_one: that would run Asio's reactor, a system call, whenever it
      // has nothing else queued.)
      sleeping.fetch_add(1, std::memory_order_seq_cst);
      std::size_t ran = 1;
      if (!may_take(self)) ran = ioc.run_one();  // until some handler has run
      sleeping.fetch_sub(1, std::memory_order_relaxed);
      if (ran == 0) return;  // stopped
    }
  }

  // -- work scheduled from outside the pool: one lock-free inbox, one consumer at a time ---------
  //
  // A thread outside the pool (a program spawning actors in a loop, a blocking caller) pushes on
  // `inbox`, and only the push that finds it idle posts a handler: a burst of N schedules takes
  // Asio's scheduler lock and wakes a worker once, not N times. The handler (the consumer) runs the
  // items in the order they were pushed, at most kInboxBatch per turn; then it defers itself behind
  // the other handlers. One consumer at a time holds the inbox, so the items run one after another.
  //
  // An item is a drain, and a drain may run a handler that blocks its thread for seconds. Every
  // item queued behind it would wait that long while another pool thread sits idle, so the consumer
  // puts the inbox down while an item runs (`turn`: item sequence << 1 | running), and a watchdog
  // lets an idle pool thread take it over when one item has run for a whole tick. The watchdog
  // ticks from the first push that finds the inbox taken (an item waits behind the consumer) until
  // it sees the inbox idle, 1 ms after it starts and then every 2, 4, 8 ms. The old consumer finds
  // the inbox taken when its item returns and ends its turn. A fast item costs a store and an
  // uncontended CAS; a stuck one delays what is behind it by two ticks: 2 ms when the stall starts
  // the watchdog, at most 16 ms when it was already ticking slowly.

  // A posted turn of the inbox. Destroyed without running (the pool stopped), it leaves the items
  // where they are: shutdown() discards them.
  class InboxTurn {
   public:
    InboxTurn(Impl* s, std::atomic<std::int64_t>* queued) noexcept : s_(s), mark_(queued) {}
    InboxTurn(InboxTurn&& o) noexcept : s_(std::exchange(o.s_, nullptr)), mark_(std::move(o.mark_)) {}
    InboxTurn& operator=(InboxTurn&&) = delete;
    void operator()() {
      mark_.taken();
      std::exchange(s_, nullptr)->run_inbox();
    }

   private:
    Impl* s_;
    QueuedMark mark_;
  };

  std::atomic<std::int64_t>* count_queued() noexcept {
    if (idle_spin == Duration::zero()) return nullptr;
    queued.fetch_add(1, std::memory_order_relaxed);
    return &queued;
  }

  // Any thread outside the pool.
  void push_from_outside(Runnable& work) noexcept {
    if (inbox.push(work)) {
      boost::asio::post(ioc, InboxTurn(this, count_queued()));
      return;
    }
    // Queued behind a consumer, which may be stuck in an item: make sure the watchdog looks.
    if (threads > 1 && !watching.load(std::memory_order_seq_cst) && !watching.exchange(true, std::memory_order_acq_rel))
      arm_watch(kInboxWatchFirst);
  }

  // The consumer: a pool thread holding the inbox (one at a time).
  void run_inbox() noexcept {
    // The last value this consumer stored, or the one a takeover left: the item bit is clear.
    std::uint64_t mine = turn.load(std::memory_order_relaxed);
    for (unsigned n = 0; n < kInboxBatch; ++n) {
      // Shutting down: leave the rest in the inbox, where shutdown() discards it once the pool
      // has stopped (the inbox stays claimed, so nobody posts another turn).
      if (!accepting.load(std::memory_order_acquire)) return;
      Runnable* r = inbox.pop();
      if (r == nullptr) {
        inbox.take();
        r = inbox.pop();
        if (r == nullptr) {
          if (inbox.idle()) return;  // the next push from outside posts a new turn
          continue;                  // pushed meanwhile
        }
      }
      mine = next_item(mine) | kRunning;
      turn.store(mine, std::memory_order_release);  // the inbox may be taken over from here...
      r->run();
      // ...to here. Taken: the thread that took it is the consumer now.
      if (!turn.compare_exchange_strong(mine, mine & ~kRunning, std::memory_order_acquire, std::memory_order_relaxed))
        return;
      mine &= ~kRunning;
    }
    // Budget used: continue behind the handlers already queued, on this thread (defer wakes no
    // other thread; an idle worker that is awake may still take the turn).
    if (inbox.local_empty()) {
      inbox.take();
      if (inbox.local_empty() && inbox.idle()) return;
    }
    boost::asio::defer(ioc, InboxTurn(this, count_queued()));
  }

  static constexpr std::uint64_t kRunning = 1;
  static std::uint64_t next_item(std::uint64_t t) noexcept { return ((t >> 1) + 1) << 1; }

  // -- the pool's own timer work: the share tick and the inbox's watchdog ------------------------
  //
  // A timer's Runnable that calls one of Impl's members when it is due (on a pool thread, between
  // handlers). Discarded when the pool stops: there is nothing left to look at.
  template <void (Impl::*OnDue)() noexcept>
  class Tick final : public Runnable {
   public:
    explicit Tick(Impl& s) noexcept : s_(s) {}
    void run() noexcept override { (s_.*OnDue)(); }
    void discard() noexcept override {}

   private:
    Impl& s_;
  };

  // -- the share tick: armed while `sharing` ---------------------------------------------------
  void arm_share_tick(Duration period) noexcept {
    share_period = period;
    arm_timer(share_tick, Clock::now() + period);
  }

  // A pool thread between handlers (the tick is due): if work waits on some pool thread's queue,
  // a sleeping thread wakes to take half of it; the tick goes on, more slowly, until no work waits.
  void on_share_tick() noexcept {
    if (!accepting.load(std::memory_order_acquire)) return;
    Duration next = std::min<Duration>(share_period * 2, kShareSlowest);
    if (!any_ready()) {
      // Nothing waits: stop ticking, unless a push came before it could see `sharing` cleared.
      sharing.store(false, std::memory_order_seq_cst);
      if (!any_ready() || sharing.exchange(true, std::memory_order_acq_rel)) return;
      next = kShareFirst;
    }
    // Before the wake-up's look at `sleeping` (both seq_cst): a thread going to sleep meanwhile
    // sees the grant in may_take.
    steal_granted.store(true, std::memory_order_seq_cst);
    wake_one_if_asleep();
    arm_share_tick(next);
  }

  // -- the watchdog: one tick armed while `watching`; only its holder touches it -----------------
  void arm_watch(Duration period) noexcept {
    watch_period = period;
    arm_timer(watch_tick, Clock::now() + period);
  }

  // A pool thread between handlers (the tick is due).
  void on_watch() noexcept {
    if (!accepting.load(std::memory_order_acquire)) return;
    std::uint64_t seen = turn.load(std::memory_order_acquire);
    const bool stuck = (seen & kRunning) != 0 && seen == watched;
    watched = seen;
    Duration next = std::min<Duration>(watch_period * 2, kInboxWatchSlowest);
    if (!inbox.in_use()) {
      // Idle: stop ticking, unless a push made it busy again before it could see `watching`.
      watching.store(false, std::memory_order_seq_cst);
      if (!inbox.in_use() || watching.exchange(true, std::memory_order_acq_rel)) return;
      next = kInboxWatchFirst;
    }
    if (stuck) next = kInboxWatchFirst;  // the next consumer may block as well
    arm_watch(next);  // before taking over, which may not return for a long time
    if (stuck && turn.compare_exchange_strong(seen, next_item(seen), std::memory_order_acquire,
                                              std::memory_order_relaxed)) {
      run_inbox();
    }
  }

  const unsigned threads;
  const unsigned blocking_threads;
  const Duration idle_spin;
  const Duration wait_spin;  // for blocking waits outside the pool; workers use idle_spin
  std::atomic<std::int64_t> queued{0};
  // The earliest armed deadline (steady_clock ticks; kNoTimer when none): what idle workers sleep
  // until, and what every worker compares the clock with between handlers.
  std::atomic<Clock::rep> next_timer{kNoTimer};
  boost::asio::io_context ioc;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
  std::vector<std::thread> pool;
  std::atomic<bool> accepting{true};
  detail::RunnableInbox inbox;
  // Pools of two threads or more: one per pool thread (see "the ready queues").
  std::unique_ptr<PoolThread[]> threads_{threads > 1 ? new PoolThread[threads] : nullptr};
  alignas(64) std::atomic<bool> sharing{false};  // the share tick is armed
  std::atomic<bool> steal_granted{false};        // by the share tick: the next idle thread steals
  // The share tick's own (touched only by whoever holds `sharing`):
  Tick<&Impl::on_share_tick> share_tick{*this};
  Duration share_period{};
  std::atomic<unsigned> sleeping{0};  // pool threads asleep in Asio's run_one
  std::atomic<bool> wake_queued{false};  // an empty handler posted to wake one of them
  // Written by the consumer twice per item: a line of its own, so that producers reading `watching`
  // (once per push onto a taken inbox) do not pull it away from the consumer.
  alignas(64) std::atomic<std::uint64_t> turn{0};  // the inbox consumer's item sequence << 1 | running
  alignas(64) std::atomic<bool> watching{false};   // a watchdog wait is in flight
  // The watchdog's own (touched only by whoever holds `watching`):
  Tick<&Impl::on_watch> watch_tick{*this};
  std::uint64_t watched = 0;  // `turn` at the last tick
  Duration watch_period{};

  std::mutex timer_m;
  std::optional<boost::asio::steady_timer> timer;  // pools of two threads or more: see "timers" above
  std::map<std::pair<TimePoint, TimerToken>, Runnable*> by_deadline;
  std::unordered_map<TimerToken, TimePoint> by_token;
  TimerToken next_token = 1;
  TimePoint armed_for = TimePoint::max();
  bool stopped = false;

  std::mutex blocking_m;
  std::unique_ptr<boost::asio::thread_pool> blocking;
};

AsioRuntime::AsioRuntime(const RuntimeOptions& options) : impl_(std::make_unique<Impl>(options)) {
  impl_->pool.reserve(impl_->threads);
  for (unsigned i = 0; i < impl_->threads; ++i) {
    impl_->pool.emplace_back([this, i] {
      current_runtime = this;
      detail::RuntimeThreadScope scope;
      impl_->run_worker(i);
    });
  }
}

AsioRuntime::~AsioRuntime() {
  shutdown();
  // A schedule() that raced with shutdown() may have pushed after shutdown() emptied the inbox.
  impl_->inbox.drain([](Runnable& r) { r.discard(); });
}

unsigned AsioRuntime::thread_count() const noexcept { return impl_->threads; }

Placement AsioRuntime::place(const PlacementRequest& request) {
  if (request.kind == PlacementRequest::Kind::gui)
    throw std::invalid_argument(
        "the asio runtime has no GUI thread; spawn GUI actors on the \"qt\" runtime (PlacementRequest::gui())");
  return {};  // any pool thread: work is shared, not pinned
}

void AsioRuntime::schedule(Runnable& work, Placement, Urgency urgency) noexcept {
  if (!impl_->accepting.load(std::memory_order_acquire)) {
    work.discard();
    return;
  }
  if (current_runtime != this) {
    impl_->push_from_outside(work);
    return;
  }
  if (impl_->threads > 1) {
    impl_->push_ready(work, urgency);
    return;
  }
  // One thread: Asio's scheduler knows it has one thread, and a post from it takes no lock.
  // Counted only for spinning workers: without them the count would be an atomic increment and
  // decrement per drain for nothing.
  std::atomic<std::int64_t>* queued = impl_->count_queued();
  // A drain that yielded on a pool thread continues on that thread, behind what is queued
  // (asio's defer: no other thread is woken for it). Posted, it woke the other worker and moved
  // the actor there every budget of messages: a futex wake-up and a cold cache each time.
  if (urgency == Urgency::yielded) {
    boost::asio::defer(impl_->ioc, RunHandler(&work, queued));
  } else {
    boost::asio::post(impl_->ioc, RunHandler(&work, queued));
  }
}

TimerToken AsioRuntime::arm(Runnable& work, TimePoint deadline, Placement) noexcept {
  return impl_->arm_timer(work, deadline);
}

void AsioRuntime::disarm(TimerToken token) noexcept {
  Runnable* work = nullptr;
  {
    std::lock_guard lk(impl_->timer_m);
    auto d = impl_->by_token.find(token);
    if (d == impl_->by_token.end()) return;  // already fired (or firing): the core decides
    auto t = impl_->by_deadline.find({d->second, token});
    work = t->second;
    impl_->by_deadline.erase(t);
    impl_->by_token.erase(d);
    // next_timer may still name this deadline: a worker that wakes for it finds nothing due.
  }
  work->discard();
}

void AsioRuntime::run_blocking(Runnable& work) noexcept {
  if (!impl_->accepting.load(std::memory_order_acquire)) {
    work.discard();
    return;
  }
  boost::asio::thread_pool* pool = nullptr;
  {
    std::lock_guard lk(impl_->blocking_m);
    if (!impl_->blocking) impl_->blocking = std::make_unique<boost::asio::thread_pool>(impl_->blocking_threads);
    pool = impl_->blocking.get();
  }
  boost::asio::post(*pool, RunHandler(&work, nullptr));
}

bool AsioRuntime::on_runtime_thread() const noexcept { return current_runtime == this; }

Duration AsioRuntime::idle_spin() const noexcept { return impl_->idle_spin; }
Duration AsioRuntime::wait_spin() const noexcept { return impl_->wait_spin; }

void AsioRuntime::shutdown() noexcept {
  Impl& s = *impl_;
  if (!s.accepting.exchange(false)) return;
  std::map<std::pair<TimePoint, TimerToken>, Runnable*> timers;
  {
    std::lock_guard lk(s.timer_m);
    s.stopped = true;
    timers.swap(s.by_deadline);
    s.by_token.clear();
    s.next_timer.store(Impl::kNoTimer, std::memory_order_release);
    if (s.timer) s.timer->cancel();
  }
  for (auto& [key, r] : timers) r->discard();  // the watchdog's tick among them
  s.work.reset();
  s.ioc.stop();
  for (auto& t : s.pool)
    if (t.joinable()) t.join();
  {
    std::unique_ptr<boost::asio::thread_pool> blocking;
    {
      std::lock_guard lk(s.blocking_m);
      blocking = std::move(s.blocking);
    }
    if (blocking) blocking->join();
  }
  // Handlers still queued are destroyed with the io_context; RunHandler discards their work then.
  // What is left in the inbox and the ready queues is discarded now: no pool thread runs it any more.
  s.inbox.drain([](Runnable& r) { r.discard(); });
  for (unsigned i = 0; s.threads > 1 && i < s.threads; ++i)
    while (Runnable* r = s.threads_[i].queue.pop()) r->discard();
}

}  // namespace actorscope
