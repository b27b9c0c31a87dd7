// MessageTimer: the timer behind send_interval and send_after. It builds each message with the
// user's function on a runtime thread, then queues it under the timer's lock.
#pragma once

#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/typed_cell.hpp>
#include <actorscope/timer.hpp>

#include <chrono>
#include <concepts>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace actorscope::detail {

/// A function that builds a message of type M.
template <class F, class M>
concept message_builder = std::invocable<F&> && std::constructible_from<M, std::invoke_result_t<F&>>;

/// The message timers of a typed handle (ActorRef<M>, DerivedRef<Sub>), written once. `Self` makes
/// the timer: `start_message_timer(kind, period, policy, make, operation)`, where `make` builds an
/// `Msg` (a friend of Self may call it).
template <class Self, class Msg>
class MessageTimerSends {
 public:
  /// Sends `make()` every `period`, the first one period from now, at absolute deadlines
  /// start + k·period (handling time never shifts them; `policy` says what happens to deadlines
  /// missed under load). `make` runs on a runtime thread, not the actor's: it must not touch the
  /// actor's state. The timer ends when cancelled or when the actor stops taking messages.
  /// @thread any
  template <message_builder<Msg> F>
  TimerHandle send_interval(Duration period, F make, MissedTick policy = MissedTick::burst) const {
    if (period <= Duration::zero())
      throw TimerError("send_interval: the period must be positive (got " +
                       std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(period).count()) +
                       " us); use send_after for a single message");
    return self().start_message_timer(TimerCore::Kind::interval, period, policy, std::move(make), "send_interval");
  }

  /// Sends one message after `delay`: either `message` itself, or `make()` if given a function.
  /// @thread any
  template <class X>
    requires message_builder<std::decay_t<X>, Msg> || std::constructible_from<Msg, X&&>
  TimerHandle send_after(Duration delay, X&& message_or_make) const {
    if constexpr (message_builder<std::decay_t<X>, Msg>) {
      return self().start_message_timer(TimerCore::Kind::once, delay, MissedTick::burst,
                                        std::forward<X>(message_or_make), "send_after");
    } else {
      return self().start_message_timer(TimerCore::Kind::once, delay, MissedTick::burst,
                                        [m = Msg(std::forward<X>(message_or_make))]() mutable { return std::move(m); },
                                        "send_after");
    }
  }

 private:
  const Self& self() const noexcept { return static_cast<const Self&>(*this); }
};

template <class M, class F>
class MessageTimer final : public TimerCore {
 public:
  MessageTimer(Kind kind, Ref<CellCore> target, Duration period, MissedTick policy, F make)
      : TimerCore(kind, std::move(target), period, policy), make_(std::move(make)) {}

 private:
  // staged_ has one user at a time: a firing stages, delivers (emptying it) and only then arms
  // the next deadline; drop_staged runs only for a firing that armed none.
  bool stage(std::string& error) noexcept override {
    try {
      staged_.emplace(make_());
      return true;
    } catch (...) {
      error = describe_current_exception();
      return false;
    }
  }
  bool deliver(CellCore& target) noexcept override {
    // A timer never waits: a full bounded mailbox applies its drop or reject policy (a backpressured
    // one refuses), and the refused tick is counted in the target's statistics, not retried.
    auto sent = static_cast<TypedCell<M>&>(target).send(std::move(*staged_), nullptr, SendMode::no_wait);
    if (sent || sent.error().kind() != SendFailure::stopped) {
      staged_.reset();
      return true;
    }
    *staged_ = std::move(sent.error().message());  // destroyed by drop_staged, outside the lock
    return false;
  }
  void drop_staged() noexcept override { staged_.reset(); }

  F make_;
  std::optional<M> staged_;
};

}  // namespace actorscope::detail
