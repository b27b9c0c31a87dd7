// DerivedRef<Sub>: a handle to an actor that takes only messages of type Sub, each converted into the
// actor's full message type (ractor's DerivedActorRef). It names Sub only, so code that knows one
// part of an actor's protocol can hold it without seeing the rest; a failed send hands Sub back.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/detail/message_timer.hpp>
#include <actorscope/detail/typed_cell.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/pending_send.hpp>
#include <actorscope/reply.hpp>
#include <actorscope/task.hpp>
#include <actorscope/timer.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
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

/// Whether Sub is a std::variant whose every alternative is one of M's (itself a std::variant):
/// ractor's usual derived reference, a part of the actor's protocol as a smaller enum.
template <class Sub, class M>
struct is_variant_subset : std::false_type {};
template <class... Ss, class M>
struct is_variant_subset<std::variant<Ss...>, M> : std::bool_constant<(is_alternative_of<Ss, M>::value && ...)> {};

/// Whether a Sub can be turned into an M: directly, or alternative by alternative.
template <class M, class Sub>
concept derivable_from = std::constructible_from<M, Sub&&> || is_variant_subset<Sub, M>::value;

/// The full message M made of a Sub.
template <class M, class Sub>
M to_full(Sub&& message) {
  if constexpr (std::constructible_from<M, Sub&&>) {
    return M(std::move(message));
  } else {
    return std::visit([](auto&& part) { return M(std::move(part)); }, std::move(message));
  }
}

/// The Sub message inside a full message M that was built from one and could not be delivered.
template <class M, class Sub>
Sub message_back(M&& message) {
  static_assert(is_alternative_of<Sub, M>::value || is_variant_subset<Sub, M>::value ||
                    std::constructible_from<Sub, M&&>,
                "derived<Sub>(): a failed send hands the Sub message back, so the actor's message type must "
                "give one back: make Sub one of the alternatives of its std::variant (or a std::variant of "
                "some of them), or give Sub a constructor from the actor's message type");
  if constexpr (is_alternative_of<Sub, M>::value) {
    return std::get<Sub>(std::move(message));
  } else if constexpr (is_variant_subset<Sub, M>::value) {
    // M was made from a Sub, so it holds one of Sub's alternatives.
    return std::visit(
        [](auto&& part) -> Sub {
          using Part = std::decay_t<decltype(part)>;
          if constexpr (is_alternative_of<Part, Sub>::value) {
            return Sub(std::move(part));
          } else {
            std::abort();  // not reached: a derived reference only ever sends Sub's alternatives
          }
        },
        std::move(message));
  } else if constexpr (std::constructible_from<Sub, M&&>) {
    return Sub(std::move(message));
  } else {
    std::abort();  // not reached: the static_assert above has failed the build
  }
}

/// A send's outcome with the undelivered message, if any, handed back as the Sub it was made from.
template <class M, class Sub>
Expected<void, SendError<Sub>> outcome_back(Expected<void, SendError<M>>&& sent) {
  if (sent) return {};
  SendError<M>& failure = sent.error();
  return unexpected(SendError<Sub>(message_back<M, Sub>(std::move(failure.message())), failure));
}

/// A backpressured send through a derived reference that has to wait: the PendingSend<M> of the
/// actor's own type behind an interface that names Sub only.
template <class Sub>
class DerivedSendWait : public RefCounted {
 public:
  using Result = Expected<void, SendError<Sub>>;
  virtual bool is_ready() const noexcept = 0;
  /// PendingSend<M>::get(), with the message handed back as Sub.
  virtual Result get() = 0;
  /// co_await of the PendingSend<M>, with the message handed back as Sub. Once.
  virtual Task<Result> wait() = 0;
};
template <class M, class Sub>
class DerivedSendWaitOf final : public DerivedSendWait<Sub> {
  using Result = Expected<void, SendError<Sub>>;

 public:
  explicit DerivedSendWaitOf(PendingSend<M> pending) : pending_(std::move(pending)) {}
  bool is_ready() const noexcept override { return pending_.is_ready(); }
  Result get() override { return outcome_back<M, Sub>(pending_.get()); }
  Task<Result> wait() override { return converted(std::move(pending_)); }

 private:
  static Task<Result> converted(PendingSend<M> pending) {
    Expected<void, SendError<M>> sent = co_await std::move(pending);
    co_return outcome_back<M, Sub>(std::move(sent));
  }
  PendingSend<M> pending_;
};

/// How a backpressured send through a derived reference begins: settled at once, or waiting for room.
template <class Sub>
using DerivedSendBegun = std::variant<Expected<void, SendError<Sub>>, Ref<DerivedSendWait<Sub>>>;

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
  /// TypedCell<M>::begin_send of M(message): settled at once, or a send waiting for room.
  DerivedSendBegun<Sub> (*begin_send)(CellCore& cell, Sub&& message, TimePoint deadline);
  /// Starts a MessageTimer<M> whose messages are made of make()'s.
  Ref<TimerCore> (*start_timer)(Ref<CellCore> cell, TimerCore::Kind kind, Duration period, MissedTick policy,
                                std::unique_ptr<SubMaker<Sub>> make);
};

template <class M, class Sub>
Expected<void, SendError<Sub>> send_derived(CellCore& cell, Sub&& message, Receipt* receipt, SendMode mode) {
  return outcome_back<M, Sub>(static_cast<TypedCell<M>&>(cell).send(to_full<M>(std::move(message)), receipt, mode));
}

template <class M, class Sub>
DerivedSendBegun<Sub> begin_derived_send(CellCore& cell, Sub&& message, TimePoint deadline) {
  auto begun = static_cast<TypedCell<M>&>(cell).begin_send(to_full<M>(std::move(message)), deadline);
  if (auto* waiting = std::get_if<Ref<SendState<M>>>(&begun))
    return Ref<DerivedSendWait<Sub>>(make_ref<DerivedSendWaitOf<M, Sub>>(PendingSend<M>(std::move(*waiting))));
  return outcome_back<M, Sub>(std::get<0>(std::move(begun)));
}

template <class M, class Sub>
Ref<TimerCore> start_derived_timer(Ref<CellCore> cell, TimerCore::Kind kind, Duration period, MissedTick policy,
                                   std::unique_ptr<SubMaker<Sub>> make) {
  // Converted on the timer's staging step, outside its lock, like any other timer message.
  auto full = [make = std::move(make)]() { return to_full<M>(make->make()); };
  using Fn = decltype(full);
  return start_timer(make_ref<MessageTimer<M, Fn>>(kind, std::move(cell), period, policy, std::move(full)));
}

template <class M, class Sub>
inline constexpr DerivedOps<Sub> derived_ops{&send_derived<M, Sub>, &begin_derived_send<M, Sub>,
                                             &start_derived_timer<M, Sub>};

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

/// The outcome of DerivedRef::send, as PendingSend is ActorRef::send's: settled at once, or waiting
/// for room in a backpressured mailbox until its timeout. co_await it in a coroutine handler; get() it
/// outside actors. A failure hands the Sub message back.
template <class Sub>
class [[nodiscard]] PendingDerivedSend {
 public:
  using Result = Expected<void, SendError<Sub>>;

  /// For the engine: a send settled without waiting.
  explicit PendingDerivedSend(Result settled) : settled_(std::move(settled)) {}
  /// For the engine: a send that waits for room.
  explicit PendingDerivedSend(Ref<detail::DerivedSendWait<Sub>> waiting) noexcept : st_(std::move(waiting)) {}

  /// Whether the send was settled without waiting.
  bool is_ready() const noexcept { return settled_.has_value() || st_->is_ready(); }

  /// Blocks until the message is in the mailbox, the timeout passes (SendFailure::timed_out) or the
  /// actor stops (SendFailure::stopped), as PendingSend::get. Throws BlockingWaitError on a thread
  /// that runs actors: co_await the send there instead.
  Result get() {
    if (st_) return st_->get();
    // Refused on an actor's thread even when settled, as PendingSend::get is: the same code must not
    // work until the day the mailbox is full.
    if (detail::this_thread_runs_actors()) throw BlockingWaitError("send(...).get()");
    return std::move(*settled_);
  }

  /// Waits without blocking the thread.
  Task<Result> operator co_await() && {
    if (settled_) return ready(std::move(*settled_));
    return st_->wait();
  }

 private:
  static Task<Result> ready(Result r) { co_return r; }

  std::optional<Result> settled_;
  Ref<detail::DerivedSendWait<Sub>> st_;
};

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
class DerivedRef : public ActorCell, public detail::MessageTimerSends<DerivedRef<Sub>, Sub> {
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

  /// A send that waits for room in a backpressured mailbox, at most `timeout`, as ActorRef::send:
  /// co_await it in a coroutine handler (the thread stays free), get() it outside actors. With any
  /// other policy, or with room to spare, it is settled at once, as cast would be.
  /// ```cpp context=handler
  /// as::DerivedRef<Job> jobs = worker.derived<Job>();
  /// if (auto sent = co_await jobs.send(Job{7}, 1s); !sent) ctx.log("job {} not sent", sent.error().message().id);
  /// ```
  template <class U>
    requires std::constructible_from<Sub, U&&>
  PendingDerivedSend<Sub> send(U&& message, Duration timeout = no_timeout) const {
    const TimePoint deadline = deadline_after(cell_->runtime().now(), timeout);
    auto begun = ops_->begin_send(*cell_, Sub(std::forward<U>(message)), deadline);
    if (auto* waiting = std::get_if<Ref<detail::DerivedSendWait<Sub>>>(&begun))
      return PendingDerivedSend<Sub>(std::move(*waiting));
    return PendingDerivedSend<Sub>(std::get<0>(std::move(begun)));
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
    return detail::start_call<Sub>(cell_->runtime(), id(), builder, timeout, [this](Sub&& request) {
      return ops_->send(*cell_, std::move(request), nullptr, detail::SendMode::cast);
    });
  }
  /// The same with a timeout in any std::chrono unit.
  template <class B, class Rep, class Period>
    requires(!std::is_same_v<std::chrono::duration<Rep, Period>, Duration>)
  PendingCall<detail::reply_type_t<B>> call(B&& builder, std::chrono::duration<Rep, Period> timeout) const {
    return call(std::forward<B>(builder), std::chrono::duration_cast<Duration>(timeout));
  }

 private:
  friend struct detail::DerivedAccess;
  friend class detail::MessageTimerSends<DerivedRef<Sub>, Sub>;

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
