// StatsPoller: live counters plus the final counters of actors that exited since the last poll.
#include <actorscope/observe/stats_poller.hpp>
#include <actorscope/system.hpp>

namespace actorscope::observe {

StatsPoller::StatsPoller(System& system) : sys_(system.core()) { sys_.add_poller(*this); }
StatsPoller::~StatsPoller() { sys_.remove_poller(*this); }

void StatsPoller::keep_final(const ActorStats& stats) {
  std::lock_guard lk(m_);
  finals_.push_back(stats);
}

std::vector<ActorStats> StatsPoller::poll() {
  std::vector<ActorStats> out = sys_.stats();
  std::lock_guard lk(m_);
  out.insert(out.end(), finals_.begin(), finals_.end());
  finals_.clear();
  return out;
}

}  // namespace actorscope::observe
