// ScriptedState: builds a SystemState from a scripted event stream (spawns, exits, links, groups,
// timers, messages, stats samples), the way a live session would fold it, with a clock the
// script moves. The view tests use it to drive models through updates without an engine.
#pragma once

#include <actorscope/observe/system_state.hpp>

#include <chrono>
#include <string>

namespace views_test {

namespace as = actorscope;
namespace obs = actorscope::observe;
using namespace std::chrono_literals;

inline as::ActorId id(std::uint64_t pid) { return as::ActorId{0, pid}; }

class ScriptedState {
 public:
  explicit ScriptedState(obs::SystemState::Limits limits = {}) : state(limits) { runtime("asio", 2); }

  obs::SystemState state;
  as::TimePoint now = as::TimePoint(std::chrono::seconds(1000));

  void advance(as::Duration d) { now += d; }
  /// The clock reaches the state without any event: an empty stats poll, as the live session does.
  void tick() {
    obs::StatsSample s;
    s.end = now;
    state.apply(s);
  }

  obs::Event event(obs::EventKind kind, as::ActorId actor, as::ActorId peer = {}) {
    obs::Event e;
    e.kind = kind;
    e.seq = ++seq_;
    e.time = now;
    e.actor = actor;
    e.peer = peer;
    return e;
  }
  void apply(const obs::Event& e) { state.apply(e); }

  void runtime(const std::string& name, std::uint32_t threads) {
    auto e = event(obs::EventKind::runtime_info, {});
    e.name = name;
    e.thread = threads;
    apply(e);
  }
  /// spawned + started.
  as::ActorId spawn(std::uint64_t pid, std::uint64_t parent, const std::string& name = {},
                    const std::string& type = "demo::Worker", std::uint32_t thread = 0) {
    auto e = event(obs::EventKind::spawned, id(pid), parent ? id(parent) : as::ActorId{});
    e.name = name;
    e.text = type;
    e.thread = thread;
    apply(e);
    apply(event(obs::EventKind::started, id(pid)));
    if (!name.empty()) {
      auto n = event(obs::EventKind::name_registered, id(pid));
      n.name = name;
      apply(n);
    }
    return id(pid);
  }
  void stop(std::uint64_t pid, const std::string& reason = "done") {
    auto e = event(obs::EventKind::stopped, id(pid));
    e.text = reason;
    apply(e);
  }
  void fail(std::uint64_t pid, const std::string& error) {
    auto e = event(obs::EventKind::failed, id(pid));
    e.text = error;
    apply(e);
  }
  void kill(std::uint64_t pid) { apply(event(obs::EventKind::killed, id(pid))); }
  void link(std::uint64_t child, std::uint64_t parent) { apply(event(obs::EventKind::linked, id(child), id(parent))); }
  void join(std::uint64_t pid, const std::string& scope, const std::string& group) {
    auto e = event(obs::EventKind::group_joined, id(pid));
    e.name = group;
    e.text = scope;
    apply(e);
  }
  void leave(std::uint64_t pid, const std::string& scope, const std::string& group) {
    auto e = event(obs::EventKind::group_left, id(pid));
    e.name = group;
    e.text = scope;
    apply(e);
  }
  void timerStarted(std::uint64_t timer, std::uint64_t target, std::uint64_t owner, const std::string& kind,
                    as::Duration period) {
    auto e = event(obs::EventKind::timer_started, id(target), owner ? id(owner) : as::ActorId{});
    e.trace = timer;
    e.name = kind;
    e.period = period;
    e.scheduled = now + (period > as::Duration::zero() ? period : 100ms);
    apply(e);
  }
  /// Fires a timer that was due `late` ago.
  void timerFired(std::uint64_t timer, std::uint64_t target, const std::string& kind, as::TimePoint due) {
    auto e = event(obs::EventKind::timer_fired, id(target));
    e.trace = timer;
    e.name = kind;
    e.scheduled = due;
    apply(e);
  }
  void timerCancelled(std::uint64_t timer, std::uint64_t target, const std::string& kind) {
    auto e = event(obs::EventKind::timer_cancelled, id(target));
    e.trace = timer;
    e.name = kind;
    apply(e);
  }
  /// A sampled message: sent now, handled `queue + handling` later (the clock moves with it).
  void message(std::uint64_t from, std::uint64_t to, std::string_view type, as::Duration queue = 20us,
               as::Duration handling = 5us, bool failed = false) {
    auto s = event(obs::EventKind::message_sent, from ? id(from) : as::ActorId{}, id(to));
    s.trace = ++trace_;
    s.message_type = type;
    apply(s);
    advance(queue + handling);
    auto h = event(obs::EventKind::message_handled, id(to), from ? id(from) : as::ActorId{});
    h.trace = trace_;
    h.message_type = type;
    h.queue = queue;
    h.handling = handling;
    h.timed = true;
    h.failed = failed;
    apply(h);
  }
  /// One 100 ms stats bucket for an actor, ending now.
  /// A poll that finds a hook of `pid` running for `d` (zero: none running).
  void busy(std::uint64_t pid, as::Duration d) {
    obs::StatsSample s;
    s.end = now;
    s.actor = id(pid);
    s.busy = d;
    state.apply(s);
  }

  void stats(std::uint64_t pid, std::uint64_t handled, std::uint64_t depth) {
    obs::StatsSample s;
    s.end = now;
    s.actor = id(pid);
    s.handled = handled;
    s.mailbox_depth = depth;
    s.mailbox_max = depth;
    state.apply(s);
  }

  /// `pid` has a bounded mailbox (mailbox_configured): `capacity` messages, `overflow` when full.
  void bounded(std::uint64_t pid, std::uint32_t capacity, as::Overflow overflow) {
    auto e = obs::Event::mailbox_configured(id(pid), capacity, std::string(to_string(overflow)));
    e.seq = ++seq_;
    e.time = now;
    apply(e);
  }
  /// One stats bucket of a bounded mailbox, ending now: its depth, and what it dropped and
  /// rejected in the bucket.
  void losses(std::uint64_t pid, std::uint64_t depth, std::uint64_t dropped, std::uint64_t rejected) {
    obs::StatsSample s;
    s.end = now;
    s.actor = id(pid);
    s.mailbox_depth = depth;
    s.mailbox_max = depth;
    s.dropped = dropped;
    s.rejected = rejected;
    state.apply(s);
  }

  /// A Supervisor says how it works (supervisor_configured); `specs` as the event carries them.
  void configure(std::uint64_t sup, const std::string& strategy, std::uint32_t maxRestarts,
                 as::Duration period, const std::string& specs) {
    auto e = obs::Event::supervisor_configured(id(sup), strategy, maxRestarts, period, specs);
    e.seq = ++seq_;
    e.time = now;
    apply(e);
  }
  /// A Supervisor's restart of child `childId`: `old` fails, `fresh` is spawned under `sup` (with
  /// the same name) and the child_restarted says it replaces `old`.
  void restart(std::uint64_t sup, std::uint64_t old, std::uint64_t fresh, const std::string& childId,
               std::uint32_t attempt, const std::string& name = {}) {
    fail(old, "boom");
    auto e = event(obs::EventKind::spawned, id(fresh), id(sup));
    e.name = name;
    e.text = "demo::Worker";
    apply(e);
    auto r = obs::Event::child_restarted(id(fresh), id(old), childId, "failed: boom", attempt, {}, false);
    r.seq = ++seq_;
    r.time = now;
    apply(r);
    apply(event(obs::EventKind::started, id(fresh)));
  }
  void gaveUp(std::uint64_t sup, std::uint32_t restarts, as::Duration period, const std::string& reason) {
    auto e = obs::Event::supervisor_gave_up(id(sup), restarts, period, reason);
    e.seq = ++seq_;
    e.time = now;
    apply(e);
  }

 private:
  std::uint64_t seq_ = 0;
  std::uint64_t trace_ = 0;
};

}  // namespace views_test
