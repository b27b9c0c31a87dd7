// TypedCell<M>: the layer of a cell that knows its message type, so a typed ActorRef can queue a
// message (one allocation, one CAS) and get it back when the actor no longer accepts messages.
#pragma once

#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/message_pool.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/detail/type_info.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/ref_counted.hpp>

#include <cstddef>
#include <new>
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
  Envelope(U&& m, bool from_pool) : message(std::forward<U>(m)), pooled(from_pool) {}
  M message;
  Receipt* receipt = nullptr;  // holds a reference when set
  const bool pooled;           // from the MessagePool, not operator new

  /// Where an envelope's memory comes from. The pool wins when the memory is freed on the thread
  /// that allocated it (a message to oneself: 90 fewer instructions per message) and for large
  /// envelopes, which glibc serves slowly. Small envelopes that cross threads stay with malloc:
  /// its fastbins serve them without a lock and hand out neighbouring addresses, which the
  /// receiver's pass over a batch (a pointer chase) reads faster than recycled, scattered blocks.
  static constexpr bool pool_for(bool to_self) noexcept { return to_self || sizeof(Envelope) > kLargeEnvelope; }
  static constexpr std::size_t kLargeEnvelope = 128;

  static Envelope* make(M&& m, bool from_pool) {
    if (!from_pool) return new Envelope(std::move(m), false);
    void* memory = MessagePool::allocate(sizeof(Envelope));
    try {
      return ::new (memory) Envelope(std::move(m), true);
    } catch (...) {
      MessagePool::deallocate(memory, sizeof(Envelope));
      throw;
    }
  }
  static void destroy(Envelope* e) noexcept {
    if (!e->pooled) {
      delete e;
      return;
    }
    e->~Envelope();
    MessagePool::deallocate(e, sizeof(Envelope));
  }
};

template <class M>
class TypedCell : public CellCore {
 public:
  /// Queues `message`; `receipt`, if given, hears when it has been handled or discarded.
  /// @thread any
  Expected<void, SendError<M>> send(M&& message, Receipt* receipt = nullptr) {
    if (!accepts_messages()) return unexpected(SendError<M>(std::move(message), id(), status()));
    CellCore* const sender = CellCore::current();
    auto* envelope = Envelope<M>::make(std::move(message), Envelope<M>::pool_for(sender == this));
    if (receipt != nullptr) {
      receipt->retain();
      envelope->receipt = receipt;
    }
    if constexpr (kObserve) {
      if (const std::uint8_t obs = system().observing()) [[unlikely]]
        note_send(*envelope, obs, (obs & kTypeNames) ? message_type_name(envelope->message) : std::string_view());
    }
    if (sender == this ? push_own_message(*envelope) : push_message(*envelope)) {
      if (sender != nullptr) sender->count_sent();
      return {};
    }
    M back = std::move(envelope->message);
    if (receipt != nullptr) receipt->release();
    Envelope<M>::destroy(envelope);
    return unexpected(SendError<M>(std::move(back), id(), status()));
  }

 protected:
  using CellCore::CellCore;
  void destroy_message(MailboxNode& n) noexcept override {
    auto* envelope = static_cast<Envelope<M>*>(&n);
    Receipt* receipt = envelope->receipt;
    Envelope<M>::destroy(envelope);
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
