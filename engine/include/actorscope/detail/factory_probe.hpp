// FactoryProbe: a factory's counters (FactoryStats), written by the factory actor alone with
// relaxed stores and read by pollers on any thread; FactoryProbes: the System's list of live
// probes, which hands a probe's final counters to every poller when its factory ends (as actors'
// final counters are kept), and keeps each factory's factory_configured event for observers that
// attach later.
#pragma once

#include <actorscope/factory_stats.hpp>
#include <actorscope/observe/event.hpp>
#include <actorscope/observe/histogram.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace actorscope::observe {
class StatsPoller;
}

namespace actorscope::detail {

class FactoryProbe {
 public:
  explicit FactoryProbe(ActorId factory) noexcept : factory_(factory) {}
  FactoryProbe(const FactoryProbe&) = delete;
  FactoryProbe& operator=(const FactoryProbe&) = delete;

  ActorId factory() const noexcept { return factory_; }

  // -- the factory's thread only --
  void dispatched() noexcept { bump(dispatched_); }
  void completed(Duration latency) noexcept;
  void discarded(DiscardReason reason) noexcept { bump(discarded_[static_cast<std::size_t>(reason)]); }
  void worker_restarted() noexcept { bump(restarts_); }
  void stuck() noexcept { bump(stuck_); }
  /// A job lost with its worker runs again (JobOptions::retry).
  void retried() noexcept { bump(retried_); }
  /// The gauges now: jobs waiting, workers busy, the pool's size, the queue's discard limit.
  void gauges(std::uint64_t queue_depth, std::uint64_t busy, std::uint64_t workers, std::uint64_t limit) noexcept;

  // -- any thread --
  FactoryStats snapshot() const;

 private:
  using Counter = std::atomic<std::uint64_t>;
  static void bump(Counter& c) noexcept {
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  static void set(Counter& c, std::uint64_t v) noexcept { c.store(v, std::memory_order_relaxed); }

  /// Every observe::LogHistogram bucket a 64-bit value can fall in (index_of(UINT64_MAX) + 1).
  static constexpr std::size_t kLatencyBuckets =
      (64 - observe::LogHistogram::kSubBits + 1) * observe::LogHistogram::kSubBuckets;

  ActorId factory_;
  Counter dispatched_{0}, completed_{0}, restarts_{0}, stuck_{0}, retried_{0}, latency_sum_ns_{0};
  std::array<Counter, kDiscardReasonCount> discarded_{};
  Counter queue_depth_{0}, queue_max_{0}, busy_{0}, workers_{0}, queue_limit_{0};
  Counter latency_top_{0};  ///< one past the highest latency bucket used
  std::array<Counter, kLatencyBuckets> latency_{};
};

class FactoryProbes {
 public:
  /// A factory began: its probe is polled from now on, and its configuration (a factory_configured
  /// event) is told to observers that attach later.
  void add(std::shared_ptr<FactoryProbe> probe, observe::Event config);
  /// The factory's configuration changed (a resize, new settings).
  void reconfigured(ActorId factory, observe::Event config);
  /// The factory ended: every poller keeps its final counters, once.
  void remove(const FactoryProbe& probe) noexcept;

  /// Every live factory's counters.
  std::vector<FactoryStats> stats() const;
  /// Every live factory's latest factory_configured event.
  std::vector<observe::Event> configurations() const;

  void add_poller(observe::StatsPoller& poller);
  void remove_poller(observe::StatsPoller& poller) noexcept;

 private:
  struct Entry {
    std::shared_ptr<FactoryProbe> probe;
    observe::Event config;
  };
  mutable std::mutex m_;
  std::vector<Entry> live_;
  std::vector<observe::StatsPoller*> pollers_;
};

}  // namespace actorscope::detail
