// The bounded mailbox: a capacity on the message lane, and what a full one does with the next
// message (reject, drop the newest, drop the oldest, or make the sender wait).
//
// The lane itself stays the lock-free inbox of an unbounded mailbox; the bound is kept by counting.
// A message takes a slot when it is queued (senders raise received_ with a compare-and-swap that
// checks for room) and gives it back when its handler begins (the drain raises started_). Senders
// read started_ through a copy of their own (started_seen_) and look at the real one only when the
// copy says full, so that a bound that is never reached costs them no read of the drain's line.
//
// An actor's message to itself takes its slot without a compare-and-swap (own_slots_, which only
// the actor writes), so that a bounded self-loop costs what an unbounded one does. The price: when
// such a message races another sender for the last slot, both may get in, and for a moment one
// more message waits than the capacity allows. Messages from other actors and threads alone never
// exceed it.
//
// drop_oldest cannot take the oldest message out of a lock-free stack from the sender's side: the
// sender queues its message in the oldest one's slot (received_ stays as it is) and counts an
// eviction, and the drain discards that many messages, in order, before it handles the next.
// received_ only ever grows by a checked compare-and-swap, so what waits never exceeds the capacity,
// even for an instant. Backpressured sends wait in a FIFO queue under a mutex; the drain moves them
// into the mailbox as slots free.
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/system_core.hpp>

#include "parked_queue.hpp"

namespace actorscope::detail {

bool CellCore::take_slot() noexcept {
  std::uint64_t r = received_.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t taken = r + own_slots_.load(std::memory_order_relaxed);
    if (full(taken, started_seen_.load(std::memory_order_relaxed))) {
      // The copy may be old: look at the drain's own count before calling the mailbox full. (The
      // copy is stored without ordering; it is only ever a value started_ once had, never ahead.)
      const std::uint64_t started = started_.load(std::memory_order_seq_cst);
      started_seen_.store(started, std::memory_order_relaxed);
      if (full(taken, started)) return false;
    }
    if (received_.compare_exchange_weak(r, r + 1, std::memory_order_relaxed)) return true;
  }
}

Pushed CellCore::push_bounded_message(MessageNode& n, bool try_only) noexcept {
  // The usual case in as few instructions as an unbounded push (a sender on another thread pays
  // for each: a slower sender lets the drain run dry, and each message after that wakes it): nobody
  // waits for room (has_parked_ is only ever raised under backpressure), the senders' copy of
  // started_ shows room, and the slot is taken at the first try. Anything else, push_bounded.
  std::uint64_t r = received_.load(std::memory_order_relaxed);
  if (!has_parked_.load(std::memory_order_acquire) &&
      !full(r + own_slots_.load(std::memory_order_relaxed), started_seen_.load(std::memory_order_relaxed)) &&
      received_.compare_exchange_strong(r, r + 1, std::memory_order_relaxed)) [[likely]] {
    if (messages_.push(&n)) [[likely]] {
      wake_if_idle(Urgency::normal);
      return Pushed::queued;
    }
    received_.fetch_sub(1, std::memory_order_relaxed);  // the lane closed under us
    return Pushed::closed;
  }
  return push_bounded(n, try_only, false);
}

Pushed CellCore::push_bounded(MessageNode& n, bool try_only, bool own) noexcept {
  // Backpressured senders get in in the order they began to wait: nobody overtakes the queue.
  const bool queue_behind =
      overflow_ == Overflow::backpressure && has_parked_.load(std::memory_order_acquire);
  bool evict = false;
  if (queue_behind || !take_slot()) {
    if (queue_behind || try_only || overflow_ == Overflow::reject || overflow_ == Overflow::backpressure)
      return Pushed::full;
    if (overflow_ == Overflow::drop_newest) {
      bounded_->dropped.fetch_add(1, std::memory_order_relaxed);
      destroy_message(n);
      return Pushed::dropped;
    }
    // drop_oldest: the new message takes the oldest one's slot. The eviction is counted before the
    // message is queued, so that a drain that takes the message also sees the eviction it owes.
    bounded_->dropped.fetch_add(1, std::memory_order_release);
    evict = true;
  }
  if (own) {
    if (queue_own(n)) return Pushed::queued;
  } else if (messages_.push(&n)) {
    wake_if_idle(Urgency::normal);
    return Pushed::queued;
  }
  // The lane closed under us (its messages are all discarded now): give the slot or the eviction back.
  (evict ? bounded_->dropped : received_).fetch_sub(1, std::memory_order_relaxed);
  return Pushed::closed;
}

MailboxNode* CellCore::begin_bounded_message(MailboxNode* n) noexcept {
  if (overflow_ == Overflow::drop_oldest) {
    // The oldest waiting messages make room for newer ones: as many as were evicted, in order.
    Bounded& b = *bounded_;
    while (b.discarded < b.dropped.load(std::memory_order_acquire)) {
      ++b.discarded;
      destroy_message(*n);
      if (message_queue_.empty()) message_queue_.append_lifo(messages_.take());
      n = message_queue_.pop();
      if (n == nullptr || n == &drain_marker_) return n;
    }
  }
  if (overflow_ != Overflow::backpressure) {
    started_.store(started_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    return n;
  }
  // Sequentially consistent, as park()'s store of has_parked_ and take_slot()'s load of started_:
  // either this drain sees the parked send, or its sender sees the slot that was just freed.
  started_.store(started_.load(std::memory_order_relaxed) + 1, std::memory_order_seq_cst);
  if (has_parked_.load(std::memory_order_seq_cst)) admit_parked();
  return n;
}

void CellCore::admit_parked_locked(Settled& settled) noexcept {
  ParkedQueue& q = bounded_->parked;
  while (!q.waiting.empty() && take_slot()) {
    ParkedSend& p = q.waiting.front();
    q.waiting.pop_front();
    if (messages_.push(p.node_)) {
      p.state_.store(ParkedSend::State::queued, std::memory_order_release);
      wake_if_idle(Urgency::normal);
    } else {
      received_.fetch_sub(1, std::memory_order_relaxed);
      p.state_.store(ParkedSend::State::closed, std::memory_order_release);
    }
    settled.list.push_back(p);
  }
  has_parked_.store(!q.waiting.empty(), std::memory_order_seq_cst);
}

void CellCore::admit_parked() noexcept {
  Settled settled;
  std::lock_guard lk(bounded_->parked.m);
  admit_parked_locked(settled);
}

void CellCore::park(ParkedSend& p) noexcept {
  Settled settled;  // declared first: its senders are told after the lock is released
  ParkedQueue& q = bounded_->parked;
  std::lock_guard lk(q.m);
  p.retain();  // held by the queue, or by `settled`
  if (q.closed || !accepts_messages()) {
    p.state_.store(ParkedSend::State::closed, std::memory_order_release);
    settled.list.push_back(p);
    return;
  }
  q.waiting.push_back(p);
  // Pairs with the drain's store of started_ (see begin_bounded_message): a slot freed before the
  // drain could see us is taken here.
  has_parked_.store(true, std::memory_order_seq_cst);
  admit_parked_locked(settled);
}

bool CellCore::withdraw(ParkedSend& p) noexcept {
  {
    ParkedQueue& q = bounded_->parked;
    std::lock_guard lk(q.m);
    if (p.state_.load(std::memory_order_relaxed) != ParkedSend::State::parked) return false;
    q.waiting.erase(q.waiting.iterator_to(p));
    p.state_.store(ParkedSend::State::withdrawn, std::memory_order_release);
    has_parked_.store(!q.waiting.empty(), std::memory_order_seq_cst);
  }
  p.release();  // the queue's reference; the caller holds its own
  return true;
}

void CellCore::close_parked() noexcept {
  Settled settled;
  ParkedQueue& q = bounded_->parked;
  std::lock_guard lk(q.m);
  q.closed = true;
  while (!q.waiting.empty()) {
    ParkedSend& p = q.waiting.front();
    q.waiting.pop_front();
    p.state_.store(ParkedSend::State::closed, std::memory_order_release);
    settled.list.push_back(p);
  }
  has_parked_.store(false, std::memory_order_seq_cst);
}

void CellCore::count_rejected() noexcept { bounded_->rejected.fetch_add(1, std::memory_order_relaxed); }

std::uint64_t CellCore::evicted() const noexcept { return bounded_->dropped.load(std::memory_order_relaxed); }

}  // namespace actorscope::detail
