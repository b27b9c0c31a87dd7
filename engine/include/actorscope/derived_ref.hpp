// DerivedRef<Sub>: a handle to an actor that takes only messages of type Sub, each converted into the
// actor's full message type (ractor's DerivedActorRef). It names Sub only, so code that knows one
// part of an actor's protocol can hold it without seeing the rest; a failed send hands Sub back.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/detail/message_timer.hpp>
#include <actorscope/detail/typed_cell.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/reply.hpp>
#include <actorscope/timer.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace actorscope {

template <class Sub>
class DerivedRef;

namespace detail {

template <class T, class V>
struct is_alternative_of : std::false_type {};
template <class T, class... Ts>
struct is_alternative_of<T, std::variant<Ts...>>
    : std::bool_constant<(static_cast<int>(std::is_same_v<T, Ts>) + ... + 0) == 1> {};

template <class>
inline constexpr bool dependent_false = false;

/// The Sub message inside a full message M that was built from one and could not be delivered.
template <class M, class Sub>
Sub message_back(M&& message) {
  if constexpr (is_alternative_of<Sub, M>::value) {
    return std::get<Sub>(std::move(message));
  } else if constexpr (std::constructible_from<Sub, M&&>) {
    return Sub(std::move(message));
  } else {
    static_assert(dependent_false<Sub>,
                  "derived<Sub>(): a failed send hands the Sub message back, so the actor's message type must "
                  "give one back: make Sub one of the alternatives of its std::variant, or give Sub a "
                  "constructor from the actor's message type");
  }
}

/// Makes the Sub messages of a derived reference's timer; type-erased so that DerivedRef, which does
/// not know the actor's message type, can hand any function to the table that does.
template <class Sub>
class SubMaker {
 public:
  virtual ~SubMaker() = default;
  virtual Sub make() = 0;
};
template <class Sub, class F>
class SubMakerOf final : public SubMaker<Sub> {
 public:
  explicit SubMakerOf(F f) : f_(std::move(f)) {}
  Sub make() override { return Sub(std::invoke(f_)); }

 private:
  F f_;
};

/// What a DerivedRef<Sub> does with a message, made where the actor's message type M is known (one
/// table per pair M, Sub): the reference itself names Sub only.
template <class Sub>
struct DerivedOps {
  /// TypedCell<M>::send of M(message); a message that is not queued comes back as Sub.
  Expected<void, SendError<Sub>> (*send)(CellCore& cell, Sub&& message, Receipt* receipt, SendMode mode);
  /// Starts a MessageTimer<M> whose messages are M(make()).
  Ref<TimerCore> (*start_timer)(Ref<CellCore> cell, TimerCore::Kind kind, Duration period, MissedTick policy,
                                std::unique_ptr<SubMaker<Sub>> make);
};

template <class M, class Sub>
Expected<void, SendError<Sub>> send_derived(CellCore& cell, Sub&& message, Receipt* receipt, SendMode mode) {
  auto sent = static_cast<TypedCell<M>&>(cell).send(M(std::move(message)), receipt, mode);
  if (sent) return {};
  SendError<M>& failure = sent.error();
  return unexpected(SendError<Sub>(message_back<M, Sub>(std::move(failure.message())), failure));
}

template <class M, class Sub>
Ref<TimerCore> start_derived_timer(Ref<CellCore> cell, TimerCore::Kind kind, Duration period, MissedTick policy,
                                   std::unique_ptr<SubMaker<Sub>> make) {
  // Converted on the timer's staging step, outside its lock, like any other timer message.
  auto full = [make = std::move(make)]() { return M(make->make()); };
  using Fn = decltype(full);
  return start_timer(make_ref<MessageTimer<M, Fn>>(kind, std::move(cell), period, policy, std::move(full)));
}

template <class M, class Sub>
inline constexpr DerivedOps<Sub> derived_ops{&send_derived<M, Sub>, &start_derived_timer<M, Sub>};

/// The engine's way to a derived reference's raw send (an output port passes its receipt and never
/// waits).
struct DerivedAccess {
  template <class Sub>
  static Expected<void, SendError<Sub>> send(const DerivedRef<Sub>& to, Sub&& message, Receipt* receipt,
                                             SendMode mode) {
    return to.ops_->send(*to.cell_, std::move(message), receipt, mode);
  }
};

}  // namespace detail

/// A reference to an actor that accepts only Sub messages, made by ActorRef<M>::derived<Sub>(). Each
/// Sub is converted into the actor's message type M on the way in; the type names Sub only, so two
/// actors with different message types that both take Sub give the same DerivedRef<Sub>. It is an
/// ActorCell: identity, status, stats, stop, kill, drain, waits, links, monitors, and comparisons
/// (equal to any handle of the same actor).
/// ```cpp context=outside
/// as::DerivedRef<Add> adder = counter.derived<Add>();  // it cannot send Get
/// (void)adder.cast(Add{5});
/// ```
template <class Sub>
class DerivedRef : public ActorCell {
 public:
  using Message = Sub;

  /// An empty handle: like an empty ActorCell, good only to be assigned.
  DerivedRef() noexcept = default;
  /// For the engine: a cell together with the table made for its message type (see derived<Sub>()).
  DerivedRef(Ref<detail::CellCore> cell, const detail::DerivedOps<Sub>& ops) noexcept
      : ActorCell(std::move(cell)), ops_(&ops) {}

  /// Queues `message` as the actor's message, subject to its mailbox's Overflow policy exactly as
  /// ActorRef::cast. A failed send hands the Sub message back inside the error, with the kind and
  /// the text of the failure. @thread any
  template <class U>
    requires std::constructible_from<Sub, U&&>
  Expected<void, SendError<Sub>> cast(U&& message) const {
    return ops_->send(*cell_, Sub(std::forward<U>(message)), nullptr, detail::SendMode::cast);
  }

  /// Queues `message` if there is room right now; never waits and never drops, as ActorRef::try_cast.
  /// A full mailbox fails with SendFailure::full, a stopped actor with SendFailure::stopped; either
  /// way the Sub message comes back. @thread any
  template <class U>
    requires std::constructible_from<Sub, U&&>
  Expected<void, SendError<Sub>> try_cast(U&& message) const {
    return ops_->send(*cell_, Sub(std::forward<U>(message)), nullptr, detail::SendMode::attempt);
  }

  /// Sends a request built around a fresh reply port, as ActorRef::call: `builder` makes a Sub (or
  /// something Sub is built from) around a Reply<T>. get() the result outside actors, co_await it
  /// inside them. A call to an actor that is not running fails at once with a sender error.
  /// ```cpp context=outside
  /// as::DerivedRef<Get> reader = counter.derived<Get>();
  /// int total = reader.call(as::rpc<Get>, 1s).get().value();
  /// ```
  template <class B>
  PendingCall<detail::reply_type_t<B>> call(B&& builder, Duration timeout = no_timeout) const {
    using T = detail::reply_type_t<B>;
    auto state = make_ref<detail::ReplyState<T>>(cell_->runtime(), id(), timeout);
    Sub request = detail::build_request(builder, Reply<T>(state));
    if (auto sent = ops_->send(*cell_, std::move(request), nullptr, detail::SendMode::cast); !sent) {
      // Say why before the returned message (and the reply port inside it) is destroyed.
      state->set_error(std::string("call failed: ") + sent.error().what());
    }
    return PendingCall<T>(std::move(state));
  }
  /// The same with a timeout in any std::chrono unit.
  template <class B, class Rep, class Period>
    requires(!std::is_same_v<std::chrono::duration<Rep, Period>, Duration>)
  PendingCall<detail::reply_type_t<B>> call(B&& builder, std::chrono::duration<Rep, Period> timeout) const {
    return call(std::forward<B>(builder), std::chrono::duration_cast<Duration>(timeout));
  }

  /// Sends `make()` (a Sub) every `period`, as ActorRef::send_interval: the first one period from now,
  /// at absolute deadlines; `policy` says what happens to deadlines missed under load. `make` runs on
  /// a runtime thread, not the actor's. The timer ends when cancelled or when the actor stops taking
  /// messages. @thread any
  template <detail::message_builder<Sub> F>
  TimerHandle send_interval(Duration period, F make, MissedTick policy = MissedTick::burst) const {
    if (period <= Duration::zero())
      throw TimerError("send_interval: the period must be positive (got " +
                       std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(period).count()) +
                       " us); use send_after for a single message");
    return start_message_timer(detail::TimerCore::Kind::interval, period, policy, std::move(make), "send_interval");
  }

  /// Sends one Sub after `delay`: either `message` itself, or `make()` if given a function. @thread any
  template <class X>
    requires detail::message_builder<std::decay_t<X>, Sub> || std::constructible_from<Sub, X&&>
  TimerHandle send_after(Duration delay, X&& message_or_make) const {
    if constexpr (detail::message_builder<std::decay_t<X>, Sub>) {
      return start_message_timer(detail::TimerCore::Kind::once, delay, MissedTick::burst,
                                 std::forward<X>(message_or_make), "send_after");
    } else {
      return start_message_timer(detail::TimerCore::Kind::once, delay, MissedTick::burst,
                                 [m = Sub(std::forward<X>(message_or_make))]() mutable { return std::move(m); },
                                 "send_after");
    }
  }

 private:
  friend struct detail::DerivedAccess;

  template <class F>
  TimerHandle start_message_timer(detail::TimerCore::Kind kind, Duration period, MissedTick policy, F&& make,
                                  std::string_view operation) const {
    if (!cell_)
      throw TimerError(std::string(operation) +
                       ": the actor handle is empty; pass a reference made by derived<Sub>() from a spawned actor");
    using Fn = std::decay_t<F>;
    return TimerHandle(ops_->start_timer(cell_, kind, period, policy,
                                         std::make_unique<detail::SubMakerOf<Sub, Fn>>(Fn(std::forward<F>(make)))));
  }

  const detail::DerivedOps<Sub>* ops_ = nullptr;
};

}  // namespace actorscope

/// Hashed as the ActorCell it is (by ActorId), so a DerivedRef is a key as any other handle.
template <class Sub>
struct std::hash<actorscope::DerivedRef<Sub>> {
  std::size_t operator()(const actorscope::DerivedRef<Sub>& r) const noexcept {
    return std::hash<actorscope::ActorCell>{}(r);
  }
};
