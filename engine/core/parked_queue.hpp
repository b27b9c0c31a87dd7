// The queue of sends waiting for room in a backpressured mailbox (private to the engine's core).
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
