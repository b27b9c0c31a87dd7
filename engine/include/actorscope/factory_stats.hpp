// FactoryCounters: what a factory (factory.hpp) has done and how loaded it is, declared once, as
// ActorCounters is for actors. FactoryStats: one factory's cumulative counters, as the engine keeps
// them whether or not anyone observes (observe::StatsPoller::poll_factories reads them).
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/runtime.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace actorscope {

/// Why a factory dropped a job instead of running it. Every discard goes to the factory's discard
/// handler with its reason, and is counted by reason.
enum class DiscardReason : std::uint8_t {
  /// The job waited longer than its JobOptions::ttl (checked before it runs, never while it runs).
  ttl_expired,
  /// The queue was at its DiscardSettings limit (the oldest or the newest job went, as set).
  load_shed,
  /// The factory is draining or stopping: jobs it will not run.
  shutdown,
  /// The factory's RateLimit had no token left for the job.
  rate_limited,
};
inline constexpr std::size_t kDiscardReasonCount = 4;
/// "ttl_expired", "load_shed", "shutdown", "rate_limited".
std::string_view to_string(DiscardReason reason) noexcept;
std::optional<DiscardReason> discard_reason_from_string(std::string_view name) noexcept;

/// The one factory counter set, held as a base by FactoryStats (cumulative since the factory
/// began), observe::FactorySample (one bucket: what changed between two polls, since()) and the
/// fold's observe::FactoryRecord (the sum of the buckets, add()). The gauges say how things stand.
/// New counters go at the end, so that for_each's order (the recordings' columns) only grows.
struct FactoryCounters {
  // -- sums --
  /// Jobs the factory took in (every dispatch it handled, discarded ones included).
  std::uint64_t dispatched = 0;
  /// Jobs a worker finished: its handler returned. (A job whose worker failed or was killed in it
  /// is not counted here; the worker's rebuild is, in worker_restarts.)
  std::uint64_t completed = 0;
  /// Jobs dropped, by reason.
  std::uint64_t discarded_ttl = 0;
  std::uint64_t discarded_load_shed = 0;
  std::uint64_t discarded_shutdown = 0;
  std::uint64_t discarded_rate_limited = 0;
  /// Workers rebuilt after they exited, and jobs the dead-man's switch found stuck.
  std::uint64_t worker_restarts = 0;
  std::uint64_t stuck = 0;
  /// Job latency, from dispatch to the factory hearing that the worker finished: the total over
  /// `completed` jobs.
  Duration latency_sum{};
  // -- gauges --
  /// Jobs waiting for a worker now (the factory's queue and the workers' own), and the most ever
  /// waiting (in a bucket: the highest known in it, as ActorCounters::mailbox_max).
  std::uint64_t queue_depth = 0;
  std::uint64_t queue_max = 0;
  /// Workers running a job now, and the pool's size.
  std::uint64_t busy_workers = 0;
  std::uint64_t workers = 0;
  /// The queue's discard limit now (0: none).
  std::uint64_t queue_limit = 0;
  // -- sums added later (for_each lists them last, so that the recordings' columns only grow) --
  /// Jobs run again because their worker failed or was killed while running them (their
  /// JobOptions::retry allowed it): each retry counts once, whether it then succeeds or not.
  std::uint64_t retried = 0;

  /// Job latencies in nanoseconds, as counts by observe::LogHistogram bucket index (trailing empty
  /// buckets are not stored). Not in for_each: recordings keep it apart from the scalar columns.
  std::vector<std::uint64_t> latency_buckets;

  std::uint64_t discarded(DiscardReason reason) const noexcept {
    switch (reason) {
      case DiscardReason::ttl_expired:
        return discarded_ttl;
      case DiscardReason::load_shed:
        return discarded_load_shed;
      case DiscardReason::shutdown:
        return discarded_shutdown;
      case DiscardReason::rate_limited:
        return discarded_rate_limited;
    }
    return 0;
  }
  std::uint64_t discarded_total() const noexcept {
    return discarded_ttl + discarded_load_shed + discarded_shutdown + discarded_rate_limited;
  }

  FactoryCounters& counters() noexcept { return *this; }
  const FactoryCounters& counters() const noexcept { return *this; }

  /// The bucket from `before` to this, two cumulative snapshots of one factory (`before` empty
  /// for its first): what each sum grew by, the gauges now, and the highest queue known between.
  FactoryCounters since(const FactoryCounters& before) const {
    const auto grew = [](auto now, auto then) { return now - std::min(then, now); };
    FactoryCounters d;
    d.dispatched = grew(dispatched, before.dispatched);
    d.completed = grew(completed, before.completed);
    d.discarded_ttl = grew(discarded_ttl, before.discarded_ttl);
    d.discarded_load_shed = grew(discarded_load_shed, before.discarded_load_shed);
    d.discarded_shutdown = grew(discarded_shutdown, before.discarded_shutdown);
    d.discarded_rate_limited = grew(discarded_rate_limited, before.discarded_rate_limited);
    d.worker_restarts = grew(worker_restarts, before.worker_restarts);
    d.stuck = grew(stuck, before.stuck);
    d.latency_sum = grew(latency_sum, before.latency_sum);
    d.retried = grew(retried, before.retried);
    d.queue_depth = queue_depth;
    d.queue_max = queue_max > before.queue_max ? queue_max : std::max(queue_depth, before.queue_depth);
    d.busy_workers = busy_workers;
    d.workers = workers;
    d.queue_limit = queue_limit;
    d.latency_buckets.resize(latency_buckets.size());
    for (std::size_t i = 0; i < latency_buckets.size(); ++i)
      d.latency_buckets[i] =
          grew(latency_buckets[i], i < before.latency_buckets.size() ? before.latency_buckets[i] : 0);
    while (!d.latency_buckets.empty() && d.latency_buckets.back() == 0) d.latency_buckets.pop_back();
    return d;
  }

  /// Adds a bucket (since()) to these totals; the gauges become the bucket's.
  void add(const FactoryCounters& bucket) {
    dispatched += bucket.dispatched;
    completed += bucket.completed;
    discarded_ttl += bucket.discarded_ttl;
    discarded_load_shed += bucket.discarded_load_shed;
    discarded_shutdown += bucket.discarded_shutdown;
    discarded_rate_limited += bucket.discarded_rate_limited;
    worker_restarts += bucket.worker_restarts;
    stuck += bucket.stuck;
    latency_sum += bucket.latency_sum;
    retried += bucket.retried;
    queue_depth = bucket.queue_depth;
    queue_max = std::max(queue_max, bucket.queue_max);
    busy_workers = bucket.busy_workers;
    workers = bucket.workers;
    queue_limit = bucket.queue_limit;
    if (latency_buckets.size() < bucket.latency_buckets.size()) latency_buckets.resize(bucket.latency_buckets.size());
    for (std::size_t i = 0; i < bucket.latency_buckets.size(); ++i) latency_buckets[i] += bucket.latency_buckets[i];
  }

  /// Calls `f(field)` for each scalar counter and gauge of `c`, in declaration order: the one list
  /// for code that stores them (latency_buckets is stored apart).
  template <class C, class F>
  static constexpr void for_each(C& c, F&& f) {
    f(c.dispatched);
    f(c.completed);
    f(c.discarded_ttl);
    f(c.discarded_load_shed);
    f(c.discarded_shutdown);
    f(c.discarded_rate_limited);
    f(c.worker_restarts);
    f(c.stuck);
    f(c.latency_sum);
    f(c.queue_depth);
    f(c.queue_max);
    f(c.busy_workers);
    f(c.workers);
    f(c.queue_limit);
    f(c.retried);
  }

  friend bool operator==(const FactoryCounters&, const FactoryCounters&) = default;
};

/// One factory's counters since it began.
struct FactoryStats : FactoryCounters {
  ActorId factory{};
  friend bool operator==(const FactoryStats&, const FactoryStats&) = default;
};

}  // namespace actorscope
