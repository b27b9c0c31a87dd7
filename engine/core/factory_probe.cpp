// A factory's counters, and the System's list of them.
#include <actorscope/detail/factory_probe.hpp>
#include <actorscope/observe/stats_poller.hpp>

#include <algorithm>

namespace actorscope {

std::string_view to_string(DiscardReason reason) noexcept {
  switch (reason) {
    case DiscardReason::ttl_expired:
      return "ttl_expired";
    case DiscardReason::load_shed:
      return "load_shed";
    case DiscardReason::shutdown:
      return "shutdown";
    case DiscardReason::rate_limited:
      return "rate_limited";
  }
  return "unknown";
}

std::optional<DiscardReason> discard_reason_from_string(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kDiscardReasonCount; ++i) {
    const auto reason = static_cast<DiscardReason>(i);
    if (to_string(reason) == name) return reason;
  }
  return std::nullopt;
}

namespace detail {

void FactoryProbe::completed(Duration latency) noexcept {
  bump(completed_);
  const auto ns = static_cast<std::uint64_t>(std::max<std::int64_t>(0, latency.count()));
  set(latency_sum_ns_, latency_sum_ns_.load(std::memory_order_relaxed) + ns);
  const std::size_t i = std::min(observe::LogHistogram::index_of(ns), kLatencyBuckets - 1);
  bump(latency_[i]);
  if (i + 1 > latency_top_.load(std::memory_order_relaxed)) set(latency_top_, i + 1);
}

void FactoryProbe::gauges(std::uint64_t queue_depth, std::uint64_t busy, std::uint64_t workers,
                          std::uint64_t limit) noexcept {
  set(queue_depth_, queue_depth);
  if (queue_depth > queue_max_.load(std::memory_order_relaxed)) set(queue_max_, queue_depth);
  set(busy_, busy);
  set(workers_, workers);
  set(queue_limit_, limit);
}

FactoryStats FactoryProbe::snapshot() const {
  const auto get = [](const Counter& c) { return c.load(std::memory_order_relaxed); };
  FactoryStats s;
  s.factory = factory_;
  s.dispatched = get(dispatched_);
  s.completed = get(completed_);
  s.discarded_ttl = get(discarded_[static_cast<std::size_t>(DiscardReason::ttl_expired)]);
  s.discarded_load_shed = get(discarded_[static_cast<std::size_t>(DiscardReason::load_shed)]);
  s.discarded_shutdown = get(discarded_[static_cast<std::size_t>(DiscardReason::shutdown)]);
  s.discarded_rate_limited = get(discarded_[static_cast<std::size_t>(DiscardReason::rate_limited)]);
  s.worker_restarts = get(restarts_);
  s.stuck = get(stuck_);
  s.retried = get(retried_);
  s.latency_sum = Duration(static_cast<Duration::rep>(get(latency_sum_ns_)));
  s.queue_depth = get(queue_depth_);
  s.queue_max = get(queue_max_);
  s.busy_workers = get(busy_);
  s.workers = get(workers_);
  s.queue_limit = get(queue_limit_);
  const std::size_t top = std::min<std::size_t>(get(latency_top_), kLatencyBuckets);
  s.latency_buckets.resize(top);
  for (std::size_t i = 0; i < top; ++i) s.latency_buckets[i] = get(latency_[i]);
  while (!s.latency_buckets.empty() && s.latency_buckets.back() == 0) s.latency_buckets.pop_back();
  return s;
}

void FactoryProbes::add(std::shared_ptr<FactoryProbe> probe, observe::Event config) {
  std::lock_guard lk(m_);
  live_.push_back(Entry{std::move(probe), std::move(config)});
}

void FactoryProbes::reconfigured(ActorId factory, observe::Event config) {
  std::lock_guard lk(m_);
  for (Entry& e : live_)
    if (e.probe->factory() == factory) e.config = std::move(config);
}

void FactoryProbes::remove(const FactoryProbe& probe) noexcept {
  std::lock_guard lk(m_);
  const auto it = std::find_if(live_.begin(), live_.end(), [&](const Entry& e) { return e.probe.get() == &probe; });
  if (it == live_.end()) return;
  try {
    const FactoryStats final_stats = probe.snapshot();
    for (observe::StatsPoller* p : pollers_) p->keep_final(final_stats);
  } catch (...) {  // no memory: this factory's last counts are lost to the pollers
  }
  live_.erase(it);
}

std::vector<FactoryStats> FactoryProbes::stats() const {
  std::lock_guard lk(m_);
  std::vector<FactoryStats> out;
  out.reserve(live_.size());
  for (const Entry& e : live_) out.push_back(e.probe->snapshot());
  return out;
}

std::vector<observe::Event> FactoryProbes::configurations() const {
  std::lock_guard lk(m_);
  std::vector<observe::Event> out;
  out.reserve(live_.size());
  for (const Entry& e : live_) out.push_back(e.config);
  return out;
}

void FactoryProbes::add_poller(observe::StatsPoller& poller) {
  std::lock_guard lk(m_);
  pollers_.push_back(&poller);
}

void FactoryProbes::remove_poller(observe::StatsPoller& poller) noexcept {
  std::lock_guard lk(m_);
  std::erase(pollers_, &poller);
}

}  // namespace detail
}  // namespace actorscope
