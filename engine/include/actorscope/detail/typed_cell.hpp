// TypedCell<M>: the layer of a cell that knows its message type, so a typed ActorRef can queue a
// message (one allocation, one CAS) and get it back when the actor no longer accepts messages.
#pragma once

#include <actorscope/detail/cell_core.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>

#include <utility>

namespace actorscope::detail {

template <class M>
struct Envelope final : MailboxNode {
  template <class U>
  explicit Envelope(U&& m) : message(std::forward<U>(m)) {}
  M message;
};

template <class M>
class TypedCell : public CellCore {
 public:
  /// @thread any
  Expected<void, SendError<M>> send(M&& message) {
    if (!accepts_messages()) return unexpected(SendError<M>(std::move(message), id(), status()));
    auto* envelope = new Envelope<M>(std::move(message));
    if (push_message(*envelope)) return {};
    M back = std::move(envelope->message);
    delete envelope;
    return unexpected(SendError<M>(std::move(back), id(), status()));
  }

 protected:
  using CellCore::CellCore;
  void destroy_message(MailboxNode& n) noexcept override { delete static_cast<Envelope<M>*>(&n); }
};

}  // namespace actorscope::detail
