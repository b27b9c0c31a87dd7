// The warning rules.
#include "warnings/warning_rules.hpp"

#include "common/actor_metrics.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <cstdio>
#include <map>

namespace actorscope::views {
namespace {

std::string ms(std::uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

std::string seconds(Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(d).count());
  return buf;
}

/// The recent mailbox history of an actor, if it keeps growing.
bool growing(const observe::SystemState& state, const observe::ActorRecord& a, const WarningThresholds& t,
             std::string& summary) {
  if (!a.alive() || a.history.size() < 4 || a.mailbox_depth < t.growingMailboxMinDepth / 2) return false;
  const std::int64_t bucketNs = std::max<std::int64_t>(1, observe::to_ns(state.limits().history_bucket));
  const std::int64_t now = observe::to_ns(state.time()) / bucketNs;
  const std::int64_t span = std::max<std::int64_t>(3, observe::to_ns(t.growingMailboxWindow) / bucketNs);
  // The depths of the window, oldest first, without allocating (this runs for every actor).
  constexpr std::size_t kMaxPoints = 64;
  std::array<std::uint64_t, kMaxPoints> buf{};
  std::size_t count = 0;
  for (auto it = a.history.rbegin(); it != a.history.rend() && it->bucket > now - span && count < kMaxPoints; ++it)
    buf[count++] = it->mailbox_max;
  std::reverse(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(count));
  const std::span<const std::uint64_t> depths(buf.data(), count);
  // Most of the window must be covered (a mailbox with depth is sampled every poll).
  if (static_cast<std::int64_t>(depths.size()) * 3 < span * 2) return false;
  const std::uint64_t first = depths.front();
  const std::uint64_t last = std::max(depths.back(), a.mailbox_depth);
  // Deep, and deeper by a margin: a tenth of where it started (a backlog that grows at a steady
  // rate keeps qualifying however long it has been growing), and at least 50 messages.
  if (last < t.growingMailboxMinDepth || last < first + std::max<std::uint64_t>(50, first / 10)) return false;
  std::size_t rises = 0;
  for (std::size_t i = 1; i < depths.size(); ++i) {
    if (depths[i] > depths[i - 1]) ++rises;
    if (depths[i] * 10 < depths[i - 1] * 9) return false;  // a real drop: it is being worked off
  }
  if (rises * 3 < (depths.size() - 1) * 2) return false;
  summary = "mailbox grew from " + std::to_string(first) + " to " + std::to_string(last) + " in the last " +
            seconds(t.growingMailboxWindow) + ": it receives faster than it handles";
  return true;
}

}  // namespace

std::vector<Warning> lint(const observe::SystemState& state, const WarningThresholds& t) {
  std::vector<Warning> out;
  const bool qtLoops = state.runtime() == "qt";
  std::map<std::uint32_t, std::size_t> actorsOnThread;
  if (qtLoops)
    for (const auto& [id, a] : state.actors())
      if (a.alive() && a.thread != observe::no_thread) ++actorsOnThread[a.thread];

  for (const auto& [id, a] : state.actors()) {
    std::string summary;
    if (growing(state, a, t, summary)) out.push_back({WarningKind::growing_mailbox, Severity::warning, id, 0, summary});

    // A restart storm: children keep failing and the supervisor keeps replacing them (children
    // spawned well after the supervisor itself, within the window). A supervisor that just lets
    // its children fail is not restarting anything.
    const std::size_t storm = a.alive() ? recentChildFailures(a, state.time(), t.restartStormWindow) : 0;
    if (storm >= t.restartStormFailures) {
      std::size_t replaced = 0;
      for (ActorId c : a.children)
        if (const observe::ActorRecord* r = state.actor(c);
            r && state.time() - r->spawned <= t.restartStormWindow && r->spawned - a.spawned >= t.restartStormGrace)
          ++replaced;
      if (replaced >= t.restartStormReplacements) {
        out.push_back({WarningKind::restart_storm, Severity::error, id, 0,
                       std::to_string(storm) + " child failures and " + std::to_string(replaced) +
                           " replacements in the last " + seconds(t.restartStormWindow) +
                           (a.recent_failures.empty() ? std::string() : "; latest: " + a.recent_failures.back().error)});
      }
    }

    if (qtLoops && !a.handling_ns.empty() &&
        a.handling_ns.max() >= static_cast<std::uint64_t>(observe::to_ns(t.blockedLoop))) {
      const std::size_t others = actorsOnThread[a.thread] > 0 ? actorsOnThread[a.thread] - 1 : 0;
      out.push_back({WarningKind::blocked_event_loop, Severity::warning, id, 0,
                     "a handler ran " + ms(a.handling_ns.max()) + " (p99 " + ms(a.handling_ns.percentile(99)) +
                         ") on event-loop thread " + std::to_string(a.thread) + ", blocking its " +
                         std::to_string(others) + " other actors"});
    }
  }

  for (const auto& [id, timer] : state.timers()) {
    if (timer.fired < t.lateTimerMinFires) continue;
    const std::uint64_t p99 = timer.lateness_ns.percentile(99);
    if (p99 < static_cast<std::uint64_t>(observe::to_ns(t.lateTimer))) continue;
    out.push_back({WarningKind::late_timer, Severity::warning, timer.target, id,
                   "timer " + std::to_string(id) + " (" + timer.kind + ") fires late: p99 " + ms(p99) + ", max " +
                       ms(timer.lateness_ns.max()) + " after its deadline"});
  }

  if (state.dropped() > 0) {
    out.push_back({WarningKind::dropped_events, Severity::error, {}, 0,
                   std::to_string(state.dropped()) +
                       " trace events were dropped: the views miss some lifecycle or message events"});
  }
  std::sort(out.begin(), out.end(), [](const Warning& a, const Warning& b) { return a.key() < b.key(); });
  return out;
}

std::string_view warningTitle(WarningKind kind) {
  switch (kind) {
    case WarningKind::growing_mailbox: return "growing mailbox";
    case WarningKind::restart_storm: return "restart storm";
    case WarningKind::blocked_event_loop: return "blocked event loop";
    case WarningKind::late_timer: return "late timer";
    case WarningKind::dropped_events: return "dropped events";
  }
  return "warning";
}

std::string_view warningExplanation(WarningKind kind) {
  switch (kind) {
    case WarningKind::growing_mailbox:
      return "The actor's mailbox got deeper in most of the recent 100 ms samples. Messages arrive faster than it "
             "handles them; unless the load stops, its queue time and memory grow without bound. Look at who sends "
             "to it (Message flow) and at its handling time (Inspector).";
    case WarningKind::restart_storm:
      return "Children of this supervisor keep failing and it keeps replacing them. Restarting a child that fails "
             "again at once only burns CPU and hides the cause: look at the failures' messages in the Inspector.";
    case WarningKind::blocked_event_loop:
      return "On the qt runtime, the actors that share an event-loop thread run one handler at a time; a long "
             "handler holds all of them (and a GUI-thread handler freezes the window). Make the handler shorter, "
             "co_await instead of blocking, or move the work to run_blocking.";
    case WarningKind::late_timer:
      return "The timer fires well after its deadlines: its thread is too busy to run it on time. Timers on a busy "
             "Qt event loop wait for the handler in front of them.";
    case WarningKind::dropped_events:
      return "The engine produced events faster than the observatory took them, so some were dropped (and "
             "counted). Counters and statistics stay exact; the event log and message flow miss some entries. "
             "Sample messages more sparsely to avoid it.";
  }
  return {};
}

}  // namespace actorscope::views
