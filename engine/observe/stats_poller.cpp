// StatsPoller: live counters plus the final counters of actors that exited since the last poll.
#include <actorscope/observe/stats_poller.hpp>
#include <actorscope/detail/factory_probe.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/system.hpp>

namespace actorscope::observe {

StatsPoller::StatsPoller(System& system) : sys_(system.core()) {
  sys_.add_poller(*this);
  try {
    sys_.factories().add_poller(*this);
  } catch (...) {
    sys_.remove_poller(*this);
    throw;
  }
}
StatsPoller::~StatsPoller() {
  sys_.factories().remove_poller(*this);
  sys_.remove_poller(*this);
}

void StatsPoller::keep_final(const ActorStats& stats) {
  std::lock_guard lk(m_);
  finals_.push_back(stats);
}

void StatsPoller::keep_final(const FactoryStats& stats) {
  std::lock_guard lk(m_);
  factory_finals_.push_back(stats);
}

std::vector<FactoryStats> StatsPoller::poll_factories() {
  std::vector<FactoryStats> out = sys_.factories().stats();
  std::lock_guard lk(m_);
  out.insert(out.end(), factory_finals_.begin(), factory_finals_.end());
  factory_finals_.clear();
  return out;
}

std::vector<ActorStats> StatsPoller::poll() {
  std::vector<ActorStats> out = sys_.stats();
  std::lock_guard lk(m_);
  out.insert(out.end(), finals_.begin(), finals_.end());
  finals_.clear();
  return out;
}

// StatsBucketer: what changed between two polls.

std::vector<StatsSample> StatsBucketer::update(const std::vector<ActorStats>& polled, TimePoint now) {
  std::vector<StatsSample> out;
  std::unordered_map<ActorId, Last> next;
  next.reserve(polled.size());
  // An actor can appear twice in one poll (alive when the live list was read, then final): each
  // entry is compared with the one before it.
  for (const ActorStats& s : polled) {
    Last last{};
    if (auto it = next.find(s.id); it != next.end()) {
      last = it->second;
    } else if (auto old = last_.find(s.id); old != last_.end()) {
      last = old->second;
    }
    const ActorStats& before = last.stats;
    StatsSample d;
    d.counters() = s.since(before);
    d.end = now;
    d.actor = s.id;
    // The same hook still running since an earlier poll: it has held the thread since then.
    const bool same_hook = s.in_hook && before.in_hook && s.hook_runs == before.hook_runs;
    const TimePoint busy_since = s.in_hook ? (same_hook ? last.busy_since : now) : TimePoint{};
    if (s.in_hook) d.busy = now - busy_since;
    const bool moved = d.counters() != ActorCounters{} || d.busy != Duration::zero();
    // A sample with busy zero once the hook returned, so that the fold's gauge falls back.
    if (moved || last.reported_busy) out.push_back(d);
    next[s.id] = Last{s, busy_since, d.busy != Duration::zero()};
  }
  last_ = std::move(next);
  return out;
}

void StatsBucketer::baseline(const std::vector<ActorStats>& polled) {
  last_.clear();
  last_.reserve(polled.size());
  for (const ActorStats& s : polled) {  // a later entry of an actor is the newer one
    Last l{s};
    l.stats.in_hook = false;  // since when a hook running now has run, this poll cannot say
    last_[s.id] = l;
  }
}

// FactoryBucketer: what changed in each factory between two polls.

std::vector<FactorySample> FactoryBucketer::update(const std::vector<FactoryStats>& polled, TimePoint now) {
  std::vector<FactorySample> out;
  out.reserve(polled.size());
  std::unordered_map<ActorId, FactoryStats> next;
  next.reserve(polled.size());
  for (const FactoryStats& s : polled) {
    const FactoryStats* before = nullptr;
    if (auto it = next.find(s.factory); it != next.end()) {
      before = &it->second;
    } else if (auto old = last_.find(s.factory); old != last_.end()) {
      before = &old->second;
    }
    FactorySample d;
    d.counters() = s.since(before != nullptr ? before->counters() : FactoryCounters{});
    d.end = now;
    d.factory = s.factory;
    out.push_back(std::move(d));
    next[s.factory] = s;
  }
  last_ = std::move(next);
  return out;
}

void FactoryBucketer::baseline(const std::vector<FactoryStats>& polled) {
  last_.clear();
  for (const FactoryStats& s : polled) last_[s.factory] = s;
}

}  // namespace actorscope::observe
