// EventCollector: one bounded single-producer ring per emitting thread, and a consumer that
// merges them in causal order.
#include <actorscope/observe/event_collector.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <thread>

namespace actorscope::observe {

// Single producer (its thread), single consumer (whoever drains). The producer owns tail_, the
// consumer head_; a slot is the producer's until tail_ passes it, then the consumer's.
struct EventCollector::Ring {
  explicit Ring(std::size_t capacity, std::thread::id owner)
      : slots(std::bit_ceil(std::max<std::size_t>(capacity, 2))), mask(slots.size() - 1), thread(owner) {}

  std::vector<Event> slots;
  const std::size_t mask;
  const std::thread::id thread;
  alignas(64) std::atomic<std::uint64_t> tail{0};
  std::atomic<std::uint64_t> dropped{0};
  alignas(64) std::atomic<std::uint64_t> head{0};
};

namespace {
std::atomic<std::uint64_t> next_instance{1};

// A few collectors may observe at once (a live view and a recorder); each thread remembers its
// ring in each of them.
struct RingCache {
  struct Entry {
    std::uint64_t instance = 0;
    EventCollector::Ring* ring = nullptr;
  };
  std::array<Entry, 4> entries{};
  std::size_t next = 0;
};
thread_local RingCache ring_cache;
}  // namespace

EventCollector::EventCollector(Options options)
    : options_(options), instance_(next_instance.fetch_add(1, std::memory_order_relaxed)) {}

EventCollector::~EventCollector() { detach_all(); }

EventCollector::Ring& EventCollector::ring_for_this_thread() noexcept {
  for (auto& e : ring_cache.entries)
    if (e.instance == instance_) return *e.ring;
  Ring* ring = nullptr;
  {
    const std::thread::id me = std::this_thread::get_id();
    std::lock_guard lk(rings_m_);
    for (auto& r : rings_)
      if (r->thread == me) ring = r.get();
    if (ring == nullptr) {
      rings_.push_back(std::make_unique<Ring>(options_.per_thread_capacity, me));
      ring = rings_.back().get();
    }
  }
  auto& slot = ring_cache.entries[ring_cache.next++ % ring_cache.entries.size()];
  slot = {instance_, ring};
  return *ring;
}

void EventCollector::on_event(const Event& event) noexcept {
  Ring* ring = nullptr;
  try {
    ring = &ring_for_this_thread();
  } catch (...) {  // no memory for a ring: the event is lost, and counted
    dropped_without_ring_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const std::uint64_t tail = ring->tail.load(std::memory_order_relaxed);
  if (tail - ring->head.load(std::memory_order_acquire) >= ring->slots.size()) {
    ring->dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  try {
    ring->slots[tail & ring->mask] = event;
  } catch (...) {
    ring->dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ring->tail.store(tail + 1, std::memory_order_release);
}

std::uint64_t EventCollector::dropped() const noexcept {
  std::uint64_t total = dropped_without_ring_.load(std::memory_order_relaxed);
  std::lock_guard lk(rings_m_);
  for (const auto& r : rings_) total += r->dropped.load(std::memory_order_relaxed);
  return total;
}

std::size_t EventCollector::drain(std::vector<Event>& out, bool flush) {
  ++pass_;
  std::vector<Ring*> rings;
  {
    std::lock_guard lk(rings_m_);
    rings.reserve(rings_.size());
    for (auto& r : rings_) rings.push_back(r.get());
  }
  for (Ring* r : rings) {
    const std::uint64_t head = r->head.load(std::memory_order_relaxed);
    const std::uint64_t tail = r->tail.load(std::memory_order_acquire);
    for (std::uint64_t i = head; i != tail; ++i) pending_.push_back({std::move(r->slots[i & r->mask]), pass_});
    r->head.store(tail, std::memory_order_release);
  }
  std::sort(pending_.begin(), pending_.end(),
            [](const Pending& a, const Pending& b) { return a.event.seq < b.event.seq; });

  // An event may go once nothing that happened before it can still be missing. Whatever happened
  // before an event was in its ring before that event was; so by the pass after the one that
  // found an event, everything before it has been found too. An event that directly follows the
  // last one released needs no wait at all.
  std::size_t n = 0;
  std::size_t i = 0;
  for (; i < pending_.size(); ++i) {
    Pending& p = pending_[i];
    if (!flush && p.pass == pass_ && p.event.seq != last_engine_seq_ + 1) break;
    last_engine_seq_ = std::max(last_engine_seq_, p.event.seq);
    out.push_back(std::move(p.event));
    out.back().seq = ++released_;
    ++n;
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i));
  return n;
}

}  // namespace actorscope::observe
