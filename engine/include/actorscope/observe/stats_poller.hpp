// StatsPoller: reads every actor's exact counters, including those of actors that exited since the
// last poll (their final values, once), so periodic buckets add up to exact totals even for
// actors that lived between two polls. The recorder and the live views poll every 100 ms or so.
#pragma once

#include <actorscope/actor_stats.hpp>

#include <mutex>
#include <vector>

namespace actorscope {
class System;
namespace detail {
class SystemCore;
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

 private:
  friend class actorscope::detail::SystemCore;
  void keep_final(const ActorStats& stats);

  detail::SystemCore& sys_;
  std::mutex m_;
  std::vector<ActorStats> finals_;
};

}  // namespace actorscope::observe
