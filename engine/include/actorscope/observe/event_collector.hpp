// EventCollector: the observer that takes events off the engine's threads. Each emitting thread
// writes into its own bounded buffer (no lock, no waiting on the consumer); one consumer drains
// them all, in an order that respects causality, and learns exactly how many were dropped.
#pragma once

#include <actorscope/observe/observer.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace actorscope::observe {

class EventCollector final : public Observer {
 public:
  struct Options {
    Interest interest{};
    /// Events each emitting thread may have waiting before further ones are dropped (and counted).
    std::size_t per_thread_capacity = 8192;
  };

  explicit EventCollector(Options options);
  EventCollector() : EventCollector(Options{}) {}
  ~EventCollector() override;
  EventCollector(const EventCollector&) = delete;
  EventCollector& operator=(const EventCollector&) = delete;

  Interest interest() const noexcept override { return options_.interest; }
  /// @thread any (the emitting thread). Never blocks; drops and counts when its buffer is full.
  void on_event(const Event& event) noexcept override;

  /// @thread one consumer at a time. Appends the events that are ready to `out` and returns how many.
  /// Order: an event is released once every event that happened before it (on any thread) has
  /// been released, which takes at most one more drain; released events are renumbered 1, 2, ...
  /// (Event::seq) in the order they are released. `flush` releases everything collected so far:
  /// use it once the engine is quiet (after the System is shut down).
  std::size_t drain(std::vector<Event>& out, bool flush = false);

  /// Events lost because an emitting thread's buffer was full. @thread any
  std::uint64_t dropped() const noexcept;
  /// Events released by drain so far. @thread consumer
  std::uint64_t released() const noexcept { return released_; }

  struct Ring;

 private:
  Ring& ring_for_this_thread() noexcept;

  const Options options_;
  const std::uint64_t instance_;  // tells this collector apart from one later built at the same address
  mutable std::mutex rings_m_;
  std::vector<std::unique_ptr<Ring>> rings_;
  std::atomic<std::uint64_t> dropped_without_ring_{0};

  // -- consumer side --
  struct Pending {
    Event event;
    std::uint64_t pass;
  };
  std::vector<Pending> pending_;
  std::uint64_t pass_ = 0;
  std::uint64_t last_engine_seq_ = 0;
  std::uint64_t released_ = 0;
};

}  // namespace actorscope::observe
