// StatsPoller: reads every actor's exact counters, including those of actors that exited since the
// last poll (their final values, once), so periodic buckets add up to exact totals even for
// actors that lived between two polls. The recorder and the live views poll every 100 ms or so;
// a StatsBucketer turns the polls into StatsSamples of what changed.
#pragma once

#include <actorscope/actor_stats.hpp>
#include <actorscope/factory_stats.hpp>
#include <actorscope/observe/system_state.hpp>

#include <mutex>
#include <unordered_map>
#include <vector>

namespace actorscope {
class System;
namespace detail {
class SystemCore;
class FactoryProbes;
}
}  // namespace actorscope

namespace actorscope::observe {

class StatsPoller {
 public:
  /// Starts keeping the final counters of actors that exit. Must not outlive `system`.
  explicit StatsPoller(System& system);
  ~StatsPoller();
  StatsPoller(const StatsPoller&) = delete;
  StatsPoller& operator=(const StatsPoller&) = delete;

  /// Live actors' counters now, then those of actors that exited since the last poll. @thread any
  std::vector<ActorStats> poll();
  /// Live factories' counters now, then those of factories that ended since the last call (their
  /// final values, once). @thread any
  std::vector<FactoryStats> poll_factories();

 private:
  friend class actorscope::detail::SystemCore;
  friend class actorscope::detail::FactoryProbes;
  void keep_final(const ActorStats& stats);
  void keep_final(const FactoryStats& stats);

  detail::SystemCore& sys_;
  std::mutex m_;
  std::vector<ActorStats> finals_;
  std::vector<FactoryStats> factory_finals_;
};

/// Turns successive cumulative polls (StatsPoller::poll) into StatsSamples of what changed.
class StatsBucketer {
 public:
  /// Samples for the actors whose counters moved since the previous call (or whose depth is not
  /// zero), stamped `now`. Actors absent from `polled` are forgotten.
  std::vector<StatsSample> update(const std::vector<ActorStats>& polled, TimePoint now);
  /// Starts counting from `polled` without reporting it: the next update() reports only what
  /// changed after this poll. A recording of a System that has been running for a while starts
  /// with one, so that its first buckets do not carry what the actors did before it.
  void baseline(const std::vector<ActorStats>& polled);

 private:
  struct Last {
    ActorStats stats;
    TimePoint busy_since{};  ///< the first poll that saw the current hook run (with stats.in_hook)
    bool reported_busy = false;
  };
  std::unordered_map<ActorId, Last> last_;
};

/// Turns successive cumulative factory polls (StatsPoller::poll_factories) into FactorySamples: one
/// per factory polled, every poll (factories are few, and their gauges are what the views chart),
/// with what its sums grew by since the previous poll.
class FactoryBucketer {
 public:
  /// A sample for each entry of `polled` (a factory that appears twice, live then final, is
  /// compared with its first entry the second time), stamped `now`. Factories absent from `polled`
  /// are forgotten.
  std::vector<FactorySample> update(const std::vector<FactoryStats>& polled, TimePoint now);
  /// Starts counting from `polled` without reporting it (as StatsBucketer::baseline).
  void baseline(const std::vector<FactoryStats>& polled);

 private:
  std::unordered_map<ActorId, FactoryStats> last_;
};

}  // namespace actorscope::observe
