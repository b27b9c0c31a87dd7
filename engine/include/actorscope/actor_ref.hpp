// ActorRef<M>: the typed handle to an actor whose message type is M. It adds cast, call and the
// message timers to everything ActorCell does; a failed cast hands the message back inside the error.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/derived_ref.hpp>
#include <actorscope/detail/message_timer.hpp>
#include <actorscope/detail/type_info.hpp>
#include <actorscope/detail/typed_cell.hpp>
#include <actorscope/pending_send.hpp>
#include <actorscope/reply.hpp>

#include <concepts>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace actorscope {

template <class M>
class ActorRef : public ActorCell, public detail::MessageTimerSends<ActorRef<M>, M> {
 public:
  using Message = M;

  ActorRef() noexcept = default;
  /// For the engine: wraps a cell already known to take M.
  explicit ActorRef(Ref<detail::CellCore> cell) noexcept : ActorCell(std::move(cell)) {}

  /// Queues a message. If the actor no longer accepts messages (draining, stopping or stopped),
  /// the error carries the message back. A bounded mailbox that is full applies its Overflow
  /// policy: reject fails (SendFailure::full), the drops succeed and count the drop, backpressure
  /// blocks until there is room outside actors and fails on an actor's thread
  /// (SendFailure::would_block: co_await send() there). @thread any
  template <class U>
    requires std::constructible_from<M, U&&>
  Expected<void, SendError<M>> cast(U&& message) const {
    return typed().send(M(std::forward<U>(message)));
  }

  /// Queues a message if there is room right now; never waits and never drops. A full bounded
  /// mailbox fails with SendFailure::full (counted as rejected), whatever its policy; an actor
  /// that no longer accepts messages, with SendFailure::stopped. @thread any
  template <class U>
    requires std::constructible_from<M, U&&>
  Expected<void, SendError<M>> try_cast(U&& message) const {
    return typed().send(M(std::forward<U>(message)), nullptr, detail::SendMode::attempt);
  }

  /// A send that waits for room in a backpressured mailbox, at most `timeout`: co_await it in a
  /// coroutine handler (the thread stays free), get() it outside actors. With any other policy, or
  /// with room to spare, it is settled at once, as cast would be.
  /// ```cpp context=handler
  /// if (auto sent = co_await worker.send(Job{7}, 1s); !sent) ctx.log("{}", sent.error().what());
  /// ```
  template <class U>
    requires std::constructible_from<M, U&&>
  PendingSend<M> send(U&& message, Duration timeout = no_timeout) const {
    auto begun = typed().begin_send(M(std::forward<U>(message)), deadline_after(cell_->runtime().now(), timeout));
    if (auto* waiting = std::get_if<Ref<detail::SendState<M>>>(&begun)) return PendingSend<M>(std::move(*waiting));
    return PendingSend<M>(std::get<0>(std::move(begun)));
  }

  /// Sends a request built around a fresh reply port and returns the pending call, to wait for with
  /// get() outside actors and to co_await inside them. A call to an actor that is not running fails
  /// at once with a sender error.
  /// ```cpp context=outside
  /// int total = counter.call(as::rpc<Get>, 1s).get().value();  // throws CallError if it failed
  /// ```
  /// ```cpp context=handler
  /// as::CallResult<int> total = co_await counter.call(as::rpc<Get>, 1s);
  /// if (total) ctx.log("total = {}", *total);
  /// ```
  template <class B>
  PendingCall<detail::reply_type_t<B>> call(B&& builder, Duration timeout = no_timeout) const {
    return detail::start_call<M>(cell_->runtime(), id(), builder, timeout,
                                 [this](M&& request) { return typed().send(std::move(request)); });
  }
  template <class B, class Rep, class Period>
    requires(!std::is_same_v<std::chrono::duration<Rep, Period>, Duration>)
  PendingCall<detail::reply_type_t<B>> call(B&& builder, std::chrono::duration<Rep, Period> timeout) const {
    return call(std::forward<B>(builder), std::chrono::duration_cast<Duration>(timeout));
  }

  /// A reference that accepts only Sub messages, each converted into M on the way in (ractor's
  /// DerivedActorRef): hand it to code that should see one part of this actor's protocol and not
  /// the rest. It can cast, call, set timers, stop, kill and be monitored; a failed send hands the
  /// Sub message back, so M must give one back: Sub is an alternative of M's std::variant, or a
  /// std::variant of some of its alternatives (a part of the protocol as a smaller variant), or
  /// constructible from M. An empty ActorRef gives an empty DerivedRef. @thread any
  template <class Sub>
    requires detail::derivable_from<M, Sub>
  DerivedRef<Sub> derived() const noexcept {
    return DerivedRef<Sub>(cell_, detail::derived_ops<M, Sub>);
  }

 private:
  friend class detail::MessageTimerSends<ActorRef<M>, M>;

  template <class F>
  TimerHandle start_message_timer(detail::TimerCore::Kind kind, Duration period, MissedTick policy, F&& make,
                                  std::string_view operation) const {
    if (!cell_) throw TimerError(std::string(operation) + ": the actor handle is empty; pass a handle returned by spawn");
    using Fn = std::decay_t<F>;
    return TimerHandle(detail::start_timer(
        make_ref<detail::MessageTimer<M, Fn>>(kind, cell_, period, policy, Fn(std::forward<F>(make)))));
  }

  detail::TypedCell<M>& typed() const noexcept { return static_cast<detail::TypedCell<M>&>(*cell_); }
};

template <class M>
std::optional<ActorRef<M>> ActorCell::as() const {
  if (cell_ && cell_->message_tag() == detail::type_tag<M>()) return ActorRef<M>(cell_);
  return std::nullopt;
}

}  // namespace actorscope
