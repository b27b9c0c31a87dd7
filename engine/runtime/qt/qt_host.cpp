// Host: the run list, the urgent list, the timers, and the handoff events' arrival. The hot path
// (post_slice, run_slice) lives here; enqueue is inline in qt_host.hpp, with `slice_host_`.
#include "qt_host.hpp"

#include <actorscope/detail/spin_wait.hpp>

#include <QAbstractEventDispatcher>
#include <QThread>
#include <QTimerEvent>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <utility>

namespace actorscope::detail::qt {

const QEvent::Type HandoffEvent::type = static_cast<QEvent::Type>(QEvent::registerEventType());

namespace {

// How long one turn of a host's run list may keep its thread before other events go first.
constexpr Duration kSlice = std::chrono::microseconds(100);

// Whole milliseconds, rounded up: a Qt timer must never fire before the deadline.
int ms_until(TimePoint deadline, TimePoint now) {
  if (deadline <= now) return 0;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
  return static_cast<int>(std::min<std::int64_t>(ms, INT_MAX));
}

}  // namespace

// -- what each handoff event does when it arrives (Host::event) --

void SliceEvent::deliver(Host& host) {
  host.run_slice();
}
void UrgentEvent::deliver(Host& host) {
  host.run_urgent();
}
void ArmEvent::deliver(Host& host) {
  host.arm_here(token, std::exchange(work, nullptr), deadline);
}
void DisarmEvent::deliver(Host& host) {
  host.disarm_here(token);
}
void StopEvent::deliver(Host& host) {
  host.stop_here();
}

Host::~Host() {
  drop_timers();
  discard_run_list();
}

void Host::enqueue_urgent(Runnable& work) {
  if (urgent_list_.push(work)) {
    post_urgent();
  } else if (blocked_in_urgent_.load(std::memory_order_seq_cst) && blocked_in_urgent_.exchange(false)) {
    post_urgent();  // claimed by a turn whose handler sleeps in a nested loop (see keep_nested_loops_fed)
  }
}

void Host::discard_run_list() noexcept {
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
void Host::keep_nested_loops_fed(QAbstractEventDispatcher* dispatcher, Duration spin) {
  QObject::connect(
      dispatcher, &QAbstractEventDispatcher::aboutToBlock, this,
      [this, dispatcher, spin] {
        if (depth_ > 0) {
          blocked_in_slice_.store(true, std::memory_order_seq_cst);
          if (tally_.pending(Handoff::slice) == 0 && run_list_.has_work() &&
              blocked_in_slice_.exchange(false))
            post_slice();
        }
        if (urgent_depth_ > 0) {  // the same for a turn of the urgent list
          blocked_in_urgent_.store(true, std::memory_order_seq_cst);
          if (tally_.pending(Handoff::urgent) == 0 && urgent_list_.has_work() &&
              blocked_in_urgent_.exchange(false))
            post_urgent();
        }
        if (!gui_ && spin > Duration::zero() && tally_.in_flight() == 0)
          (void)detail::spin_until([this] { return tally_.in_flight() > 0; }, spin);
        if (tally_.in_flight() > 0) dispatcher->wakeUp();
      },
      Qt::DirectConnection);
}

void Host::arm_here(TimerToken token, Runnable* work, TimePoint deadline) {
  const int id = startTimer(ms_until(deadline, Clock::now()), Qt::PreciseTimer);
  if (id == 0) {  // Qt could not make a timer; better late than never
    run_here(*work);
    return;
  }
  timers_.emplace(token, Timer{id, work, deadline});
  by_id_.emplace(id, token);
}

void Host::disarm_here(TimerToken token) {
  auto it = timers_.find(token);
  if (it == timers_.end()) return;  // already fired
  killTimer(it->second.id);
  by_id_.erase(it->second.id);
  Runnable* work = it->second.work;
  timers_.erase(it);
  work->discard();
}

void Host::drop_timers() {
  for (auto& [token, t] : timers_) {
    killTimer(t.id);
    t.work->discard();
  }
  timers_.clear();
  by_id_.clear();
}

void Host::stop_here() {
  drop_timers();
  if (!gui_) thread()->quit();
}

bool Host::event(QEvent* e) {
  (void)tally_.in_flight();  // the acquire, before touching the event at all
  if (e->type() != HandoffEvent::type) return QObject::event(e);
  auto* handoff = static_cast<HandoffEvent*>(e);
  tally_.received(*handoff);
  handoff->deliver(*this);
  return true;
}

void Host::timerEvent(QTimerEvent* e) {
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

void Host::post_slice() {
  post(new SliceEvent);
}  // made before the tally's release, like every event

void Host::post_urgent() {
  post(new UrgentEvent);
}

// One turn of the urgent list, on the host's thread: as run_slice, without settling (urgent work
// is always for a settled actor) and without yielding to the run list, which it overtakes. A
// flood of urgent work still lets the thread's other events in after each kSlice.
void Host::run_urgent() {
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
      if (!(urgent_list_.local_empty() && urgent_list_.idle()) && tally_.pending(Handoff::urgent) == 0)
        post_urgent();
      break;
    }
  }
  --urgent_depth_;
}

// One turn of the run list, on the host's thread. A handler may run a nested event loop that
// runs another turn (see keep_nested_loops_fed): the list's state lives in run_list_, not here.
void Host::run_slice() {
  blocked_in_slice_.store(false, std::memory_order_relaxed);  // awake, and consuming
  ++depth_;
  Host* const outer = std::exchange(slice_host_, this);
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
    if (tally_.overtaking() > 0 || Clock::now() >= end) {
      // Let Qt deliver what is waiting (our urgent events, timers, other objects' events), and
      // come back behind it if work is left.
      if (run_list_.local_empty()) run_list_.take();
      if (!(run_list_.local_empty() && run_list_.idle()) && tally_.pending(Handoff::slice) == 0) post_slice();
      break;
    }
  }
  slice_host_ = outer;
  --depth_;
}

// The first drain of an actor spawned from outside (Placement::deferred) is about to run here.
// Settles the actor: here (true: run it now), or on another worker, whose run list it joins.
bool Host::settle_here(Runnable& first) {
  first.runtime_mark = 0;
  const std::uint32_t home = settler_.choose(index_);
  first.settle(Placement{home});
  if (home == index_) return true;
  hosts_[home]->enqueue(first);
  return false;
}

void Host::run_here(Runnable& work) {
  if (!gui_) {
    work.run();  // a worker thread is marked as an actor thread for its whole life
    return;
  }
  // The GUI thread runs actors only inside these events; outside them it may block (and drive).
  const QtRuntime* outer = mark_runtime_thread(&rt_);
  {
    detail::RuntimeThreadScope scope;
    work.run();
  }
  mark_runtime_thread(outer);
}

}  // namespace actorscope::detail::qt
