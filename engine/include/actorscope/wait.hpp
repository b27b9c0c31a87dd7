// ExecContext and Wait: how a suspended coroutine is woken. Whatever it waits for (a timer, a reply,
// an actor's exit) fires a Wait from any thread; the Wait is queued to its context (the actor) and
// the coroutine is resumed there, on the actor's own thread, by its mailbox drain.
#pragma once

#include <actorscope/completion.hpp>
#include <actorscope/detail/mailbox.hpp>
#include <actorscope/ref_counted.hpp>
#include <actorscope/runtime.hpp>

#include <atomic>
#include <coroutine>
#include <cstdint>

namespace actorscope {

class Wait;

/// Where coroutines run: an actor cell (or a task cell). Implemented by the core.
class ExecContext {
 public:
  virtual Runtime& runtime() const noexcept = 0;
  virtual Placement placement() const noexcept = 0;
  /// Queues a fired wait for delivery on the context's thread and takes over one reference to it.
  /// @thread any
  virtual void post_wake(Wait& w) noexcept = 0;
  virtual void retain_context() const noexcept = 0;
  virtual void release_context() const noexcept = 0;

 protected:
  ~ExecContext() = default;
};

/// One suspension: fired at most once, by whichever source comes first (an event or a timer).
/// It is a Runnable so that it can be armed as a timer, and a WaiterNode so that it can wait on a
/// Completion. Delivery resumes the coroutine, or calls a callback, unless the waiter is gone.
class Wait final : public RefCounted, public detail::MailboxNode, public Runnable, public detail::WaiterNode {
 public:
  enum class Source : std::uint8_t { none, event, timer };
  using Callback = void (*)(void* arg) noexcept;

  Wait(ExecContext& ctx, std::coroutine_handle<> resume) noexcept : ctx_(ctx), handle_(resume) {
    ctx_.retain_context();
  }
  Wait(ExecContext& ctx, Callback callback, void* arg) noexcept : ctx_(ctx), callback_(callback), arg_(arg) {
    ctx_.retain_context();
  }

  /// First caller wins; posts the wake to the context. @thread any
  bool fire(Source source) noexcept {
    std::uint8_t expected = kPending;
    if (!state_.compare_exchange_strong(expected, kFired, std::memory_order_acq_rel)) return false;
    source_ = source;
    retain();
    ctx_.post_wake(*this);
    return true;
  }

  /// Prevents a later fire. False if it has already fired. @thread any
  bool cancel() noexcept {
    std::uint8_t expected = kPending;
    return state_.compare_exchange_strong(expected, kCancelled, std::memory_order_acq_rel);
  }

  /// The waiting side is gone (resumed, or its frame destroyed): a queued wake will be dropped.
  /// @thread context
  void abandon() noexcept { abandoned_ = true; }

  /// Which source fired it. Valid on the context thread once delivered.
  Source source() const noexcept { return source_; }

  /// Arms this wait as a one-shot timer on the context's runtime.
  void arm_timer(TimePoint deadline) noexcept {
    retain();  // held by the runtime until run() or discard()
    timer_ = ctx_.runtime().arm(*this, deadline, ctx_.placement());
  }
  void disarm_timer() noexcept {
    if (timer_ != 0) ctx_.runtime().disarm(std::exchange(timer_, 0));
  }

  ExecContext& context() const noexcept { return ctx_; }

  /// Called by the context's drain for a posted wake; consumes the posted reference.
  void deliver() noexcept {
    if (!abandoned_) {
      if (handle_) {
        handle_.resume();
      } else {
        callback_(arg_);
      }
    }
    release();
  }

  // -- Runnable: the timer side --
  void run() noexcept override {
    fire(Source::timer);
    release();
  }
  void discard() noexcept override { release(); }

  // -- WaiterNode: the Completion side --
  void notify() noexcept override {
    fire(Source::event);
    release();
  }

 private:
  ~Wait() override { ctx_.release_context(); }

  static constexpr std::uint8_t kPending = 0, kFired = 1, kCancelled = 2;
  ExecContext& ctx_;
  std::coroutine_handle<> handle_{};
  Callback callback_ = nullptr;
  void* arg_ = nullptr;
  std::atomic<std::uint8_t> state_{kPending};
  Source source_ = Source::none;
  bool abandoned_ = false;
  TimerToken timer_ = 0;
};

namespace detail {
/// Ends an awaiter's use of a wait: drops a pending wake, stops the timer, leaves the completion.
inline void finish_wait(Wait*& w, Completion* completion = nullptr) noexcept {
  if (w == nullptr) return;
  w->abandon();
  w->cancel();
  w->disarm_timer();  // also after an event fired first: frees the timer now, not at its deadline
  if (completion != nullptr && completion->remove(*w)) w->release();
  std::exchange(w, nullptr)->release();
}
}  // namespace detail

}  // namespace actorscope
