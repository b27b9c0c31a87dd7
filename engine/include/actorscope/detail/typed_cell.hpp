// TypedCell<M>: the layer of a cell that knows its message type, so a typed ActorRef can queue a
// message (one allocation, one CAS) and get it back when the actor no longer accepts messages.
#pragma once

#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/message_pool.hpp>
#include <actorscope/detail/send_arena.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/detail/type_info.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/ref_counted.hpp>

#include <cstddef>
#include <cstdint>
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

/// Where an envelope's memory comes from.
enum class EnvelopeMemory : std::uint8_t {
  heap,   ///< operator new: large or over-aligned envelopes
  pool,   ///< MessagePool: messages an actor sends itself
  arena,  ///< SendArena: messages that cross threads
};

template <class M>
struct Envelope final : MessageNode {
  template <class U>
  Envelope(U&& m, EnvelopeMemory from) : memory(from), message(std::forward<U>(m)) {}
  // The bookkeeping comes before the message, next to MessageNode's fields, so that a receiver
  // whose handler does not read the whole message touches only the envelope's first cache line
  // to queue, handle and free it: after the message, a 256-byte envelope's receipt and memory
  // kind sat four lines further on, one more line to bring over from the sender's core.
  Receipt* receipt = nullptr;  // holds a reference when set
  const EnvelopeMemory memory;
  M message;

  /// A message to oneself is allocated and freed on the same thread, where MessagePool's free
  /// lists win (90 fewer instructions per message than malloc). A message to another actor is
  /// freed on the receiver's thread, usually in a batch, in send order: SendArena carves those
  /// out of contiguous memory, which the receiver walks with the prefetcher's help (an 8-byte
  /// cast from outside was 233 of 503 instructions in glibc's cross-thread free/malloc, and
  /// recycled scattered blocks made the receiver's pass a chain of cache misses).
  static constexpr EnvelopeMemory memory_for(bool to_self) noexcept {
    if (alignof(Envelope) > SendArena::kAlignment) return EnvelopeMemory::heap;
    if (to_self && sizeof(Envelope) <= MessagePool::kMaxPooled) return EnvelopeMemory::pool;
    if (sizeof(Envelope) <= SendArena::kMaxBlock) return EnvelopeMemory::arena;
    return EnvelopeMemory::heap;
  }

  static Envelope* make(M&& m, EnvelopeMemory from) {
    void* block = nullptr;
    switch (from) {
      case EnvelopeMemory::heap:
        return new Envelope(std::move(m), from);
      case EnvelopeMemory::pool:
        block = MessagePool::allocate(sizeof(Envelope));
        break;
      case EnvelopeMemory::arena:
        block = SendArena::allocate(sizeof(Envelope));
        break;
    }
    try {
      return ::new (block) Envelope(std::move(m), from);
    } catch (...) {
      release(block, from);
      throw;
    }
  }
  static void destroy(Envelope* e) noexcept {
    const EnvelopeMemory from = e->memory;
    if (from == EnvelopeMemory::heap) {
      delete e;
      return;
    }
    e->~Envelope();
    release(e, from);
  }

 private:
  static void release(void* block, EnvelopeMemory from) noexcept {
    if (from == EnvelopeMemory::pool) {
      MessagePool::deallocate(block, sizeof(Envelope));
    } else {
      SendArena::deallocate(block, sizeof(Envelope));
    }
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
    auto* envelope = Envelope<M>::make(std::move(message), Envelope<M>::memory_for(sender == this));
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
