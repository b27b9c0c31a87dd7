// Figures every view derives from a SystemState the same way (messages per second, display
// names, failure counts), so that the tree, the table and the inspector never disagree.
#pragma once

#include <actorscope/observe/system_state.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace actorscope::views {

/// How far back "messages per second" looks: one second of 100 ms history buckets.
inline constexpr Duration kRateWindow = std::chrono::seconds(1);

/// Messages the actor handled per second over the `window` that ends at `now` (the state's time).
double messagesPerSecond(const observe::ActorRecord& actor, TimePoint now, Duration historyBucket,
                         Duration window = kRateWindow);
inline double messagesPerSecond(const observe::SystemState& state, const observe::ActorRecord& actor) {
  return messagesPerSecond(actor, state.time(), state.limits().history_bucket);
}

/// "Worker" for "demo::(anonymous namespace)::Worker<int>": the last name, without namespaces
/// or template arguments, which is what people call the type.
std::string shortTypeName(std::string_view typeName);

/// What a view calls an actor: its registered name, or its short type name.
std::string displayName(const observe::ActorRecord& actor);

/// The name to show under `parent` in a tree: "clerk-1" for "desk-a/clerk-1" under "desk-a"
/// (the tree already says whose it is), otherwise displayName().
std::string nameUnder(const observe::ActorRecord& actor, const observe::ActorRecord* parent);

/// Failures this actor saw: its own handler failures plus its children's.
inline std::uint64_t failureCount(const observe::ActorRecord& actor) {
  return actor.child_failures + actor.handler_failures;
}

/// What happened to an actor's children within a window: how many failed, and how many were
/// spawned under it after one had failed (replacements).
struct ChildChurn {
  std::uint64_t failed = 0;
  std::uint64_t replacements = 0;
};

/// The child failures and replacements of the history buckets that began within `window` before
/// `now` (exact, from ActorRecord::child_tally; a window longer than SystemState::Limits::child_tally
/// sees only that much).
ChildChurn childChurn(const observe::ActorRecord& actor, TimePoint now, Duration window);

/// Child failures within `window` before `now` (childChurn's `failed`).
std::size_t recentChildFailures(const observe::ActorRecord& actor, TimePoint now, Duration window);

/// Whether the actor failed (its own failure) within `window` before `now`: views flash it.
bool failedRecently(const observe::ActorRecord& actor, TimePoint now, Duration window);

/// The mark of a restarted child, the same in the tree and the graph: "↻ 3" (its restart count),
/// "" for an actor never restarted.
std::string restartBadge(std::uint32_t restarts);

/// A Supervisor's intensity period: "5 s", "1.5 s", "500 ms".
std::string periodText(Duration period);

/// A Supervisor's restart intensity at `now`: "2 of 3 in 5 s" (restarts within its period, of the
/// most it allows in it).
std::string intensityText(const observe::SupervisorRecord& supervisor, TimePoint now);

}  // namespace actorscope::views
