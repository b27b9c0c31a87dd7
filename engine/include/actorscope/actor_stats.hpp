// ActorStats: the exact per-actor counters the engine keeps whether or not anyone observes. The
// owner thread writes most of them with plain relaxed stores; reading them is a snapshot.
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/actor_status.hpp>
#include <actorscope/runtime.hpp>

#include <cstdint>

namespace actorscope {

struct ActorStats {
  ActorId id{};
  ActorStatus status = ActorStatus::unstarted;
  /// Messages accepted into the mailbox (message lane), handled, and sent by this actor's hooks.
  std::uint64_t received = 0;
  std::uint64_t handled = 0;
  std::uint64_t sent = 0;
  /// Supervision events handled (from children, monitors, group monitors).
  std::uint64_t supervision_handled = 0;
  /// Children of this actor that failed.
  std::uint64_t child_failures = 0;
  /// Messages waiting now, and the most that were ever waiting when the actor looked.
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
  /// Hook runs begun on the actor's thread (post_start, each message and supervision event, each
  /// resumption of a suspended coroutine hook, post_stop), and whether one is running at this
  /// moment (a suspended coroutine is not running: its thread is free). Two snapshots that both say
  /// in_hook with the same hook_runs saw one hook hold its thread all the time in between.
  std::uint64_t hook_runs = 0;
  bool in_hook = false;

  friend bool operator==(const ActorStats&, const ActorStats&) = default;
};

}  // namespace actorscope
