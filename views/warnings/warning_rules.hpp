// Warning rules in the style of tokio-console's lints: pure functions over a SystemState, so the
// live views and a replayed recording flag the same things. Each warning names the actor (or
// timer) it is about and says why, with the numbers behind it.
#pragma once

#include <actorscope/observe/system_state.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace actorscope::views {

enum class WarningKind : std::uint8_t {
  growing_mailbox,
  restart_storm,
  blocked_event_loop,
  late_timer,
  dropped_events,
  /// A Supervisor with restarts within its period at least its max_restarts - 1 (and at least one):
  /// one or two more and it gives up.
  supervisor_near_limit,
  /// A Supervisor exceeded its restart intensity and failed (supervisor_gave_up), with its reason.
  supervisor_gave_up,
  /// A bounded mailbox that is full now: the next message is dropped, refused, or made to wait,
  /// as its overflow policy says.
  mailbox_full,
  /// A bounded mailbox that dropped messages or rejected sends within the window.
  mailbox_dropping,
  /// A factory whose queue of jobs grew over its recent samples (about its factory actor).
  factory_queue_growing,
  /// A factory that discarded jobs (load shed, rate limited, TTL expired) within the window.
  factory_shedding,
  /// A factory's dead-man's switch found a worker stuck on a job (worker_stuck) within the window.
  factory_worker_stuck,
};
enum class Severity : std::uint8_t { warning, error };

struct WarningThresholds {
  /// Growing mailbox: at least `growingMailboxMinDepth` messages queued, and over this much recent
  /// history (100 ms samples covering most of it) the depth grew or held steady: it never dropped by
  /// a tenth from one sample to the next, and the later half of the window is not lower than the
  /// earlier by more than the samples' jitter. The summary gives the depth and the growth rate in
  /// messages/s.
  Duration growingMailboxWindow = std::chrono::milliseconds(1500);
  std::uint64_t growingMailboxMinDepth = 100;
  /// Restart storm: within the window, this many child failures and this many replacements
  /// (children spawned under the supervisor after one of its children had failed), counted exactly
  /// in 100 ms buckets (ActorRecord::child_tally).
  std::size_t restartStormFailures = 5;
  std::size_t restartStormReplacements = 3;
  Duration restartStormWindow = std::chrono::seconds(10);
  /// Blocked thread: a hook has held its thread this long and still does, or a timed handler ran at
  /// least this long (on qt it holds its event-loop thread's other actors; on asio a pool thread).
  Duration blockedLoop = std::chrono::milliseconds(50);
  /// Late timer: p99 lateness at least this, after at least `lateTimerMinFires` firings.
  Duration lateTimer = std::chrono::milliseconds(10);
  std::uint64_t lateTimerMinFires = 3;
  /// Dropping messages: a bounded mailbox dropped or rejected at least one message within this
  /// much recent history (counted exactly, per 100 ms bucket).
  Duration mailboxLossWindow = std::chrono::seconds(5);
  /// Factory queue growing: over this much recent history (a sample per 100 ms bucket covering
  /// most of it), the queue never fell from one bucket to the next, and it rose by at least
  /// `factoryQueueMinGrowth` jobs, to at least `factoryQueueMinDepth`.
  Duration factoryQueueWindow = std::chrono::milliseconds(1500);
  std::uint64_t factoryQueueMinDepth = 10;
  std::uint64_t factoryQueueMinGrowth = 5;
  /// Factory shedding: jobs discarded by load_shed, rate_limited or ttl_expired within this much
  /// recent history (counted exactly, per bucket). Discards at shutdown are what a stop does.
  Duration factoryShedWindow = std::chrono::seconds(5);
  /// Dead-man's switch fired: a worker_stuck event within this much before the state's time.
  Duration factoryStuckWindow = std::chrono::seconds(30);
};

struct Warning {
  WarningKind kind = WarningKind::growing_mailbox;
  Severity severity = Severity::warning;
  ActorId actor{};          ///< the actor it is about (invalid for system-wide warnings)
  std::uint64_t timer = 0;  ///< late_timer: the timer's id
  std::string summary;      ///< one line with the numbers: "4,512 messages queued, growing by 950 ..."

  auto key() const noexcept { return std::tuple(kind, actor, timer); }
  friend bool operator==(const Warning&, const Warning&) = default;
};

/// Every warning that holds for `state` now, ordered by key (kind, actor, timer).
std::vector<Warning> lint(const observe::SystemState& state, const WarningThresholds& thresholds = {});

/// "growing mailbox", "restart storm", ...
std::string_view warningTitle(WarningKind kind);
/// What the rule means and what to look at: the tooltip and the inspector text.
std::string_view warningExplanation(WarningKind kind);

}  // namespace actorscope::views
