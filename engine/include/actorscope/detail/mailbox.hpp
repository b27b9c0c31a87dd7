// The lock-free building blocks of an actor's mailbox lanes: intrusive multi-producer inboxes
// that producers push with one CAS (a LIFO one for the rare lanes, a FIFO one for messages), and
// the owner's FIFO queue.
#pragma once

#include <actorscope/detail/spin_wait.hpp>

#include <atomic>
#include <cstddef>
#include <thread>

namespace actorscope::detail {

/// Base of everything that travels through an inbox (message envelopes, supervision events, wakes).
struct MailboxNode {
  MailboxNode* next = nullptr;
};

/// Multi-producer, single-consumer inbox. Producers push onto a LIFO stack with one CAS; the owner
/// takes the whole stack at once and reverses it, which restores push order. Once closed, pushes
/// fail and the producer keeps its node. An inbox may be *sealed* with a marker node: the marker is
/// pushed like an item, every later push fails, and the owner receives the marker after every item
/// that was accepted before it (this is how a drain can never overtake an accepted message).
class Inbox {
 public:
  explicit Inbox(MailboxNode* seal_marker = nullptr) noexcept : seal_marker_(seal_marker) {}
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  /// @thread any. False if the inbox is closed or sealed; the caller still owns `n`.
  bool push(MailboxNode* n) noexcept {
    MailboxNode* h = head_.load(std::memory_order_relaxed);
    do {
      if (h == closed_sentinel() || (h != nullptr && h == seal_marker_)) return false;
      n->next = h;
    } while (!head_.compare_exchange_weak(h, n, std::memory_order_seq_cst, std::memory_order_relaxed));
    return true;
  }

  /// @thread any. Pushes the seal marker; false if already sealed or closed.
  bool seal() noexcept { return seal_marker_ != nullptr && push(seal_marker_); }

  /// @thread any. Whether anything waits to be taken. Sequentially consistent, so an owner that
  /// publishes "idle" and then checks cannot miss a producer that pushed and then checked "idle".
  bool has_items() const noexcept {
    MailboxNode* h = head_.load(std::memory_order_seq_cst);
    return h != nullptr && h != closed_sentinel();
  }

  /// @thread owner. Takes every pushed node as a LIFO chain (most recent first), or nullptr.
  /// Taking a sealed chain closes the inbox.
  MailboxNode* take() noexcept {
    MailboxNode* h = head_.load(std::memory_order_acquire);
    for (;;) {
      if (h == nullptr || h == closed_sentinel()) return nullptr;
      MailboxNode* replacement = (h == seal_marker_) ? closed_sentinel() : nullptr;
      if (head_.compare_exchange_weak(h, replacement, std::memory_order_acq_rel, std::memory_order_acquire))
        return h;
    }
  }

  /// @thread owner. Refuses all further pushes and returns what was left (LIFO), or nullptr.
  MailboxNode* close() noexcept {
    MailboxNode* h = head_.exchange(closed_sentinel(), std::memory_order_acq_rel);
    return h == closed_sentinel() ? nullptr : h;
  }

  bool is_closed() const noexcept { return head_.load(std::memory_order_acquire) == closed_sentinel(); }

 private:
  static MailboxNode* closed_sentinel() noexcept {
    static MailboxNode closed;
    return &closed;
  }

  std::atomic<MailboxNode*> head_{nullptr};
  MailboxNode* const seal_marker_;
};

/// Multi-producer, single-consumer FIFO inbox for the message lane, after Dmitry Vyukov's
/// intrusive MPSC queue. Producers append at the tail with one CAS and then link the node they
/// replaced to theirs; the owner pops from the head, following those links. Unlike Inbox, the
/// owner never reverses a batch (one pass over a backlog's cache lines instead of two) and never
/// writes the producers' tail line except when it empties the queue, so a sender streaming
/// messages keeps that line in its own cache.
///
/// A stub node stands in the queue when it is empty, so that the tail always names a node to link
/// from. Between a producer's CAS and its link, the node is in the queue but not yet reachable:
/// pop() then returns nullptr although has_items() is true, and the owner tries again later.
///
/// Closing and sealing work as in Inbox: once closed, pushes fail and the producer keeps its node;
/// the seal marker is pushed like an item, every later push fails, and pop() returns the marker
/// after every item accepted before it, closing the inbox as it does.
class FifoInbox {
 public:
  explicit FifoInbox(MailboxNode* seal_marker = nullptr) noexcept : seal_marker_(seal_marker) {}
  FifoInbox(const FifoInbox&) = delete;
  FifoInbox& operator=(const FifoInbox&) = delete;

  /// @thread any. False if the inbox is closed or sealed; the caller still owns `n`.
  bool push(MailboxNode* n) noexcept {
    n->next = nullptr;  // not yet visible: the CAS below publishes it
    MailboxNode* prev = tail_.load(std::memory_order_relaxed);
    do {
      if (prev == closed_sentinel() || (prev != nullptr && prev == seal_marker_)) return false;
    } while (!tail_.compare_exchange_weak(prev, n, std::memory_order_seq_cst, std::memory_order_relaxed));
    // Whatever `prev` is now (a node that held the tail a moment ago, or one that reuses its
    // memory and is the tail again), it is the node just before ours, and the owner frees no node
    // until its link is set: it is alive.
    link(prev).store(n, std::memory_order_release);
    return true;
  }

  /// @thread any. Pushes the seal marker; false if already sealed or closed.
  bool seal() noexcept { return seal_marker_ != nullptr && push(seal_marker_); }

  /// @thread owner. Whether anything was pushed and not yet popped (including a node whose link
  /// is not set yet). The tail is read sequentially consistent, so an owner that publishes "idle"
  /// and then checks cannot miss a producer that pushed and then checked "idle".
  bool has_items() const noexcept {
    if (head_ != &stub_) return true;
    const MailboxNode* t = tail_.load(std::memory_order_seq_cst);
    return t != &stub_ && t != closed_sentinel();
  }

  /// @thread owner. The oldest node, or nullptr if there is none, or if the next one's sender has
  /// swung the tail but not linked it for longer than a short spin (has_items() tells the two
  /// apart). Popping the seal marker closes the inbox.
  MailboxNode* pop() noexcept {
    MailboxNode* head = head_;
    MailboxNode* next = link(head).load(std::memory_order_acquire);
    if (head == &stub_) {
      if (next == nullptr) {
        const MailboxNode* t = tail_.load(std::memory_order_acquire);
        if (t == &stub_ || t == closed_sentinel()) return nullptr;  // empty
        if ((next = await_link(stub_)) == nullptr) return nullptr;
      }
      head_ = head = next;
      next = link(head).load(std::memory_order_acquire);
    }
    if (next == nullptr) {
      // `head` is the last linked node. If it is also the tail, take it out by putting the stub
      // (or, for the seal marker, the closed sentinel) in its place.
      link(stub_).store(nullptr, std::memory_order_relaxed);
      MailboxNode* expected = head;
      MailboxNode* const replacement = head == seal_marker_ ? closed_sentinel() : &stub_;
      if (tail_.compare_exchange_strong(expected, replacement, std::memory_order_acq_rel, std::memory_order_acquire)) {
        head_ = &stub_;
        return head;
      }
      // A push after it has swung the tail: its link follows within a cache-line transfer, and an
      // owner that keeps up with a streaming sender gets here often.
      if ((next = await_link(*head)) == nullptr) return nullptr;
    }
    head_ = next;
    return head;
  }

  /// @thread owner. Refuses all further pushes and returns what was left, as a FIFO chain through
  /// `next` ending in nullptr (or nullptr). Waits for pushes that are still linking.
  MailboxNode* close() noexcept {
    MailboxNode* last = tail_.exchange(closed_sentinel(), std::memory_order_acq_rel);
    MailboxNode* first = head_;
    head_ = &stub_;
    if (last == closed_sentinel() || last == &stub_) return nullptr;  // the tail is the stub only when empty
    if (first == &stub_) first = wait_for_link(stub_);
    for (MailboxNode* n = first; n != last; n = wait_for_link(*n)) {
    }
    return first;
  }

  bool is_closed() const noexcept { return tail_.load(std::memory_order_acquire) == closed_sentinel(); }

 private:
  static std::atomic_ref<MailboxNode*> link(MailboxNode& n) noexcept { return std::atomic_ref<MailboxNode*>(n.next); }
  static std::atomic_ref<MailboxNode*> link(MailboxNode* n) noexcept { return link(*n); }
  /// The node after `n`, whose sender is linking it: polled for a short while, nullptr if it has
  /// not come (its sender was preempted between its CAS and its link).
  static MailboxNode* await_link(MailboxNode& n) noexcept {
    for (int i = 0; i < kLinkSpins; ++i) {
      if (MailboxNode* next = link(n).load(std::memory_order_acquire)) return next;
      cpu_relax();
    }
    return link(n).load(std::memory_order_acquire);
  }
  static constexpr int kLinkSpins = 4096;  // a few microseconds: far longer than two instructions
  static MailboxNode* wait_for_link(MailboxNode& n) noexcept {
    for (;;) {
      if (MailboxNode* next = link(n).load(std::memory_order_acquire)) return next;
      std::this_thread::yield();  // its producer is between its CAS and its link
    }
  }
  static MailboxNode* closed_sentinel() noexcept {
    static MailboxNode closed;
    return &closed;
  }

  // The producers' line: the tail. The owner reads it, and writes it only to empty or close.
  std::atomic<MailboxNode*> tail_{&stub_};
  MailboxNode* const seal_marker_;
  // A line apart, whatever the inbox's alignment: the owner's side, which it writes per message.
  std::byte producers_end_[64];
  MailboxNode* head_ = &stub_;  // the next node to pop, or the stub
  MailboxNode stub_;
};

/// The owner's FIFO view of one lane: chains taken from an Inbox are reversed and appended.
class NodeQueue {
 public:
  bool empty() const noexcept { return head_ == nullptr; }

  /// Appends a LIFO chain (as Inbox::take returns it) in FIFO order.
  void append_lifo(MailboxNode* chain) noexcept {
    if (chain == nullptr) return;
    MailboxNode* first = nullptr;  // reverse in place
    MailboxNode* last = chain;
    while (chain != nullptr) {
      MailboxNode* next = chain->next;
      chain->next = first;
      first = chain;
      chain = next;
    }
    if (tail_ != nullptr) {
      tail_->next = first;
    } else {
      head_ = first;
    }
    tail_ = last;
  }

  /// Appends one node.
  void push_back(MailboxNode* n) noexcept {
    n->next = nullptr;
    if (tail_ != nullptr) {
      tail_->next = n;
    } else {
      head_ = n;
    }
    tail_ = n;
  }

  /// Removes the first node. Its `next` is left as it was: whoever queues it again sets it.
  MailboxNode* pop() noexcept {
    MailboxNode* n = head_;
    if (n == nullptr) return nullptr;
    head_ = n->next;
    if (head_ == nullptr) tail_ = nullptr;
    return n;
  }

 private:
  MailboxNode* head_ = nullptr;
  MailboxNode* tail_ = nullptr;
};

}  // namespace actorscope::detail
