// The queue of sends waiting for room in a backpressured mailbox, and the rest of a bounded
// mailbox's out-of-line state (private to the engine's core).
#pragma once

#include <actorscope/detail/cell_core.hpp>

#include <boost/intrusive/list.hpp>

#include <mutex>

namespace actorscope::detail {

using ParkedList = ParkedSend::List;

/// A backpressured mailbox's waiting senders, in the order they began to wait. Each holds a
/// reference on its ParkedSend while it is in the list.
struct CellCore::ParkedQueue {
  std::mutex m;
  ParkedList waiting;
  bool closed = false;  // the lane closed: new parks are settled at once
};

/// A bounded mailbox's state that its fast paths never touch, made with the cell for bounded
/// mailboxes only: the messages a full one dropped and the sends it refused (ActorStats), the
/// evictions the drain has carried out (drop_oldest), and under backpressure the waiting sends.
struct CellCore::Bounded {
  // drop_newest: messages dropped; drop_oldest: evictions (the drain discards as many, in order).
  std::atomic<std::uint64_t> dropped{0};
  std::atomic<std::uint64_t> rejected{0};
  std::uint64_t discarded = 0;  // drop_oldest: evictions the drain has carried out
  ParkedQueue parked;           // backpressure only
};

/// Parked sends settled under the lock, told (completion, reference released) after it.
struct CellCore::Settled {
  ParkedList list;
  Settled() = default;
  Settled(const Settled&) = delete;
  Settled& operator=(const Settled&) = delete;
  ~Settled() {
    while (!list.empty()) {
      ParkedSend& p = list.front();
      list.pop_front();
      p.completion().complete();
      p.release();
    }
  }
};

}  // namespace actorscope::detail
