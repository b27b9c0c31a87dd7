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

/// How a send meets a full bounded mailbox.
enum class SendMode : std::uint8_t {
  cast,     ///< the actor's policy; backpressure waits outside actors and refuses (would_block) on their threads
  no_wait,  ///< the policy, but backpressure refuses at once (timers and output ports never wait)
  attempt,  ///< refuses when full whatever the policy (try_cast)
};

template <class M>
class TypedCell;

/// A backpressured send of an M: the envelope waits in the target's queue of parked sends.
template <class M>
class SendState final : public ParkedSend {
 public:
  SendState(TypedCell<M>& target, Envelope<M>& envelope, TimePoint deadline) noexcept
      : ParkedSend(envelope), target_(&target), deadline_(deadline) {}
  ~SendState() override {
    if (owns_message()) Envelope<M>::destroy(envelope());
  }

  TypedCell<M>& target() const noexcept { return static_cast<TypedCell<M>&>(*target_); }
  TimePoint deadline() const noexcept { return deadline_; }
  /// Gives up waiting: true if the send was still parked (its message comes back as timed_out).
  bool withdraw() noexcept { return target_->withdraw(*this); }

  /// Blocks until the send is settled or its deadline passes (then it is withdrawn: timed_out),
  /// and says how it went. Throws BlockingWaitError on a thread that runs actors.
  Expected<void, SendError<M>> wait(std::string_view operation) {
    Runtime& rt = target_->runtime();
    if (!completion().wait_until(rt, deadline_, operation) && !withdraw()) {
      // Let in just as we gave up: it is being settled now.
      completion().wait_until(rt, TimePoint::max(), operation);
    }
    return take_outcome();
  }

  /// What became of the send, once it is settled (completion() done, or withdraw() true). Once:
  /// a message handed back is moved out.
  Expected<void, SendError<M>> take_outcome() {
    const State st = state();
    if (st == State::queued) {
      if (CellCore* sender = CellCore::current()) sender->count_sent();
      return {};
    }
    M back = std::move(envelope()->message);
    Envelope<M>::destroy(envelope());
    taken_ = true;
    if (st == State::withdrawn) {
      target_->count_rejected();
      return unexpected(SendError<M>(std::move(back), target_->id(), target_->status(), SendFailure::timed_out,
                                     target_->mailbox_capacity()));
    }
    return unexpected(SendError<M>(std::move(back), target_->id(), target_->status()));
  }

 private:
  Envelope<M>* envelope() const noexcept { return static_cast<Envelope<M>*>(node_); }
  /// The envelope is ours unless the mailbox took it (queued) or take_outcome() already freed it.
  bool owns_message() const noexcept { return !taken_ && state() != State::queued; }

  Ref<CellCore> target_;
  TimePoint deadline_;
  bool taken_ = false;
};

template <class M>
class TypedCell : public CellCore {
 public:
  /// Queues `message`; `receipt`, if given, hears when it has been handled or discarded. `mode`
  /// says what a full bounded mailbox does (see SendMode). @thread any
  Expected<void, SendError<M>> send(M&& message, Receipt* receipt = nullptr, SendMode mode = SendMode::cast) {
    if (!accepts_messages()) return unexpected(SendError<M>(std::move(message), id(), status()));
    CellCore* const sender = CellCore::current();
    Envelope<M>* envelope = wrap(std::move(message), sender, receipt);
    const bool try_only = mode == SendMode::attempt;
    const Pushed pushed = sender == this ? push_own_message(*envelope, try_only) : push_message(*envelope, try_only);
    if (pushed == Pushed::queued || pushed == Pushed::dropped) [[likely]] {
      if (sender != nullptr) sender->count_sent();
      return {};
    }
    if (pushed == Pushed::full && mode == SendMode::cast && may_wait(sender)) {
      // Backpressure outside actors: wait for room as long as it takes.
      return park_envelope(*envelope, TimePoint::max())->wait("cast to a full mailbox");
    }
    return refuse(*envelope, pushed, mode);
  }

  /// The first step of ActorRef::send: queued, refused, or parked to wait for room until
  /// `deadline` (the returned state; the caller waits on its completion). @thread any
  std::variant<Expected<void, SendError<M>>, Ref<SendState<M>>> begin_send(M&& message, TimePoint deadline) {
    if (!accepts_messages()) return unexpected(SendError<M>(std::move(message), id(), status()));
    CellCore* const sender = CellCore::current();
    Envelope<M>* envelope = wrap(std::move(message), sender, nullptr);
    const Pushed pushed = sender == this ? push_own_message(*envelope) : push_message(*envelope);
    if (pushed == Pushed::queued || pushed == Pushed::dropped) {
      if (sender != nullptr) sender->count_sent();
      return Expected<void, SendError<M>>();
    }
    // An actor that waited for room in its own mailbox would wait for ever: nothing drains it meanwhile.
    if (pushed == Pushed::full && overflow() == Overflow::backpressure && sender != this)
      return park_envelope(*envelope, deadline);
    return refuse(*envelope, pushed, SendMode::no_wait);
  }

 protected:
  using CellCore::CellCore;

 private:
  Envelope<M>* wrap(M&& message, CellCore* sender, Receipt* receipt) {
    auto* envelope = Envelope<M>::make(std::move(message), Envelope<M>::memory_for(sender == this));
    if (receipt != nullptr) {
      receipt->retain();
      envelope->receipt = receipt;
    }
    if constexpr (kObserve) {
      if (const std::uint8_t obs = system().observing()) [[unlikely]]
        note_send(*envelope, obs, (obs & kTypeNames) ? message_type_name(envelope->message) : std::string_view());
    }
    return envelope;
  }

  /// Whether this thread may block until a backpressured mailbox has room: not an actor's (nor
  /// this actor's own) and not a runtime's.
  bool may_wait(CellCore* sender) const noexcept {
    return overflow() == Overflow::backpressure && sender == nullptr && !this_thread_runs_actors();
  }

  Ref<SendState<M>> park_envelope(Envelope<M>& envelope, TimePoint deadline) {
    auto st = make_ref<SendState<M>>(*this, envelope, deadline);
    park(*st);
    return st;
  }

  /// Hands a message that was not queued back inside the error that says why.
  Expected<void, SendError<M>> refuse(Envelope<M>& envelope, Pushed pushed, SendMode mode) {
    M back = std::move(envelope.message);
    if (Receipt* receipt = envelope.receipt) receipt->release();
    Envelope<M>::destroy(&envelope);
    if (pushed == Pushed::closed) return unexpected(SendError<M>(std::move(back), id(), status()));
    count_rejected();
    const SendFailure why =
        overflow() == Overflow::backpressure && mode != SendMode::attempt ? SendFailure::would_block : SendFailure::full;
    return unexpected(SendError<M>(std::move(back), id(), status(), why, mailbox_capacity()));
  }

 protected:
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
