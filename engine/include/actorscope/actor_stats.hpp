// ActorCounters: the counters an actor's messages move, declared once. ActorStats: the exact
// per-actor counters the engine keeps whether or not anyone observes. The owner thread writes most
// of them with plain relaxed stores; reading them is a snapshot.
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/actor_status.hpp>
#include <actorscope/overflow.hpp>
#include <actorscope/runtime.hpp>

#include <algorithm>
#include <cstdint>

namespace actorscope {

/// The one counter set. Three types hold it, as a base so that `x.handled` reads the same in each:
/// ActorStats, cumulative since the actor began, as the engine counts them; observe::StatsSample,
/// one bucket of them (what changed between two polls, since()); and observe::ActorRecord, the
/// fold's totals (the sum of the buckets, add()). The two mailbox counters are gauges, not sums.
/// Counters come last when they are new (dropped and rejected came with bounded mailboxes), so that
/// for_each's order, and the recordings' columns it binds, only ever grow at the end.
struct ActorCounters {
  /// Messages handled, and sent by this actor's hooks.
  std::uint64_t handled = 0;
  std::uint64_t sent = 0;
  /// Messages waiting now, and the most that were ever waiting when the actor looked. In a bucket:
  /// the depth at its end, and the highest depth known for the bucket (exact when the actor set a
  /// new high-water mark in it; otherwise the larger of the depths at its two ends).
  std::uint64_t mailbox_depth = 0;
  std::uint64_t mailbox_max = 0;
  /// Messages whose times are in queue_time and handling_time. Every message handled while an
  /// attached observer asks for timing of every message (observe::Interest::timing); only the
  /// sampled ones when it asks for them alone (Interest::time_sampled_only: a recorder at
  /// `sampled` detail); none without timing.
  std::uint64_t timed = 0;
  /// Total time the `timed` messages spent queued and being handled; zero without timing. The
  /// mean per message is the sum over `timed`, not over `handled`.
  Duration queue_time{};
  Duration handling_time{};
  /// Messages a bounded mailbox dropped (Overflow::drop_newest, drop_oldest), and sends it refused
  /// because it was full (Overflow::reject, try_cast, a backpressured send that would block or timed
  /// out). Always zero for an unbounded mailbox. Every message sent is handled, dropped, rejected,
  /// or still waiting, or it was discarded when the actor stopped.
  std::uint64_t dropped = 0;
  std::uint64_t rejected = 0;

  /// The counter set alone, of a type that holds it.
  ActorCounters& counters() noexcept { return *this; }
  const ActorCounters& counters() const noexcept { return *this; }

  /// The bucket from `before` to this, two cumulative snapshots of one actor (`before` all zero
  /// for its first): what each sum grew by (zero if it went down), the depth now, and the highest
  /// depth known in between.
  constexpr ActorCounters since(const ActorCounters& before) const noexcept {
    const auto grew = [](auto now, auto then) { return now - std::min(then, now); };
    ActorCounters d;
    d.handled = grew(handled, before.handled);
    d.sent = grew(sent, before.sent);
    d.mailbox_depth = mailbox_depth;
    d.mailbox_max =
        mailbox_max > before.mailbox_max ? mailbox_max : std::max(mailbox_depth, before.mailbox_depth);
    d.timed = grew(timed, before.timed);
    d.queue_time = grew(queue_time, before.queue_time);
    d.handling_time = grew(handling_time, before.handling_time);
    d.dropped = grew(dropped, before.dropped);
    d.rejected = grew(rejected, before.rejected);
    return d;
  }

  /// Adds a bucket (since()) to these totals: the sums grow by it and mailbox_max rises to its.
  /// mailbox_depth, a gauge, is the caller's to set (the fold keeps a stopped actor's at zero).
  constexpr void add(const ActorCounters& bucket) noexcept {
    handled += bucket.handled;
    sent += bucket.sent;
    mailbox_max = std::max(mailbox_max, bucket.mailbox_max);
    timed += bucket.timed;
    queue_time += bucket.queue_time;
    handling_time += bucket.handling_time;
    dropped += bucket.dropped;
    rejected += bucket.rejected;
  }

  /// Calls `f(field)` for each counter of `c` (an ActorCounters, const or not, or a type that holds
  /// one), in the order they are declared above: the one list for code that stores every counter.
  /// Recordings bind and read their actor_stats columns in this order (storage/stats_rows.cpp).
  template <class C, class F>
  static constexpr void for_each(C& c, F&& f) {
    f(c.handled);
    f(c.sent);
    f(c.mailbox_depth);
    f(c.mailbox_max);
    f(c.timed);
    f(c.queue_time);
    f(c.handling_time);
    f(c.dropped);
    f(c.rejected);
  }

  friend bool operator==(const ActorCounters&, const ActorCounters&) = default;
};

struct ActorStats : ActorCounters {
  ActorId id{};
  ActorStatus status = ActorStatus::unstarted;
  /// Messages accepted into the mailbox (message lane); handled, sent and the rest are in
  /// ActorCounters.
  std::uint64_t received = 0;
  /// Supervision events handled (from children, monitors, group monitors).
  std::uint64_t supervision_handled = 0;
  /// Children of this actor that failed.
  std::uint64_t child_failures = 0;
  /// A bounded mailbox's limit (0: unbounded) and what it does when full: settings, not counters
  /// (its dropped and rejected counts are in ActorCounters).
  std::uint32_t mailbox_capacity = 0;
  Overflow overflow = Overflow::reject;
  /// Hook runs begun on the actor's thread (post_start, each message and supervision event, each
  /// resumption of a suspended coroutine hook, post_stop), and whether one is running at this
  /// moment (a suspended coroutine is not running: its thread is free). Two snapshots that both say
  /// in_hook with the same hook_runs saw one hook hold its thread all the time in between.
  std::uint64_t hook_runs = 0;
  bool in_hook = false;

  friend bool operator==(const ActorStats&, const ActorStats&) = default;
};

}  // namespace actorscope
