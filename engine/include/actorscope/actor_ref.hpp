// ActorRef<M>: the typed handle to an actor whose message type is M. It adds cast and call to
// everything ActorCell does; a failed cast hands the message back inside the error.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/detail/type_info.hpp>
#include <actorscope/detail/typed_cell.hpp>
#include <actorscope/reply.hpp>

#include <concepts>
#include <optional>
#include <utility>

namespace actorscope {

template <class M>
class ActorRef : public ActorCell {
 public:
  using Message = M;

  ActorRef() noexcept = default;
  /// For the engine: wraps a cell already known to take M.
  explicit ActorRef(Ref<detail::CellCore> cell) noexcept : ActorCell(std::move(cell)) {}

  /// Queues a message. If the actor no longer accepts messages (draining, stopping or stopped),
  /// the error carries the message back. @thread any
  template <class U>
    requires std::constructible_from<M, U&&>
  Expected<void, SendError<M>> cast(U&& message) const {
    return typed().send(M(std::forward<U>(message)));
  }

  /// Sends a request built around a fresh reply port and returns the pending call:
  /// `ref.call(as::rpc<Get>, 1s).get()` outside actors, `co_await ref.call(...)` inside them.
  /// A call to an actor that is not running fails at once with a sender error.
  template <class B>
  PendingCall<detail::reply_type_t<B>> call(B&& builder, Duration timeout = no_timeout) const {
    using T = detail::reply_type_t<B>;
    auto state = make_ref<detail::ReplyState<T>>(cell_->runtime(), id(), timeout);
    M request = detail::build_request(builder, Reply<T>(state));
    if (auto sent = typed().send(std::move(request)); !sent) {
      // Say why before the returned message (and the reply port inside it) is destroyed.
      state->set_error(std::string("call failed: ") + sent.error().what());
    }
    return PendingCall<T>(std::move(state));
  }
  template <class B, class Rep, class Period>
    requires(!std::is_same_v<std::chrono::duration<Rep, Period>, Duration>)
  PendingCall<detail::reply_type_t<B>> call(B&& builder, std::chrono::duration<Rep, Period> timeout) const {
    return call(std::forward<B>(builder), std::chrono::duration_cast<Duration>(timeout));
  }

 private:
  detail::TypedCell<M>& typed() const noexcept { return static_cast<detail::TypedCell<M>&>(*cell_); }
};

template <class M>
std::optional<ActorRef<M>> ActorCell::as() const {
  if (cell_ && cell_->message_tag() == detail::type_tag<M>()) return ActorRef<M>(cell_);
  return std::nullopt;
}

}  // namespace actorscope
