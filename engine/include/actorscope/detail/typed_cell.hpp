// TypedCell<M>: the layer of a cell that knows its message type, so a typed ActorRef can queue a
// message (one allocation, one CAS) and get it back when the actor no longer accepts messages.
#pragma once

#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/detail/type_info.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/ref_counted.hpp>

#include <string_view>
#include <utility>
#include <variant>

namespace actorscope::detail {

/// Told once when the message it rides with has been handled or discarded. An output port's bounded
/// subscription counts its backlog in the subscriber's mailbox with it.
class Receipt : public RefCounted {
 public:
  virtual void consumed() noexcept = 0;
};

/// The type an observer reports for a message: the held alternative's for a variant.
template <class M>
std::string_view message_type_name(const M& m) noexcept {
  if constexpr (requires { std::variant_size<M>::value; }) {
    return std::visit([](const auto& alt) { return type_name<std::decay_t<decltype(alt)>>(); }, m);
  } else {
    return type_name<M>();
  }
}

template <class M>
struct Envelope final : MessageNode {
  template <class U>
  explicit Envelope(U&& m) : message(std::forward<U>(m)) {}
  M message;
  Receipt* receipt = nullptr;  // holds a reference when set
};

template <class M>
class TypedCell : public CellCore {
 public:
  /// Queues `message`; `receipt`, if given, hears when it has been handled or discarded.
  /// @thread any
  Expected<void, SendError<M>> send(M&& message, Receipt* receipt = nullptr) {
    if (!accepts_messages()) return unexpected(SendError<M>(std::move(message), id(), status()));
    auto* envelope = new Envelope<M>(std::move(message));
    if (receipt != nullptr) {
      receipt->retain();
      envelope->receipt = receipt;
    }
    if constexpr (kObserve) {
      if (const std::uint8_t obs = system().observing()) [[unlikely]]
        note_send(*envelope, obs, (obs & kTypeNames) ? message_type_name(envelope->message) : std::string_view());
    }
    CellCore* const sender = CellCore::current();
    if (sender == this ? push_own_message(*envelope) : push_message(*envelope)) {
      if (sender != nullptr) sender->count_sent();
      return {};
    }
    M back = std::move(envelope->message);
    if (receipt != nullptr) receipt->release();
    delete envelope;
    return unexpected(SendError<M>(std::move(back), id(), status()));
  }

 protected:
  using CellCore::CellCore;
  void destroy_message(MailboxNode& n) noexcept override {
    auto* envelope = static_cast<Envelope<M>*>(&n);
    Receipt* receipt = envelope->receipt;
    delete envelope;
    if (receipt != nullptr) {
      receipt->consumed();
      receipt->release();
    }
  }
  std::string_view message_type(MailboxNode& n) noexcept override {
    return message_type_name(static_cast<Envelope<M>&>(n).message);
  }
};

}  // namespace actorscope::detail
