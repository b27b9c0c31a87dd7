// Completion: a one-shot "done" event that threads can block on (with a deadline), coroutines can
// await, and callbacks can hang off. Actor exits, task results, replies and join sets all use it.
#pragma once

#include <actorscope/detail/small_mutex.hpp>
#include <actorscope/runtime.hpp>

#include <boost/intrusive/list.hpp>

#include <atomic>
#include <string_view>
#include <utility>

namespace actorscope {

class Completion;

namespace detail {
/// Something to tell when a Completion completes. notify() is called at most once, on the
/// completing thread, after the node has been unlinked.
class WaiterNode {
 public:
  virtual void notify() noexcept = 0;

 protected:
  ~WaiterNode() = default;

 private:
  friend class actorscope::Completion;
  // Normal links, not Boost's default safe ones (which clear the hook at every unlink): linked_
  // already says whether the node is in a list.
  using Hook = boost::intrusive::list_member_hook<boost::intrusive::link_mode<boost::intrusive::normal_link>>;
  Hook hook_;            // in a Completion's waiters (or, being notified, in complete()'s)
  bool linked_ = false;  // in the waiters: remove() may take it out
};
}  // namespace detail

class Completion {
 public:
  Completion() = default;
  Completion(const Completion&) = delete;
  Completion& operator=(const Completion&) = delete;
  ~Completion();

  /// @thread any
  bool is_done() const noexcept { return done_.load(std::memory_order_acquire); }

  /// Marks the event done and notifies every waiter. False if it was already done. A waiter that
  /// sees is_done() may destroy the Completion right away; complete() does not touch it after
  /// that. @thread any
  bool complete() noexcept;

  /// Registers a waiter. False (and nothing registered) if already done; is_done() is then true,
  /// so the caller may destroy the Completion. @thread any
  bool add(detail::WaiterNode& w) noexcept;

  /// Unregisters a waiter. False if it is not registered any more, which means its notify()
  /// has run or is about to run on the completing thread. @thread any
  bool remove(detail::WaiterNode& w) noexcept;

  /// Blocks the calling thread until done or `deadline`; true if done. Throws BlockingWaitError
  /// on a thread that runs actors (name the operation in `operation`). On a runtime that drives
  /// its own waits (manual), it drives `rt` instead of sleeping.
  bool wait_until(Runtime& rt, TimePoint deadline, std::string_view operation);

  /// Calls `fn()` once when done: right now if already done, else on the completing thread.
  template <class F>
  void on_done(F&& fn) {
    struct Callback final : detail::WaiterNode {
      explicit Callback(F&& f) : fn(std::forward<F>(f)) {}
      void notify() noexcept override {
        fn();
        delete this;
      }
      std::decay_t<F> fn;
    };
    auto* cb = new Callback(std::forward<F>(fn));
    if (!add(*cb)) cb->notify();
  }

 private:
  // 24 bytes in all: every actor has one (its exit), so a std::mutex (40 bytes) would cost each
  // actor more than the rest of the Completion.
  std::atomic<bool> done_{false};
  bool closed_ = false;  // set under m_ by complete(): no more waiters
  detail::SmallMutex m_;
  using Waiters = boost::intrusive::list<
      detail::WaiterNode,
      boost::intrusive::member_hook<detail::WaiterNode, detail::WaiterNode::Hook, &detail::WaiterNode::hook_>,
      boost::intrusive::constant_time_size<false>>;
  Waiters waiters_;  // in arrival order
};

}  // namespace actorscope
