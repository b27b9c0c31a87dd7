// PendingSend<M>: a send that may have to wait for room in a backpressured mailbox
// (Overflow::backpressure). co_await it in a coroutine handler; get() it outside actors.
#pragma once

#include <actorscope/detail/typed_cell.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/join_handle.hpp>
#include <actorscope/task.hpp>

#include <optional>
#include <utility>

namespace actorscope {

/// The outcome of ActorRef::send: settled at once (queued, dropped by the policy, or refused), or
/// waiting for room until its timeout. Waiters get in in the order they began to wait. A PendingSend
/// that is dropped without being waited for leaves its message waiting for room: it is delivered
/// when there is some, or handed back and destroyed when the actor stops.
template <class M>
class [[nodiscard]] PendingSend {
 public:
  using Result = Expected<void, SendError<M>>;

  explicit PendingSend(Result settled) : settled_(std::move(settled)) {}
  explicit PendingSend(Ref<detail::SendState<M>> waiting) noexcept : st_(std::move(waiting)) {}

  /// Whether the send was settled without waiting.
  bool is_ready() const noexcept { return settled_.has_value() || st_->completion().is_done(); }

  /// Blocks until the message is in the mailbox, the timeout passes (SendFailure::timed_out) or the
  /// actor stops (SendFailure::stopped); the error hands the message back. Throws BlockingWaitError
  /// on a thread that runs actors when it would have to wait: co_await the send there instead.
  Result get() {
    if (detail::this_thread_runs_actors()) {
      // Refused every time, not only when the mailbox happens to be full. A parked message is
      // taken back (and counted as rejected): nobody is left to hear how its send went.
      if (st_ && st_->withdraw()) (void)st_->take_outcome();
      throw BlockingWaitError("send(...).get()");
    }
    if (settled_) return std::move(*settled_);
    return st_->wait("send(...).get()");
  }

  /// What co_await uses: a send settled at once resumes at once (no coroutine frame is made for
  /// it, which a pipeline stage would pay on every item); one that waits runs await_room.
  class Awaiter {
   public:
    explicit Awaiter(Result settled) : settled_(std::move(settled)) {}
    explicit Awaiter(Task<Result> waiting) noexcept : waiting_(std::move(waiting)) {}
    bool await_ready() const noexcept { return settled_.has_value(); }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> parent) noexcept {
      return waiting_.await_suspend(parent);
    }
    Result await_resume() { return settled_ ? std::move(*settled_) : waiting_.await_resume(); }

   private:
    std::optional<Result> settled_;
    Task<Result> waiting_;
  };

  /// Waits without blocking the thread.
  Awaiter operator co_await() && {
    if (settled_) return Awaiter(std::move(*settled_));
    return Awaiter(await_room(std::move(st_)));
  }

 private:
  static Task<Result> await_room(Ref<detail::SendState<M>> st) {
    // A frame destroyed while it waits (the actor was killed, or as::timeout ran out around the
    // send) takes its message back: nobody is left to hear how the send went.
    struct GiveUpIfGone {
      detail::SendState<M>& st;
      bool settled = false;
      ~GiveUpIfGone() {
        if (!settled) st.withdraw();
      }
    } give_up{*st};
    Duration left = no_timeout;
    if (st->deadline() != TimePoint::max()) {
      const TimePoint now = st->target().runtime().now();
      left = st->deadline() > now ? st->deadline() - now : Duration::zero();
    }
    bool done = co_await detail::CompletionAwaiter(st->completion(), left);
    if (!done && !st->withdraw()) done = co_await detail::CompletionAwaiter(st->completion(), no_timeout);
    give_up.settled = true;
    co_return st->take_outcome();
  }

  std::optional<Result> settled_;
  Ref<detail::SendState<M>> st_;
};

}  // namespace actorscope
