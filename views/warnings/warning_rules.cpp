// The warning rules.
#include "warnings/warning_rules.hpp"

#include "common/actor_metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <span>
#include <utility>

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

/// 19,012
std::string withCommas(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

/// +950, -12
std::string signedRate(double perSecond) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.0f", perSecond);
  return std::string(buf) == "-0" ? "+0" : buf;
}

/// A mailbox that is deep and not being worked off. Over the window (100 ms samples, each the
/// deepest the mailbox was in it), compare the later half with the earlier: the mailbox is being
/// worked off when the later half is lower by more than the samples' own jitter (the mean change
/// from one sample to the next), or when it dropped by a tenth from one sample to the next.
/// Otherwise it is flagged, whatever its growth rate: a backlog that grows at a steady rate stays
/// flagged however deep it already is, and one that holds steady still makes every message wait.
bool growing(const observe::SystemState& state, const observe::ActorRecord& a, const WarningThresholds& t,
             std::string& summary) {
  if (!a.alive() || a.history.size() < 3 || a.mailbox_depth < t.growingMailboxMinDepth) return false;
  const std::int64_t bucketNs = std::max<std::int64_t>(1, observe::to_ns(state.limits().history_bucket));
  const std::int64_t now = observe::to_ns(state.time()) / bucketNs;
  const std::int64_t span = std::max<std::int64_t>(3, observe::to_ns(t.growingMailboxWindow) / bucketNs);
  // The depths of the window, oldest first, without allocating (this runs for every actor).
  constexpr std::size_t kMaxPoints = 64;
  std::array<double, kMaxPoints> buf{};
  std::size_t count = 0;
  for (auto it = a.history.rbegin(); it != a.history.rend() && it->bucket > now - span && count < kMaxPoints; ++it)
    buf[count++] = static_cast<double>(it->mailbox_max);
  std::reverse(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(count));
  const std::span<const double> depths(buf.data(), count);
  // Most of the window must be covered (a mailbox with depth is sampled every poll).
  if (depths.size() < 3 || static_cast<std::int64_t>(depths.size()) * 3 < span * 2) return false;
  double jitter = 0;
  for (std::size_t i = 1; i < depths.size(); ++i) {
    if (depths[i] * 10 < depths[i - 1] * 9) return false;  // a real drop: it is being worked off
    jitter += std::fabs(depths[i] - depths[i - 1]);
  }
  jitter /= static_cast<double>(depths.size() - 1);
  const std::size_t half = depths.size() / 2;
  double earlier = 0, later = 0;
  for (std::size_t i = 0; i < half; ++i) {
    earlier += depths[i];
    later += depths[depths.size() - half + i];
  }
  const double drift = (later - earlier) / static_cast<double>(half);
  if (drift < -jitter) return false;  // lower by more than its jitter: being worked off
  // The two halves' middles are (size - half) samples apart.
  const double rate =
      drift / (static_cast<double>(depths.size() - half) * static_cast<double>(bucketNs) / 1e9);
  summary = withCommas(a.mailbox_depth) + " messages queued, ";
  if (drift > jitter) {
    summary += "growing by " + withCommas(static_cast<std::uint64_t>(std::llround(rate))) +
               " messages/s over the last " + seconds(t.growingMailboxWindow);
  } else {
    summary += "holding steady (" + signedRate(rate) + " messages/s over the last " +
               seconds(t.growingMailboxWindow) + ")";
  }
  return true;
}

/// What a bounded mailbox dropped and rejected within `window` before the state's time (its
/// history's buckets, exact): {dropped, rejected}.
std::pair<std::uint64_t, std::uint64_t> recentLoss(const observe::SystemState& state, const observe::ActorRecord& a,
                                                   Duration window) {
  const std::int64_t bucketNs = std::max<std::int64_t>(1, observe::to_ns(state.limits().history_bucket));
  const std::int64_t now = observe::to_ns(state.time()) / bucketNs;
  const std::int64_t span = std::max<std::int64_t>(1, observe::to_ns(window) / bucketNs);
  std::uint64_t dropped = 0, rejected = 0;
  for (auto it = a.history.rbegin(); it != a.history.rend() && it->bucket > now - span; ++it) {
    dropped += it->dropped;
    rejected += it->rejected;
  }
  return {dropped, rejected};
}

/// "8 messages", "1 message"
std::string messages(std::uint64_t n) { return withCommas(n) + (n == 1 ? " message" : " messages"); }

/// What a handler that holds its thread keeps waiting, in the runtime's terms.
std::string heldThread(const observe::SystemState& state, const observe::ActorRecord& a,
                       const std::map<std::uint32_t, std::size_t>& actorsOnThread) {
  if (state.runtime() == "qt") {
    const auto it = actorsOnThread.find(a.thread);
    const std::size_t others = it != actorsOnThread.end() && it->second > 0 ? it->second - 1 : 0;
    return "event-loop thread " + std::to_string(a.thread) + ", blocking its " + std::to_string(others) +
           " other actors";
  }
  if (state.runtime() == "asio")
    return "a pool thread, holding one of the " + std::to_string(state.threads()) + " threads every actor shares";
  return "its thread";
}

}  // namespace

std::vector<Warning> lint(const observe::SystemState& state, const WarningThresholds& t) {
  std::vector<Warning> out;
  std::map<std::uint32_t, std::size_t> actorsOnThread;
  if (state.runtime() == "qt")
    for (const auto& [id, a] : state.actors())
      if (a.alive() && a.thread != observe::no_thread) ++actorsOnThread[a.thread];

  for (const auto& [id, a] : state.actors()) {
    std::string summary;
    if (growing(state, a, t, summary)) out.push_back({WarningKind::growing_mailbox, Severity::warning, id, 0, summary});

    // A bounded mailbox: full now, and what it lost lately. Each says what the policy does with it.
    if (a.alive() && a.mailbox_capacity != 0) {
      const std::string policy(to_string(a.overflow));
      if (a.mailbox_depth >= a.mailbox_capacity) {
        std::string what = a.overflow == Overflow::drop_newest    ? "the next message is dropped"
                           : a.overflow == Overflow::drop_oldest  ? "the next message drops the oldest waiting"
                           : a.overflow == Overflow::backpressure ? "senders wait for room"
                                                                  : "the next send is rejected";
        out.push_back({WarningKind::mailbox_full, Severity::warning, id, 0,
                       withCommas(a.mailbox_depth) + " of " + withCommas(a.mailbox_capacity) +
                           " messages waiting (" + policy + "): " + what});
      }
      const auto [dropped, rejected] = recentLoss(state, a, t.mailboxLossWindow);
      if (dropped != 0 || rejected != 0) {
        std::string lost;
        if (dropped != 0) lost = messages(dropped) + " dropped";
        if (rejected != 0) lost += (lost.empty() ? "" : " and ") + withCommas(rejected) +
                                   (rejected == 1 ? " send rejected" : " sends rejected");
        out.push_back({WarningKind::mailbox_dropping, Severity::error, id, 0,
                       lost + " in the last " + seconds(t.mailboxLossWindow) + " (capacity " +
                           withCommas(a.mailbox_capacity) + ", " + policy + "; " + withCommas(a.dropped) +
                           " dropped and " + withCommas(a.rejected) + " rejected in all)"});
      }
    }

    // A restart storm: children keep failing and new ones keep being spawned under the supervisor
    // after failures (replacements), however short-lived the supervisor or its children. Children
    // that fail without being replaced (a fan-out that dies) are no storm: nothing is restarting.
    if (a.alive()) {
      const ChildChurn churn = childChurn(a, state.time(), t.restartStormWindow);
      if (churn.failed >= t.restartStormFailures && churn.replacements >= t.restartStormReplacements) {
        out.push_back({WarningKind::restart_storm, Severity::error, id, 0,
                       withCommas(churn.failed) + " child failures and " + withCommas(churn.replacements) +
                           " replacements in the last " + seconds(t.restartStormWindow) +
                           (a.recent_failures.empty() ? std::string()
                                                      : "; latest: " + a.recent_failures.back().error)});
      }
    }

    // A blocked thread: a hook holding its thread now (measured by the polls, whatever the
    // detail level), or a handler that ran that long (from the timed messages).
    const auto blocked = static_cast<std::uint64_t>(observe::to_ns(t.blockedLoop));
    if (a.alive() && static_cast<std::uint64_t>(observe::to_ns(a.busy)) >= blocked) {
      out.push_back({WarningKind::blocked_event_loop, Severity::warning, id, 0,
                     "a handler has been running for " + ms(static_cast<std::uint64_t>(observe::to_ns(a.busy))) +
                         " and still is, on " + heldThread(state, a, actorsOnThread)});
    } else if (!a.handling_ns.empty() && a.handling_ns.max() >= blocked) {
      out.push_back({WarningKind::blocked_event_loop, Severity::warning, id, 0,
                     "a handler ran " + ms(a.handling_ns.max()) + " (p99 " + ms(a.handling_ns.percentile(99)) +
                         ") on " + heldThread(state, a, actorsOnThread)});
    }
  }

  // A Supervisor close to its restart intensity, or past it. Both name the supervisor.
  for (const auto& [id, sup] : state.supervisors()) {
    if (sup.gave_up) {
      // Its reason says it all ("supervisor 'x' gave up: 4 restarts within 2 s exceed ..."). Shown
      // for a minute: its own supervisor has usually restarted it by then, under a new id.
      if (state.time() - *sup.gave_up <= std::chrono::minutes(1))
        out.push_back({WarningKind::supervisor_gave_up, Severity::error, id, 0,
                       sup.gave_up_reason.empty() ? "gave up after " + std::to_string(sup.gave_up_restarts) +
                                                        " restarts in " + periodText(sup.period)
                                                  : sup.gave_up_reason});
      continue;
    }
    const observe::ActorRecord* a = state.actor(id);
    if (a == nullptr || !a->alive() || sup.strategy.empty()) continue;
    const std::uint32_t n = sup.restarts_within_period(state.time());
    if (n > 0 && n + 1 >= sup.max_restarts) {
      out.push_back(
          {WarningKind::supervisor_near_limit, Severity::warning, id, 0,
           "restarts " + intensityText(sup, state.time()) + " (" + sup.strategy + "): " +
               (n >= sup.max_restarts ? "one more" : std::to_string(sup.max_restarts - n + 1) + " more") +
               " within " + periodText(sup.period) + " and it gives up" +
               (a->recent_failures.empty() ? std::string()
                                           : "; latest: " + a->recent_failures.back().error)});
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

  // Factories: a queue that keeps growing, jobs thrown away, workers stuck. About the factory actor.
  for (const auto& [id, f] : state.factories()) {
    const observe::ActorRecord* a = state.actor(id);
    const bool alive = a == nullptr || a->alive();
    const std::int64_t bucketNs = std::max<std::int64_t>(1, observe::to_ns(state.limits().history_bucket));
    const std::int64_t now = observe::to_ns(state.time()) / bucketNs;
    if (alive && f.queue_depth >= t.factoryQueueMinDepth && f.history.size() >= 3) {
      const std::int64_t span = std::max<std::int64_t>(3, observe::to_ns(t.factoryQueueWindow) / bucketNs);
      std::vector<std::uint64_t> depths;
      for (auto it = f.history.rbegin(); it != f.history.rend() && it->bucket > now - span; ++it)
        depths.push_back(it->queue_depth);
      std::reverse(depths.begin(), depths.end());
      const bool covered = depths.size() >= 3 && static_cast<std::int64_t>(depths.size()) * 3 >= span * 2;
      const bool neverFell = std::adjacent_find(depths.begin(), depths.end(),
                                                [](std::uint64_t x, std::uint64_t y) { return y < x; }) == depths.end();
      if (covered && neverFell && depths.back() >= depths.front() + t.factoryQueueMinGrowth) {
        const double secondsSpan =
            static_cast<double>(depths.size() - 1) * static_cast<double>(bucketNs) / 1e9;
        const double rate = static_cast<double>(depths.back() - depths.front()) / std::max(secondsSpan, 1e-9);
        out.push_back({WarningKind::factory_queue_growing, Severity::warning, id, 0,
                       withCommas(f.queue_depth) + (f.queue_depth == 1 ? " job" : " jobs") + " waiting, growing by " +
                           withCommas(static_cast<std::uint64_t>(std::llround(rate))) + " jobs/s over the last " +
                           seconds(t.factoryQueueWindow) + " (" + withCommas(f.busy_workers) + " of " +
                           withCommas(f.workers) + " workers busy)"});
      }
    }
    {
      const std::int64_t span = std::max<std::int64_t>(1, observe::to_ns(t.factoryShedWindow) / bucketNs);
      std::uint64_t ttl = 0, shed = 0, rate = 0;
      for (auto it = f.history.rbegin(); it != f.history.rend() && it->bucket > now - span; ++it) {
        ttl += it->discarded[static_cast<std::size_t>(DiscardReason::ttl_expired)];
        shed += it->discarded[static_cast<std::size_t>(DiscardReason::load_shed)];
        rate += it->discarded[static_cast<std::size_t>(DiscardReason::rate_limited)];
      }
      if (ttl + shed + rate != 0) {
        std::string why;
        const auto part = [&](std::uint64_t n, const char* what) {
          if (n == 0) return;
          if (!why.empty()) why += ", ";
          why += withCommas(n) + " " + what;
        };
        part(shed, "shed at the queue limit");
        part(rate, "over the rate limit");
        part(ttl, "past their TTL");
        out.push_back({WarningKind::factory_shedding, Severity::error, id, 0,
                       withCommas(ttl + shed + rate) + (ttl + shed + rate == 1 ? " job" : " jobs") +
                           " discarded in the last " + seconds(t.factoryShedWindow) + ": " + why + " (" +
                           withCommas(f.discarded_total()) + " discarded in all)"});
      }
    }
    if (!f.recent_stuck.empty() && state.time() - f.recent_stuck.back().time <= t.factoryStuckWindow) {
      const auto& s = f.recent_stuck.back();
      std::uint64_t recent = 0;
      for (const auto& x : f.recent_stuck)
        if (state.time() - x.time <= t.factoryStuckWindow) ++recent;
      out.push_back({WarningKind::factory_worker_stuck, Severity::error, id, 0,
                     "worker " + std::to_string(s.worker_id) + " ran job " + s.key + " for " +
                         ms(static_cast<std::uint64_t>(std::max<std::int64_t>(0, observe::to_ns(s.running)))) +
                         (s.killed ? "; it was killed and replaced" : "; reported, still running") +
                         (recent > 1 ? " (" + std::to_string(recent) + " stuck jobs in the last " +
                                           seconds(t.factoryStuckWindow) + ")"
                                     : std::string())});
    }
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
    case WarningKind::blocked_event_loop: return "blocked thread";
    case WarningKind::late_timer: return "late timer";
    case WarningKind::dropped_events: return "dropped events";
    case WarningKind::supervisor_near_limit:
      return "supervisor near its restart limit";
    case WarningKind::supervisor_gave_up:
      return "supervisor gave up";
    case WarningKind::mailbox_full: return "mailbox full";
    case WarningKind::mailbox_dropping: return "dropping messages";
    case WarningKind::factory_queue_growing: return "factory queue growing";
    case WarningKind::factory_shedding: return "factory shedding jobs";
    case WarningKind::factory_worker_stuck: return "dead-man's switch fired";
  }
  return "warning";
}

std::string_view warningExplanation(WarningKind kind) {
  switch (kind) {
    case WarningKind::growing_mailbox:
      return "The actor's mailbox is deep and not being worked off: over the last samples it grew, or held "
             "steady, but did not go down. It receives faster than it handles (or just as fast, when the "
             "backlog holds steady): every new message waits behind the backlog, and while it grows, its "
             "queue time and memory grow without bound. Look at who sends to it (Message flow) and at its "
             "handling time (Inspector).";
    case WarningKind::restart_storm:
      return "Children of this supervisor keep failing and new ones keep being spawned under it after the "
             "failures (replacements). Restarting a child that fails again at once only burns CPU and hides "
             "the cause: look at the failures' messages in the Inspector.";
    case WarningKind::blocked_event_loop:
      return "A handler held its thread for a long time (or still does). On the qt runtime the actors that share "
             "an event-loop thread run one handler at a time, so a long handler holds all of them (and a GUI-thread "
             "handler freezes the window); on asio it takes one of the pool's threads away from every other actor "
             "until it returns, and a kill or stop aimed at this actor waits for it too. Make the handler shorter, "
             "co_await instead of blocking, or move the work to run_blocking.";
    case WarningKind::late_timer:
      return "The timer fires well after its deadlines: its thread is too busy to run it on time. Timers on a busy "
             "Qt event loop wait for the handler in front of them.";
    case WarningKind::dropped_events:
      return "The engine produced events faster than the observatory took them, so some were dropped (and "
             "counted). Counters and statistics stay exact; the event log and message flow miss some entries. "
             "Sample messages more sparsely to avoid it.";
    case WarningKind::supervisor_near_limit:
      return "The supervisor has restarted its children almost as often as its restart intensity allows "
             "within its "
             "period: a restart or two more and it stops all its children and fails itself, so that its own "
             "supervisor hears of it. A child that fails again right after its restart will not get better "
             "by being "
             "restarted: look at the children's failures in the Inspector.";
    case WarningKind::supervisor_gave_up:
      return "The supervisor exceeded its restart intensity (more than max_restarts restarts within its "
             "period): it "
             "shut its children down and failed with the reason shown, which escalates to its own "
             "supervisor. Look "
             "at why its children kept failing (the Inspector's recent failures, Why did it fail?).";
    case WarningKind::mailbox_full:
      return "The actor's bounded mailbox holds as many messages as its capacity: it receives faster than it "
             "handles. What comes next depends on its overflow policy: reject refuses the send (the sender gets a "
             "SendError back), drop_newest drops the new message, drop_oldest drops the oldest waiting one, and "
             "backpressure makes senders wait for room. A mailbox that is full now and then absorbs bursts, as "
             "it should; one that stays full needs a faster handler (Inspector: its handling time), fewer "
             "senders, or a larger capacity.";
    case WarningKind::mailbox_dropping:
      return "The actor's bounded mailbox was full, so messages were lost: dropped (drop_newest, drop_oldest) "
             "or refused at the send (reject, try_cast, a backpressured send that could not wait or timed "
             "out). Counted exactly, in the Dropped and Rejected columns. If every message matters, raise the "
             "capacity, speed up the handler, or choose backpressure so that senders slow down instead; if "
             "only the latest ones matter (readings, progress), drop_oldest is the right choice and this is "
             "expected.";
    case WarningKind::factory_queue_growing:
      return "The factory's queue of jobs kept growing over the last samples: jobs arrive faster than its "
             "workers finish them. Every new job waits behind the backlog, so job latency grows with it, and "
             "without a discard limit so does memory. Look at the busy workers (all busy: the pool is too "
             "small or a job is slow; some idle: the routing sends work to a few, as key_persistent does for "
             "a hot key) and at the job latency (Factories view).";
    case WarningKind::factory_shedding:
      return "The factory threw jobs away instead of running them: its queue was at its discard limit (load "
             "shed: the oldest or the newest job went, as set), its rate limit had no token left, or a job "
             "waited longer than its TTL. Each discarded job went to the factory's discard handler. This is "
             "what those settings are for under overload; if it goes on, the pool is too small for the load, "
             "or the limits are too tight.";
    case WarningKind::factory_worker_stuck:
      return "The factory's dead-man's switch found a worker running one job for longer than its detection "
             "timeout: the job hangs (a deadlock, a blocking call without a timeout, an endless loop). Set to "
             "kill, the factory killed the worker and started a new one, and the job was lost; set to report, "
             "the worker still runs it. Look at the job's key and at what that worker's handler waits on.";
  }
  return {};
}

}  // namespace actorscope::views
