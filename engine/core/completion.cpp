// Completion: the one-shot event under every wait in the engine.
#include <actorscope/completion.hpp>
#include <actorscope/detail/spin_wait.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/ref_counted.hpp>

#include <algorithm>
#include <condition_variable>
#include <thread>

namespace actorscope {

namespace {
// A thread blocked in wait_until. It lives on that thread's stack.
struct BlockingWaiter final : detail::WaiterNode {
  void notify() noexcept override {
    std::lock_guard lk(m);
    notified = true;
    cv.notify_one();  // under the lock: the waiter may destroy us as soon as it sees `notified`
  }
  std::mutex m;
  std::condition_variable cv;
  bool notified = false;
};
}  // namespace

// Every waiter holds a reference to what owns this Completion, so a Completion is destroyed only
// after its waiters are gone or it has completed; there is nothing left to unlink.
Completion::~Completion() = default;

bool Completion::complete() noexcept {
  // Taken off the Completion under the lock; from there on only this call touches the list, since
  // remove() sees the nodes unlinked.
  Waiters list;
  {
    std::lock_guard lk(m_);
    if (closed_) return false;
    closed_ = true;  // add() refuses from here on
    list.swap(waiters_);
    for (detail::WaiterNode& w : list) w.linked_ = false;
  }
  // Published after the lock is released and this object is never touched again: whoever sees
  // "done" may destroy the Completion at once.
  done_.store(true, std::memory_order_release);
  // In arrival order. A node is unhooked before it is notified: notify() may destroy it.
  while (!list.empty()) {
    detail::WaiterNode& w = list.front();
    list.pop_front();
    w.notify();
  }
  return true;
}

bool Completion::add(detail::WaiterNode& w) noexcept {
  {
    std::lock_guard lk(m_);
    if (!closed_) {
      waiters_.push_back(w);
      w.linked_ = true;
      return true;
    }
  }
  // complete() has closed the list but may not have published done_ yet (it does so just after it
  // releases the lock). Whoever hears "already done" may destroy the Completion at once, so wait
  // for the publication first: complete() must not store into a Completion that is gone.
  while (!is_done()) std::this_thread::yield();
  return false;
}

bool Completion::remove(detail::WaiterNode& w) noexcept {
  std::lock_guard lk(m_);
  if (!w.linked_) return false;
  waiters_.erase(waiters_.iterator_to(w));
  w.linked_ = false;
  return true;
}

bool Completion::wait_until(Runtime& rt, TimePoint deadline, std::string_view operation) {
  // Refuse on an actor thread even when already done, so that misuse fails every time, not by luck.
  if (detail::this_thread_runs_actors()) throw BlockingWaitError(operation);
  if (is_done()) return true;
  if (rt.drives_waits()) {
    // The driving thread may sleep in its event loop; completing must wake it. The node is shared
    // by the list and by us, because complete() may be notifying it while we unregister it.
    struct WakeDriver final : RefCounted, detail::WaiterNode {
      explicit WakeDriver(Runtime& r) : rt(r) {}
      void notify() noexcept override {
        rt.wake_driver();
        release();
      }
      Runtime& rt;
    };
    Ref<WakeDriver> wake = make_ref<WakeDriver>(rt);
    wake->retain();  // the list's reference
    if (!add(*wake)) {
      wake->release();
      return true;
    }
    const bool done = rt.drive_until([this] { return is_done(); }, deadline);
    if (remove(*wake)) wake->release();
    return done;
  }

  // Most waits are short: look for a little while before paying for a sleep and a wake-up.
  if (const Duration spin = rt.wait_spin(); spin > Duration::zero()) {
    if (detail::spin_until([this] { return is_done(); }, std::min(spin, deadline - Clock::now())))
      return true;
  }

  BlockingWaiter w;
  if (!add(w)) return true;
  std::unique_lock lk(w.m);
  if (deadline == TimePoint::max()) {
    w.cv.wait(lk, [&] { return w.notified; });
    return true;
  }
  if (w.cv.wait_until(lk, deadline, [&] { return w.notified; })) return true;
  lk.unlock();
  if (remove(w)) return false;
  // complete() took us off the list just now and is about to notify: wait for it, then we are done.
  lk.lock();
  w.cv.wait(lk, [&] { return w.notified; });
  return true;
}

}  // namespace actorscope
