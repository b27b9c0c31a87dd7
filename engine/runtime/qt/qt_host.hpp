// Host: the qt runtime's QObject on each of its threads, which runs that thread's actors. Private
// to engine/runtime/qt. The hot path is enqueue (inline below, so that QtRuntime::schedule inlines
// it) and, in qt_host.cpp, the posting of a slice and the slice itself.
#pragma once

#include "../runnable_inbox.hpp"
#include "qt_handoff.hpp"
#include "qt_settler.hpp"

#include <actorscope/qt_runtime.hpp>

#include <QCoreApplication>
#include <QObject>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

class QAbstractEventDispatcher;
class QTimerEvent;

namespace actorscope::detail::qt {

/// Marks the calling thread as one that runs `rt`'s actors (nullptr: none) and returns the
/// previous mark, which QtRuntime::on_runtime_thread() reads. Defined in qt_runtime.cpp, with the
/// thread-local it sets. @thread any
const QtRuntime* mark_runtime_thread(const QtRuntime* rt) noexcept;

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
// requests and the stop of the thread are still posted one event each, at high priority. Every
// one of these is a HandoffEvent (qt_handoff.hpp) that delivers itself.
class Host final : public QObject {
 public:
  Host(const QtRuntime& rt, std::uint32_t index, bool gui, const std::atomic<bool>& accepting,
       Settler& settler, const std::vector<std::unique_ptr<Host>>& hosts)
      : rt_(rt), index_(index), gui_(gui), accepting_(accepting), settler_(settler), hosts_(hosts) {}
  ~Host() override;

  /// Runs `work` soon on this host, in FIFO order with the other ordinary work. Inline, with the
  /// thread-local it reads, so that QtRuntime::schedule costs no call on its way here. @thread any
  void enqueue(Runnable& work) {
    if (slice_host_ == this) {
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

  /// Runs `work` soon on this host, ahead of the run list: one posted event per burst. @thread any
  void enqueue_urgent(Runnable& work);

  /// Posts `e` (made with new, before this call) to this host, counted in the tally: see
  /// HandoffTally for what the count is for and the happens-before edge it carries. @thread any
  void post(HandoffEvent* e) {
    const int priority = e->priority();  // read before the release: once posted, `e` is the receiver's
    tally_.posted(*e);
    post_event(e, priority);
  }

  /// Discards what the run list and the urgent list still hold. Only once nothing runs them any
  /// more (shutdown).
  void discard_run_list() noexcept;

  /// Keeps a handler's nested event loop supplied with this host's events (see qt_host.cpp).
  /// @thread the host's, once, before its event loop runs
  void keep_nested_loops_fed(QAbstractEventDispatcher* dispatcher, Duration spin);

  // -- on the host's thread: what the handoff events deliver, and the timers --

  /// One turn of the run list (a SliceEvent).
  void run_slice();
  /// One turn of the urgent list (an UrgentEvent).
  void run_urgent();
  void arm_here(TimerToken token, Runnable* work, TimePoint deadline);
  void disarm_here(TimerToken token);
  void drop_timers();
  /// Drops the timers and, on a worker, leaves the thread's event loop (a StopEvent).
  void stop_here();

 protected:
  bool event(QEvent* e) override;
  void timerEvent(QTimerEvent* e) override;

 private:
  void post_slice();
  void post_urgent();
  bool settle_here(Runnable& first);
  void run_here(Runnable& work);

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

  struct Timer {
    int id;
    Runnable* work;
    TimePoint deadline;
  };
  // The host whose run list the current thread is running (inside run_slice), if any.
  // Constant-initialised, so that reading it from another translation unit needs no TLS init call.
  static inline thread_local constinit Host* slice_host_ = nullptr;

  const QtRuntime& rt_;
  const std::uint32_t index_;
  const bool gui_;
  const std::atomic<bool>& accepting_;
  Settler& settler_;
  const std::vector<std::unique_ptr<Host>>& hosts_;
  HandoffTally tally_;  // our events posted and not yet received
#if defined(__SANITIZE_THREAD__)
  std::mutex tsan_post_m_;  // see post_event()
#endif
  int depth_ = 0;                               // slices running on this thread (more than one: nested loops)
  int urgent_depth_ = 0;                        // turns of the urgent list running on this thread
  std::atomic<bool> blocked_in_slice_{false};   // about to block in a nested loop inside a slice
  std::atomic<bool> blocked_in_urgent_{false};  // ... inside a turn of the urgent list
  detail::RunnableInbox run_list_;
  detail::RunnableInbox urgent_list_;
  std::unordered_map<TimerToken, Timer> timers_;
  std::unordered_map<int, TimerToken> by_id_;
};

}  // namespace actorscope::detail::qt
