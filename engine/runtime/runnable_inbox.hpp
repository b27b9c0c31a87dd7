// RunnableInbox: an intrusive, lock-free, multi-producer single-consumer list of Runnables that
// the asio and qt runtimes use to coalesce wake-ups. Producers push with one CAS and learn whether
// the inbox was idle; only that push has to wake the consumer (post one handler or event). The
// consumer claims what was pushed, runs it in FIFO order, and declares the inbox idle again only
// when it has found it empty, so between those two points no producer wakes anyone.
#pragma once

#include <actorscope/runtime.hpp>

#include <atomic>

namespace actorscope::detail {

class RunnableInbox {
 public:
  RunnableInbox() = default;
  RunnableInbox(const RunnableInbox&) = delete;
  RunnableInbox& operator=(const RunnableInbox&) = delete;

  /// Any thread. Links `r` through Runnable::runtime_link. Returns true when the inbox was idle:
  /// the caller must then make the consumer run once (and nobody else will).
  bool push(Runnable& r) noexcept {
    // Not just release: what the consumer did before idle() must also come before the next
    // consumer's take(), which this push's wake-up may start on another thread; and seq_cst so that
    // a load the pusher makes next is not ordered before the push (the qt host's check for a
    // consumer blocked in a nested loop relies on it). On x86 any CAS is a full barrier anyway.
    Runnable* old = head_.load(std::memory_order_relaxed);
    do {
      r.runtime_link = old;
    } while (!head_.compare_exchange_weak(old, &r, std::memory_order_seq_cst, std::memory_order_relaxed));
    return old == nullptr;
  }

  // -- the consumer (one thread at a time; the handoff to it must carry a happens-before edge) --

  /// Whether producers pushed since the last take() (or the inbox is idle and unclaimed).
  bool pushed() const noexcept { return head_.load(std::memory_order_relaxed) != claimed(); }

  /// Moves everything pushed so far behind the local FIFO, oldest first, and claims the inbox:
  /// until idle() succeeds, pushes return false.
  void take() noexcept { append_reversed(head_.exchange(claimed(), std::memory_order_acquire)); }

  /// Appends to the local FIFO directly. Only the consumer's own thread, while it is consuming.
  void push_local(Runnable& r) noexcept {
    r.runtime_link = nullptr;
    if (tail_ != nullptr) {
      tail_->runtime_link = &r;
    } else {
      first_ = &r;
    }
    tail_ = &r;
  }

  /// The oldest local item, unlinked (so that it may be pushed again from its own run()); nullptr
  /// when the local FIFO is empty.
  Runnable* pop() noexcept {
    Runnable* r = first_;
    if (r == nullptr) return nullptr;
    first_ = r->runtime_link;
    if (first_ == nullptr) tail_ = nullptr;
    r->runtime_link = nullptr;
    return r;
  }

  bool local_empty() const noexcept { return first_ == nullptr; }

  /// Local items, or pushed ones not yet taken. (The load is seq_cst: see push.)
  bool has_work() const noexcept {
    if (first_ != nullptr) return true;
    Runnable* h = head_.load(std::memory_order_seq_cst);
    return h != nullptr && h != claimed();
  }

  /// Whether the inbox is claimed by a consumer or holds pushed items: false only while idle.
  /// Any thread. (seq_cst: see push.)
  bool in_use() const noexcept { return head_.load(std::memory_order_seq_cst) != nullptr; }

  /// With the local FIFO empty: declares the inbox idle, so that the next push wakes the consumer
  /// again. False if something was pushed meanwhile (take() it and go on).
  bool idle() noexcept {
    Runnable* h = head_.load(std::memory_order_relaxed);
    if (h == nullptr) return true;
    if (h != claimed()) return false;
    return head_.compare_exchange_strong(h, nullptr, std::memory_order_acq_rel, std::memory_order_relaxed);
  }

  /// Once no producer or consumer can touch the inbox any more: calls `f` on every item left.
  template <class F>
  void drain(F&& f) noexcept {
    take();
    while (Runnable* r = pop()) f(*r);
  }

 private:
  // A distinct address that is never a queued Runnable: "claimed by the consumer, nothing new".
  struct Mark final : Runnable {
    void run() noexcept override {}
    void discard() noexcept override {}
  };
  Runnable* claimed() const noexcept { return const_cast<Mark*>(&mark_); }

  void append_reversed(Runnable* chain) noexcept {
    Runnable* newest = chain;
    Runnable* prev = nullptr;
    while (chain != nullptr && chain != claimed()) {
      Runnable* next = chain->runtime_link;
      chain->runtime_link = prev;
      prev = chain;
      chain = next;
    }
    if (prev == nullptr) return;  // nothing new
    if (tail_ != nullptr) {
      tail_->runtime_link = prev;
    } else {
      first_ = prev;
    }
    tail_ = newest;
  }

  alignas(64) std::atomic<Runnable*> head_{nullptr};  // LIFO of pushed items; claimed() when taken
  alignas(64) Runnable* first_ = nullptr;             // the consumer's FIFO
  Runnable* tail_ = nullptr;
  Mark mark_;
};

}  // namespace actorscope::detail
