// ActorDetails: everything the inspector shows about one actor, gathered from a SystemState as
// plain data (so it is tested without widgets): identity, family, groups, names, timers,
// counters, sparkline series, latency histograms and recent failures.
#pragma once

#include "common/health.hpp"
#include "factories/factory_row.hpp"

#include <actorscope/observe/system_state.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace actorscope::views {

struct ActorDetails {
  struct Link {
    ActorId id{};
    std::string name;
    Health health = Health::running;
  };
  struct TimerLine {
    std::uint64_t id = 0;
    std::string kind;
    Duration period{};
    std::uint64_t fired = 0;
    bool owned = false;  ///< started by this actor (otherwise: targets it)
  };
  struct Failure {
    TimePoint time{};
    Link who;
    std::string error;
  };
  /// One child spec of a Supervisor, with the actor running it now.
  struct ChildSpec {
    std::string id;
    std::string restart;   ///< permanent, transient, temporary
    std::string shutdown;  ///< brutal_kill, infinity, or a timeout in ms
    bool supervisor = false;
    std::optional<Link> actor;   ///< nullopt while not known
    std::uint32_t restarts = 0;  ///< of its current actor
  };
  /// What a Supervisor said about itself (supervisor_configured) and how close it is to its limit.
  struct Supervision {
    std::string strategy;
    std::string intensity;  ///< "2 of 3 in 5 s", at the state's time
    std::uint32_t recentRestarts = 0;
    std::uint32_t maxRestarts = 0;
    Duration period{};
    std::optional<observe::SupervisorRecord::Backoff> backoff;
    std::uint64_t totalRestarts = 0;
    std::vector<ChildSpec> children;  ///< in spec order
    std::optional<TimePoint> gaveUp;
    std::string gaveUpReason;
  };

  ActorId id{};
  std::string name;  ///< display name
  std::string registered;  ///< registered name ("" if none)
  std::string type;
  Health health = Health::starting;
  std::string exitReason;
  std::uint32_t thread = 0;
  TimePoint spawned{};
  TimePoint stopped{};
  TimePoint origin{};  ///< the session's first event, for relative times

  std::optional<Link> parent;
  std::vector<Link> children;  ///< live ones in link order, then exited ones, latest first
  std::size_t aliveChildren = 0;
  std::vector<std::pair<std::string, std::string>> groups;  ///< (scope, group)
  std::vector<TimerLine> timers;
  /// A Supervisor's child: its spec id ("" for none) and how often it has been restarted.
  std::string childId;
  std::uint32_t restarts = 0;
  /// Set for a Supervisor that described itself.
  std::optional<Supervision> supervision;
  /// Set for a factory actor (one that reported its configuration): its row of the Factories view.
  std::optional<FactoryRow> factory;
  /// Set for a factory's worker: the factory it works for.
  std::optional<Link> workerOf;

  std::uint64_t handled = 0;
  std::uint64_t sent = 0;
  std::uint64_t mailbox = 0;
  std::uint64_t mailboxMax = 0;
  /// Its mailbox's capacity (0: unbounded) and what it does when full; what it dropped and the
  /// sends it rejected because it was full (exact, zero for an unbounded mailbox).
  std::uint32_t capacity = 0;
  Overflow overflow = Overflow::reject;
  std::uint64_t dropped = 0;
  std::uint64_t rejected = 0;
  double rate = 0;
  /// The messages whose times the totals hold: fewer than `handled` when only sampled messages
  /// were timed (a recording at `sampled` detail).
  std::uint64_t timed = 0;
  Duration queueTotal{};     ///< summed over the `timed` messages: not a span of time
  Duration handlingTotal{};  ///< summed over the `timed` messages: how long its handlers ran in all
  /// Per message, over the timed ones (exact: the sums over their count); zero with none timed.
  Duration queueMean{};
  Duration handlingMean{};
  observe::LogHistogram queue;
  observe::LogHistogram handling;
  /// One value per history bucket (100 ms), oldest first, `historySlots` long, ending now.
  std::vector<double> mailboxHistory;
  std::vector<double> rateHistory;  ///< messages per second, trailing 0.5 s average at each bucket
  int historySlots = 0;

  std::vector<Failure> failures;  ///< newest first
};

/// The details of `id`, or nullopt if the state does not know it (never seen, or pruned).
std::optional<ActorDetails> inspect(const observe::SystemState& state, ActorId id);

}  // namespace actorscope::views
