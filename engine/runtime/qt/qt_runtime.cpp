// The Qt backend: a Host QObject per thread receives drains and timer requests as events.
#include <actorscope/qt_runtime.hpp>

#include "../runnable_inbox.hpp"

#include <actorscope/detail/spin_wait.hpp>

#include <QAbstractEventDispatcher>
#include <QCoreApplication>
#include <QEvent>
#include <QObject>
#include <QRunnable>
#include <QThread>
#include <QThreadPool>
#include <QTimer>
#include <QTimerEvent>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace actorscope {

namespace {

thread_local const QtRuntime* current_runtime = nullptr;

class Host;
// The host whose run list the current thread is running (inside Host::run_slice), if any.
thread_local Host* slice_host = nullptr;

// How long one turn of a host's run list may keep its thread before other events go first.
constexpr Duration kSlice = std::chrono::microseconds(100);

// Timer tokens carry the host index in their low bits, so disarm knows which thread to ask.
constexpr unsigned kHostBits = 16;
constexpr TimerToken kHostMask = (TimerToken{1} << kHostBits) - 1;

const QEvent::Type kUrgentEvent = static_cast<QEvent::Type>(QEvent::registerEventType());
const QEvent::Type kSliceEvent = static_cast<QEvent::Type>(QEvent::registerEventType());
const QEvent::Type kArmEvent = static_cast<QEvent::Type>(QEvent::registerEventType());
const QEvent::Type kDisarmEvent = static_cast<QEvent::Type>(QEvent::registerEventType());
const QEvent::Type kStopEvent = static_cast<QEvent::Type>(QEvent::registerEventType());

// The events a Host receives. (Qt's queues are not built with ThreadSanitizer, so the Host itself
// carries the happens-before edge from poster to receiver: see Host::post and Host::event.)
class HandoffEvent : public QEvent {
 public:
  explicit HandoffEvent(Type t) : QEvent(t) {}
};

// A turn of the host's run list. Carries nothing: what it runs stays in the host's inbox, which
// the host discards if it goes away first.
class SliceEvent final : public HandoffEvent {
 public:
  SliceEvent() : HandoffEvent(kSliceEvent) {}
};

// A turn of the host's urgent list (kills, stops, a suspended handler's wake-ups), posted at high
// priority. Like a SliceEvent it carries nothing.
class UrgentEvent final : public HandoffEvent {
 public:
  UrgentEvent() : HandoffEvent(kUrgentEvent) {}
};

class ArmEvent final : public HandoffEvent {
 public:
  ArmEvent(TimerToken t, Runnable* r, TimePoint d) : HandoffEvent(kArmEvent), token(t), work(r), deadline(d) {}
  ~ArmEvent() override {
    if (work != nullptr) work->discard();
  }
  TimerToken token;
  Runnable* work;
  TimePoint deadline;
};

class DisarmEvent final : public HandoffEvent {
 public:
  explicit DisarmEvent(TimerToken t) : HandoffEvent(kDisarmEvent), token(t) {}
  TimerToken token;
};

class StopEvent final : public HandoffEvent {
 public:
  StopEvent() : HandoffEvent(kStopEvent) {}
};

// Whole milliseconds, rounded up: a Qt timer must never fire before the deadline.
int ms_until(TimePoint deadline, TimePoint now) {
  if (deadline <= now) return 0;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
  return static_cast<int>(std::min<std::int64_t>(ms, INT_MAX));
}

// Chooses the homes of the actors spawned from outside the runtime's threads (Placement::deferred).
//
// Round robin at spawn would spread a burst of them over every worker, and a program that spawns
// short-lived actors in a loop would keep waking every worker for one or two drains each: on a
// machine with as many workers as cores, the spawning thread then fights them for a core. So their
// first drains go to one worker, the target. There, just before the first drain runs, choose()
// settles the actor: on this worker if it holds no more of the settled actors still alive than any
// other worker, else on the worker with fewest (which becomes the target). An actor that ends in
// its first drain leaves the count as it was, so a burst of short-lived actors stays on one warm
// worker; long-lived ones spread evenly, as round robin would spread them.
class Settler {
 public:
  explicit Settler(std::uint32_t workers) : workers_(workers), live_(std::make_unique<Count[]>(workers)) {}

  /// The worker that takes the next deferred first drain. @thread any
  std::uint32_t target() const noexcept { return target_.load(std::memory_order_relaxed); }

  /// Settles an actor whose first drain is about to run on worker `here`: returns its home and
  /// counts it there. @thread any (normally `here`'s)
  std::uint32_t choose(std::uint32_t here) noexcept {
    std::uint32_t home = here;
    std::int32_t fewest = live_[here].n.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < workers_; ++i) {
      const std::int32_t n = live_[i].n.load(std::memory_order_relaxed);
      if (n < fewest) {
        fewest = n;
        home = i;
      }
    }
    live_[home].n.fetch_add(1, std::memory_order_relaxed);
    if (home != here) target_.store(home, std::memory_order_relaxed);
    return home;
  }

  /// An actor settled on `home` has exited. @thread its
  void vacate(std::uint32_t home) noexcept {
    if (home < workers_) live_[home].n.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  struct alignas(64) Count {
    std::atomic<std::int32_t> n{0};
  };
  const std::uint32_t workers_;
  std::unique_ptr<Count[]> live_;  // each on its own cache line: written by its worker
  alignas(64) std::atomic<std::uint32_t> target_{0};
};

// One per thread. Lives on its thread; only that thread touches its timers and runs its run list.
//
// Ordinary drains do not travel as one Qt event each. They go to the host's run list: a lock-free
// inbox that any thread pushes to, and that only the push finding it idle announces with a posted
// SliceEvent. The event runs the list in FIFO order for up to kSlice, taking in what is pushed
// meanwhile, and posts a new SliceEvent only if work is left when the slice ends (the time is up,
// or one of our urgent events is waiting). A drain that yields, or any drain scheduled from inside
// the slice to the same host, is appended to the list directly: a self-message loop then costs
// one posted event (three system calls) per slice instead of one per budget of messages. Kills
// and stops (Urgency::high) go to a second list, the urgent list, announced the same way but with
// an UrgentEvent at high priority that ends the slice in progress, so that they overtake the run
// list: stopping a million actors from outside posts a handful of events, not a million. Timer
// requests and the stop of the thread are still posted one event each, at high priority.
class Host final : public QObject {
 public:
  Host(const QtRuntime& rt, std::uint32_t index, bool gui, const std::atomic<bool>& accepting, Settler& settler,
       const std::vector<std::unique_ptr<Host>>& hosts)
      : rt_(rt), index_(index), gui_(gui), accepting_(accepting), settler_(settler), hosts_(hosts) {}
  ~Host() override {
    drop_timers();
    discard_run_list();
  }

  /// Runs `work` soon on this host, ahead of the run list: one posted event per burst. @thread any
  void enqueue_urgent(Runnable& work) {
    if (urgent_list_.push(work)) {
      post_urgent();
    } else if (blocked_in_urgent_.load(std::memory_order_seq_cst) && blocked_in_urgent_.exchange(false)) {
      post_urgent();  // claimed by a turn whose handler sleeps in a nested loop (see keep_nested_loops_fed)
    }
  }

  /// Posts one of our urgent events to this host; the count of those not yet received lets
  /// keep_nested_loops_fed() tell an idle thread from one whose events are stuck, and ends a slice
  /// of the run list early. The release here and the acquire at the top of event() also make
  /// everything the poster did before posting visible to the receiver, in a way ThreadSanitizer
  /// can see.
  void post(HandoffEvent* e, int priority) {
    urgent_.fetch_add(1, std::memory_order_relaxed);
    in_flight_.fetch_add(1, std::memory_order_release);
    post_event(e, priority);
  }

  /// Runs `work` soon on this host, in FIFO order with the other ordinary work. @thread any
  void enqueue(Runnable& work) {
    if (slice_host == this) {
      run_list_.push_local(work);  // we are the consumer, in a slice: it goes on after the others
      return;
    }
    // The inbox's release/acquire orders what the pusher did before the work runs.
    if (run_list_.push(work)) {
      post_slice();
    } else if (blocked_in_slice_.load(std::memory_order_seq_cst) && blocked_in_slice_.exchange(false)) {
      // The list is claimed by a slice whose handler runs a nested event loop that has gone to
      // sleep (see keep_nested_loops_fed): nobody else would wake it for this work.
      post_slice();
    }
  }

  /// Discards what the run list and the urgent list still hold. Only once nothing runs them any
  /// more (shutdown).
  void discard_run_list() noexcept {
    urgent_list_.drain([](Runnable& r) { r.discard(); });
    run_list_.drain([](Runnable& r) { r.discard(); });
  }

  /// Qt's GLib dispatcher only dispatches posted events when something was posted since its current
  /// dispatch began, so a handler that runs a nested event loop (a QDialog::exec, a QEventLoop) would
  /// leave the drains already queued behind it undelivered. Before the thread blocks, if any of ours
  /// are still outstanding, wake the dispatcher: the nested loop then delivers them.
  ///
  /// On a worker thread, first look for our events for up to `spin` before the thread sleeps:
  /// waking a sleeping thread costs far more than a short spin (bench-reference.md). Not on the
  /// GUI thread, whose other events must not wait. (Qt's GLib dispatcher announces aboutToBlock
  /// before every wait-capable iteration, so the spin is bounded and skipped when ours are queued.)
  ///
  /// The run list has the same problem without GLib: while a slice runs a handler that runs a
  /// nested loop, the rest of the list waits for that slice, and pushes do not post (the list is
  /// claimed). So when the thread is about to block inside a slice, it first says so
  /// (blocked_in_slice_, which the next push answers with a SliceEvent), then posts one itself if
  /// work is listed already: the nested loop runs the list (a slice inside the slice) and the
  /// host's other actors keep running. The flag and the list's head are written and then read in
  /// opposite orders on the two sides, all seq_cst, so at least one side sees the other.
  void keep_nested_loops_fed(QAbstractEventDispatcher* dispatcher, Duration spin) {
    QObject::connect(dispatcher, &QAbstractEventDispatcher::aboutToBlock, this, [this, dispatcher, spin] {
      if (depth_ > 0) {
        blocked_in_slice_.store(true, std::memory_order_seq_cst);
        if (slices_posted_.load(std::memory_order_acquire) == 0 && run_list_.has_work() &&
            blocked_in_slice_.exchange(false))
          post_slice();
      }
      if (urgent_depth_ > 0) {  // the same for a turn of the urgent list
        blocked_in_urgent_.store(true, std::memory_order_seq_cst);
        if (urgent_posted_.load(std::memory_order_acquire) == 0 && urgent_list_.has_work() &&
            blocked_in_urgent_.exchange(false))
          post_urgent();
      }
      if (!gui_ && spin > Duration::zero() && in_flight_.load(std::memory_order_acquire) == 0)
        (void)detail::spin_until([this] { return in_flight_.load(std::memory_order_acquire) > 0; }, spin);
      if (in_flight_.load(std::memory_order_acquire) > 0) dispatcher->wakeUp();
    }, Qt::DirectConnection);
  }

  void arm_here(TimerToken token, Runnable* work, TimePoint deadline) {
    const int id = startTimer(ms_until(deadline, Clock::now()), Qt::PreciseTimer);
    if (id == 0) {  // Qt could not make a timer; better late than never
      run_here(*work);
      return;
    }
    timers_.emplace(token, Timer{id, work, deadline});
    by_id_.emplace(id, token);
  }

  void disarm_here(TimerToken token) {
    auto it = timers_.find(token);
    if (it == timers_.end()) return;  // already fired
    killTimer(it->second.id);
    by_id_.erase(it->second.id);
    Runnable* work = it->second.work;
    timers_.erase(it);
    work->discard();
  }

  void drop_timers() {
    for (auto& [token, t] : timers_) {
      killTimer(t.id);
      t.work->discard();
    }
    timers_.clear();
    by_id_.clear();
  }

 protected:
  bool event(QEvent* e) override {
    (void)in_flight_.load(std::memory_order_acquire);  // before touching the event at all
    const QEvent::Type type = e->type();
    if (type == kSliceEvent) {
      in_flight_.fetch_sub(1, std::memory_order_acq_rel);
      slices_posted_.fetch_sub(1, std::memory_order_acq_rel);
      run_slice();
      return true;
    }
    if (type == kUrgentEvent || type == kArmEvent || type == kDisarmEvent || type == kStopEvent) {
      in_flight_.fetch_sub(1, std::memory_order_acq_rel);
      urgent_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (type == kUrgentEvent) {
      urgent_posted_.fetch_sub(1, std::memory_order_acq_rel);
      run_urgent();
      return true;
    }
    if (type == kArmEvent) {
      auto* ev = static_cast<ArmEvent*>(e);
      arm_here(ev->token, std::exchange(ev->work, nullptr), ev->deadline);
      return true;
    }
    if (type == kDisarmEvent) {
      auto* ev = static_cast<DisarmEvent*>(e);
      disarm_here(ev->token);
      return true;
    }
    if (type == kStopEvent) {
      drop_timers();
      if (!gui_) thread()->quit();
      return true;
    }
    return QObject::event(e);
  }

  void timerEvent(QTimerEvent* e) override {
    auto id = by_id_.find(e->timerId());
    if (id == by_id_.end()) {
      killTimer(e->timerId());
      return;
    }
    const TimerToken token = id->second;
    by_id_.erase(id);
    auto it = timers_.find(token);
    Timer& t = it->second;
    killTimer(t.id);
    const TimePoint now = Clock::now();
    if (now < t.deadline) {  // never early: wait out the rest
      t.id = startTimer(ms_until(t.deadline, now), Qt::PreciseTimer);
      by_id_.emplace(t.id, token);
      return;
    }
    Runnable* work = t.work;
    timers_.erase(it);
    run_here(*work);
  }

 private:
  void post_slice() {
    auto* e = new SliceEvent;  // made before the release below, like every event passed to post()
    slices_posted_.fetch_add(1, std::memory_order_relaxed);
    in_flight_.fetch_add(1, std::memory_order_release);
    post_event(e, Qt::NormalEventPriority);
  }

  void post_urgent() {
    auto* e = new UrgentEvent;
    urgent_posted_.fetch_add(1, std::memory_order_relaxed);
    post(e, Qt::HighEventPriority);
  }

  // One turn of the urgent list, on the host's thread: as run_slice, without settling (urgent work
  // is always for a settled actor) and without yielding to the run list, which it overtakes. A
  // flood of urgent work still lets the thread's other events in after each kSlice.
  void run_urgent() {
    blocked_in_urgent_.store(false, std::memory_order_relaxed);
    ++urgent_depth_;
    const TimePoint end = Clock::now() + kSlice;
    for (;;) {
      if (!accepting_.load(std::memory_order_acquire)) break;
      if (urgent_list_.pushed()) urgent_list_.take();
      Runnable* r = urgent_list_.pop();
      if (r == nullptr) {
        if (urgent_list_.idle()) break;  // the next push posts a new UrgentEvent
        continue;
      }
      run_here(*r);
      if (Clock::now() >= end) {
        if (urgent_list_.local_empty()) urgent_list_.take();
        if (!(urgent_list_.local_empty() && urgent_list_.idle()) && urgent_posted_.load(std::memory_order_acquire) == 0)
          post_urgent();
        break;
      }
    }
    --urgent_depth_;
  }

  // Qt inserts a posted event into the receiving thread's list under a mutex inside libQt6Core,
  // which ThreadSanitizer cannot see: two threads posting to one host then look like a race in
  // Qt's list code (a memmove, when an event is inserted by priority). Under TSan, posts to a host
  // take a mutex it can see, which orders them as Qt's own does; in other builds this is nothing.
  void post_event(QEvent* e, int priority) {
#if defined(__SANITIZE_THREAD__)
    std::lock_guard lk(tsan_post_m_);
#endif
    QCoreApplication::postEvent(this, e, priority);
  }

  // One turn of the run list, on the host's thread. A handler may run a nested event loop that
  // runs another turn (see keep_nested_loops_fed): the list's state lives in run_list_, not here.
  void run_slice() {
    blocked_in_slice_.store(false, std::memory_order_relaxed);  // awake, and consuming
    ++depth_;
    Host* const outer = std::exchange(slice_host, this);
    const TimePoint end = Clock::now() + kSlice;
    for (;;) {
      // Shutting down: what is left is discarded with the host (workers) or by shutdown() (GUI).
      if (!accepting_.load(std::memory_order_acquire)) break;
      if (run_list_.pushed()) run_list_.take();  // others' work joins the queue as it arrives
      Runnable* r = run_list_.pop();
      if (r == nullptr) {
        if (run_list_.idle()) break;  // the next push posts a new SliceEvent
        continue;
      }
      if (r->runtime_mark != 0) [[unlikely]] {  // the first drain of an actor spawned from outside
        if (!settle_here(*r)) continue;
      }
      run_here(*r);
      if (urgent_.load(std::memory_order_relaxed) > 0 || Clock::now() >= end) {
        // Let Qt deliver what is waiting (our urgent events, timers, other objects' events), and
        // come back behind it if work is left.
        if (run_list_.local_empty()) run_list_.take();
        if (!(run_list_.local_empty() && run_list_.idle()) && slices_posted_.load(std::memory_order_acquire) == 0)
          post_slice();
        break;
      }
    }
    slice_host = outer;
    --depth_;
  }

  // The first drain of an actor spawned from outside (Placement::deferred) is about to run here.
  // Settles the actor: here (true: run it now), or on another worker, whose run list it joins.
  bool settle_here(Runnable& first) {
    first.runtime_mark = 0;
    const std::uint32_t home = settler_.choose(index_);
    first.settle(Placement{home});
    if (home == index_) return true;
    hosts_[home]->enqueue(first);
    return false;
  }

  void run_here(Runnable& work) {
    if (!gui_) {
      work.run();  // a worker thread is marked as an actor thread for its whole life
      return;
    }
    // The GUI thread runs actors only inside these events; outside them it may block (and drive).
    const QtRuntime* outer = std::exchange(current_runtime, &rt_);
    {
      detail::RuntimeThreadScope scope;
      work.run();
    }
    current_runtime = outer;
  }

  struct Timer {
    int id;
    Runnable* work;
    TimePoint deadline;
  };
  const QtRuntime& rt_;
  const std::uint32_t index_;
  const bool gui_;
  const std::atomic<bool>& accepting_;
  Settler& settler_;
  const std::vector<std::unique_ptr<Host>>& hosts_;
  std::atomic<int> in_flight_{0};      // our events posted and not yet received
#if defined(__SANITIZE_THREAD__)
  std::mutex tsan_post_m_;  // see post_event()
#endif
  std::atomic<int> urgent_{0};         // of which the ones that are not SliceEvents
  std::atomic<int> slices_posted_{0};  // of which SliceEvents
  std::atomic<int> urgent_posted_{0};  // of the urgent ones, UrgentEvents
  int depth_ = 0;                      // slices running on this thread (more than one: nested loops)
  int urgent_depth_ = 0;               // turns of the urgent list running on this thread
  std::atomic<bool> blocked_in_slice_{false};   // about to block in a nested loop inside a slice
  std::atomic<bool> blocked_in_urgent_{false};  // ... inside a turn of the urgent list
  detail::RunnableInbox run_list_;
  detail::RunnableInbox urgent_list_;
  std::unordered_map<TimerToken, Timer> timers_;
  std::unordered_map<int, TimerToken> by_id_;
};

class Worker final : public QThread {
 public:
  Worker(const QtRuntime& rt, Host& host, std::latch& started, Duration spin, const std::atomic<bool>& stops_posted)
      : rt_(rt), host_(host), started_(started), spin_(spin), stops_posted_(stops_posted) {}

 protected:
  void run() override {
    current_runtime = &rt_;
    detail::RuntimeThreadScope scope;
    host_.keep_nested_loops_fed(eventDispatcher(), spin_);
    started_.count_down();
    exec();
    current_runtime = nullptr;
    // QCoreApplication::postEvent wakes the receiving thread's dispatcher after it has queued the
    // event, so the thread that posted our StopEvent may still be inside wakeUp() when we leave
    // exec(). Qt deletes this thread's dispatcher as soon as run() returns: wait until shutdown()
    // has finished posting (ThreadSanitizer saw the eventfd written and closed at once).
    stops_posted_.wait(false, std::memory_order_acquire);
    exited_.store(true, std::memory_order_release);
  }

 public:
  /// QThread::wait() synchronises inside Qt, where ThreadSanitizer cannot see it; joining through
  /// this makes everything the thread did visibly happen before what the joiner does next.
  void join() {
    wait();
    (void)exited_.load(std::memory_order_acquire);
  }

 private:
  std::atomic<bool> exited_{false};

 private:
  const QtRuntime& rt_;
  Host& host_;
  std::latch& started_;
  const Duration spin_;
  const std::atomic<bool>& stops_posted_;
};

class BlockingJob final : public QRunnable {
 public:
  explicit BlockingJob(Runnable* r) : work_(r) { published_.store(true, std::memory_order_release); }
  ~BlockingJob() override {
    if (work_ != nullptr) work_->discard();  // cleared from the pool before it ran
  }
  void run() override {
    (void)published_.load(std::memory_order_acquire);
    std::exchange(work_, nullptr)->run();
  }

 private:
  Runnable* work_;
  std::atomic<bool> published_{false};
};

}  // namespace

struct QtRuntime::Impl {
  std::unique_ptr<QCoreApplication> owned_app;
  QThread* gui_thread = nullptr;
  QAbstractEventDispatcher* gui_dispatcher = nullptr;
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::unique_ptr<Host>> hosts;  // workers first, then the GUI host
  std::vector<QThread*> host_threads;
  std::uint32_t worker_count = 0;
  std::unique_ptr<Settler> settler;
  std::atomic<TimerToken> next_timer{1};
  std::atomic<bool> accepting{true};
  std::atomic<bool> stops_posted{false};  // shutdown() has posted every worker its StopEvent
  Duration idle_spin{};
  Duration wait_spin{};  // for blocking waits off the GUI thread; workers use idle_spin
  QThreadPool blocking;
  // Round robin for spawns on runtime threads. On a line of its own: every such spawn writes it,
  // and the workers read `accepting` beside it all the time.
  alignas(64) std::atomic<std::uint32_t> next_host{0};

  Host& host(std::uint32_t i) const noexcept { return *hosts[std::min<std::size_t>(i, hosts.size() - 1)]; }
  bool on_host_thread(std::uint32_t i) const noexcept {
    return QThread::currentThread() == host_threads[std::min<std::size_t>(i, host_threads.size() - 1)];
  }
};

QtRuntime::QtRuntime(const RuntimeOptions& options) : impl_(std::make_unique<Impl>()) {
  using QA = RuntimeOptions::QtApplication;
  QCoreApplication* app = QCoreApplication::instance();
  if (options.qt_application == QA::existing && app == nullptr)
    throw QtRuntimeError(
        "make_runtime(\"qt\") was told the program provides the Q(Core)Application "
        "(RuntimeOptions::QtApplication::existing), but none exists yet. Create the QApplication before the "
        "runtime, or use QtApplication::automatic to let the runtime make one.");
  if (options.qt_application == QA::owned && app != nullptr)
    throw QtRuntimeError(
        "make_runtime(\"qt\") was asked to make its own Q(Core)Application (RuntimeOptions::QtApplication::owned), "
        "but the program already has one. Use QtApplication::existing or automatic to run on it.");
  if (app != nullptr && QThread::currentThread() != app->thread())
    throw QtRuntimeError(
        "make_runtime(\"qt\") must be called on the thread that owns the Q(Core)Application (normally the main "
        "thread): that thread becomes the runtime's GUI host. It was called on another thread.");
  if (app == nullptr) {
    static int argc = 1;
    static char name[] = "actorscope";
    static char* argv[] = {name, nullptr};
    impl_->owned_app = std::make_unique<QCoreApplication>(argc, argv);
    app = impl_->owned_app.get();
  }
  impl_->gui_thread = app->thread();
  impl_->gui_dispatcher = QAbstractEventDispatcher::instance(impl_->gui_thread);

  const unsigned n = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  if (n > kHostMask) throw QtRuntimeError("the qt runtime supports at most 65535 worker threads");
  impl_->worker_count = n;
  impl_->settler = std::make_unique<Settler>(n);
  impl_->idle_spin = options.effective_idle_spin();
  impl_->wait_spin = options.effective_wait_spin();
  impl_->blocking.setMaxThreadCount(static_cast<int>(options.blocking_threads != 0 ? options.blocking_threads : 4));

  // Qt gives a thread the GLib dispatcher unless QT_NO_GLIB is set when the thread starts; making
  // a QEventDispatcherUNIX ourselves would take private API. So the variable is set while the
  // workers start (each has made its dispatcher by the time it counts down `started`) and removed
  // again. A program that sets QT_NO_GLIB itself is left alone.
  class NoGlibWhileStarting {
   public:
    explicit NoGlibWhileStarting(bool on) : on_(on) {
      if (on_) qputenv("QT_NO_GLIB", "1");
    }
    ~NoGlibWhileStarting() { end(); }
    void end() {
      if (std::exchange(on_, false)) qunsetenv("QT_NO_GLIB");
    }

   private:
    bool on_;
  };
  NoGlibWhileStarting no_glib(options.qt_worker_dispatcher == RuntimeOptions::QtDispatcher::own &&
                              !qEnvironmentVariableIsSet("QT_NO_GLIB"));
  std::latch started(static_cast<std::ptrdiff_t>(n));
  for (unsigned i = 0; i < n; ++i) {
    auto host = std::make_unique<Host>(*this, i, false, impl_->accepting, *impl_->settler, impl_->hosts);
    auto worker = std::make_unique<Worker>(*this, *host, started, impl_->idle_spin, impl_->stops_posted);
    worker->setObjectName(QStringLiteral("actorscope-qt-%1").arg(i));
    host->moveToThread(worker.get());
    impl_->host_threads.push_back(worker.get());
    impl_->hosts.push_back(std::move(host));
    worker->start();
    impl_->workers.push_back(std::move(worker));
  }
  impl_->hosts.push_back(std::make_unique<Host>(*this, n, true, impl_->accepting, *impl_->settler,
                                                impl_->hosts));  // the GUI host, on this thread
  impl_->host_threads.push_back(impl_->gui_thread);
  if (impl_->gui_dispatcher != nullptr) impl_->hosts.back()->keep_nested_loops_fed(impl_->gui_dispatcher, Duration::zero());
  started.wait();
  no_glib.end();
}

QtRuntime::~QtRuntime() {
  shutdown();
  if (QThread::currentThread() != impl_->gui_thread) {
    std::fprintf(stderr,
                 "actorscope: the qt runtime was destroyed on a thread other than the one that created it; "
                 "its GUI host is leaked rather than deleted from the wrong thread\n");
    (void)impl_->hosts.back().release();
    (void)impl_->owned_app.release();
    return;
  }
  impl_->hosts.clear();
  impl_->owned_app.reset();
}

unsigned QtRuntime::thread_count() const noexcept { return impl_->worker_count; }
void QtRuntime::vacate(Placement home) noexcept { impl_->settler->vacate(home.host); }
std::uint32_t QtRuntime::gui_host() const noexcept { return impl_->worker_count; }
bool QtRuntime::owns_application() const noexcept { return impl_->owned_app != nullptr; }

Placement QtRuntime::place(const PlacementRequest& request) {
  const std::uint32_t n = impl_->worker_count;
  switch (request.kind) {
    case PlacementRequest::Kind::any:
      // Spawned from outside: settled when it first runs (see Settler). On a runtime thread (an
      // actor spawning children): round robin.
      if (!on_runtime_thread() && n > 1) return Placement::deferred();
      return {impl_->next_host.fetch_add(1, std::memory_order_relaxed) % n};
    case PlacementRequest::Kind::gui:
      return {n};
    case PlacementRequest::Kind::host:
      if (request.host >= n)
        throw std::invalid_argument("worker host " + std::to_string(request.host) + " does not exist: this qt runtime has " +
                                    std::to_string(n) + " (0 to " + std::to_string(n - 1) +
                                    "); use PlacementRequest::gui() for the GUI thread");
      return {request.host};
  }
  return {0};
}

void QtRuntime::schedule(Runnable& work, Placement where, Urgency urgency) noexcept {
  if (!impl_->accepting.load(std::memory_order_acquire)) {
    work.discard();
    return;
  }
  if (where.is_deferred()) [[unlikely]] {
    // Only an actor's first drain is scheduled unsettled (launched at normal urgency: nothing can
    // be pending yet): to the target worker's run list, settled when it runs.
    work.runtime_mark = 1;
    impl_->host(impl_->settler->target()).enqueue(work);
    return;
  }
  Host& host = impl_->host(where.host);
  if (urgency == Urgency::high) {
    host.enqueue_urgent(work);  // overtakes the run list
  } else {
    host.enqueue(work);
  }
}

TimerToken QtRuntime::arm(Runnable& work, TimePoint deadline, Placement where) noexcept {
  if (!impl_->accepting.load(std::memory_order_acquire)) {
    work.discard();
    return 0;
  }
  // A timer for an actor not settled yet only wakes it: any worker will do.
  const std::uint32_t h = where.is_deferred() ? impl_->settler->target() : std::min(where.host, impl_->worker_count);
  const TimerToken token = (impl_->next_timer.fetch_add(1, std::memory_order_relaxed) << kHostBits) | h;
  if (impl_->on_host_thread(h)) {
    impl_->host(h).arm_here(token, &work, deadline);
  } else {
    // Timers belong to their host's thread; arm and disarm requests travel at the same priority so
    // they are handled in the order they were made.
    impl_->host(h).post(new ArmEvent(token, &work, deadline), Qt::HighEventPriority);
  }
  return token;
}

void QtRuntime::disarm(TimerToken token) noexcept {
  if (token == 0 || !impl_->accepting.load(std::memory_order_acquire)) return;
  const auto h = static_cast<std::uint32_t>(token & kHostMask);
  if (impl_->on_host_thread(h)) {
    impl_->host(h).disarm_here(token);
  } else {
    impl_->host(h).post(new DisarmEvent(token), Qt::HighEventPriority);
  }
}

void QtRuntime::run_blocking(Runnable& work) noexcept {
  if (!impl_->accepting.load(std::memory_order_acquire)) {
    work.discard();
    return;
  }
  impl_->blocking.start(new BlockingJob(&work));
}

bool QtRuntime::on_runtime_thread() const noexcept { return current_runtime == this; }

Duration QtRuntime::idle_spin() const noexcept { return impl_->idle_spin; }
Duration QtRuntime::wait_spin() const noexcept { return impl_->wait_spin; }

bool QtRuntime::drives_waits() const noexcept { return QThread::currentThread() == impl_->gui_thread; }

bool QtRuntime::drive_until(const std::function<bool()>& done, TimePoint deadline) {
  // The GUI thread's actors run only while it processes events, so a wait there processes them.
  // Engine completions wake the loop at once (wake_driver); the tick bounds how long any other
  // condition, and the deadline, can go unnoticed.
  QTimer tick;
  tick.start(5);
  while (!done()) {
    if (Clock::now() >= deadline) return done();
    impl_->gui_dispatcher->processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
  }
  return true;
}

void QtRuntime::wake_driver() noexcept {
  if (impl_->gui_dispatcher != nullptr) impl_->gui_dispatcher->wakeUp();
}

void QtRuntime::shutdown() noexcept {
  if (!impl_->accepting.exchange(false)) return;
  impl_->blocking.clear();  // queued jobs are discarded
  impl_->blocking.waitForDone();
  // Each worker drops its timers and leaves its event loop; then the threads are joined.
  for (std::uint32_t i = 0; i < impl_->worker_count; ++i)
    impl_->hosts[i]->post(new StopEvent, Qt::HighEventPriority);
  impl_->stops_posted.store(true, std::memory_order_release);
  impl_->stops_posted.notify_all();
  for (auto& w : impl_->workers) w->join();
  // With their threads gone, deleting the worker hosts deletes (and so discards) what was still queued.
  for (std::uint32_t i = 0; i < impl_->worker_count; ++i) impl_->hosts[i].reset();
  impl_->workers.clear();
  if (QThread::currentThread() == impl_->gui_thread) {
    Host& gui = *impl_->hosts.back();
    gui.drop_timers();
    QCoreApplication::removePostedEvents(&gui);
    gui.discard_run_list();
  }
}

namespace {
const bool registered_qt = [] {
  register_runtime("qt", [](const RuntimeOptions& o) -> std::unique_ptr<Runtime> { return std::make_unique<QtRuntime>(o); });
  return true;
}();
}  // namespace

}  // namespace actorscope
