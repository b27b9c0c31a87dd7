// The lock-free building blocks of an actor's mailbox lanes: an intrusive multi-producer inbox
// that producers push with one CAS, and the owner's FIFO queue it is spliced into.
#pragma once

#include <atomic>

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
