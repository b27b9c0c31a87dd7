// SystemState: the fold of the event stream (its keyframe image is in state_image.cpp).
#include <actorscope/observe/observer.hpp>
#include <actorscope/observe/system_state.hpp>

#include <algorithm>
#include <charconv>

namespace actorscope::observe {

// ---------------------------------------------------------------------------------------------
// The fold

const ActorRecord* SystemState::actor(ActorId id) const noexcept {
  auto it = actors_.find(id);
  return it == actors_.end() ? nullptr : &it->second;
}

const SupervisorRecord* SystemState::supervisor(ActorId id) const noexcept {
  auto it = supervisors_.find(id);
  return it == supervisors_.end() ? nullptr : &it->second;
}

const FactoryRecord* SystemState::factory(ActorId id) const noexcept {
  auto it = factories_.find(id);
  return it == factories_.end() ? nullptr : &it->second;
}

FactoryRecord& SystemState::touch_factory(ActorId id) {
  FactoryRecord& f = factories_[id];
  f.id = id;
  return f;
}

LogHistogram FactoryRecord::latency() const {
  std::size_t first = 0;
  while (first < latency_buckets.size() && latency_buckets[first] == 0) ++first;
  if (first == latency_buckets.size()) return {};
  std::size_t last = latency_buckets.size() - 1;
  while (latency_buckets[last] == 0) --last;
  const std::uint64_t mn = LogHistogram::lower_bound(first);
  const std::uint64_t mx = LogHistogram::upper_bound(last);
  const auto sum = static_cast<std::uint64_t>(std::max<std::int64_t>(0, to_ns(latency_sum)));
  return LogHistogram::from_parts(latency_buckets, mn, mx, sum);
}

std::uint32_t SupervisorRecord::restarts_within_period(TimePoint now) const noexcept {
  std::uint32_t n = 0;
  for (TimePoint t : recent_restarts)
    if (t <= now && now - t < period) ++n;
  return n;
}

const SupervisorRecord::Child* SupervisorRecord::child_of(ActorId actor) const noexcept {
  if (!actor.is_valid()) return nullptr;
  for (const Child& c : children)
    if (c.actor == actor) return &c;
  return nullptr;
}

std::vector<ActorId> SystemState::roots() const {
  std::vector<ActorId> out;
  for (const auto& [id, a] : actors_)
    if (!a.parent.is_valid() || actors_.find(a.parent) == actors_.end()) out.push_back(id);
  return out;
}

std::vector<std::pair<std::string, std::string>> SystemState::groups_of(ActorId id) const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [scope, groups] : groups_)
    for (const auto& [group, members] : groups)
      if (members.count(id) != 0) out.emplace_back(scope, group);
  return out;
}

ActorRecord& SystemState::touch(ActorId id) {
  auto [it, inserted] = actors_.try_emplace(id);
  if (inserted) {
    it->second.id = id;
    ++alive_;
  }
  return it->second;
}

void SystemState::detach_from_parent(ActorRecord& a) {
  if (!a.parent.is_valid()) return;
  if (auto p = actors_.find(a.parent); p != actors_.end()) {
    auto& kids = p->second.children;
    kids.erase(std::remove(kids.begin(), kids.end(), a.id), kids.end());
  }
  a.parent = {};
}

void SystemState::reparent(ActorRecord& a, ActorId parent) {
  if (a.parent == parent) return;
  detach_from_parent(a);
  a.parent = parent;
  ActorRecord& p = touch(parent);
  if (std::find(p.children.begin(), p.children.end(), a.id) == p.children.end()) p.children.push_back(a.id);
}

namespace {

/// Appends to a list that keeps its newest `limit` entries.
template <class List, class T>
void push_bounded(List& list, T item, std::size_t limit) {
  list.push_back(std::move(item));
  while (list.size() > limit) list.pop_front();
}

}  // namespace

void SystemState::add_failure(ActorRecord& a, const FailureRecord& f) {
  push_bounded(a.recent_failures, f, limits_.failures_per_actor);
}

void SystemState::tally_child(ActorRecord& a, TimePoint t, bool failed) {
  const std::int64_t len = std::max<std::int64_t>(1, to_ns(limits_.history_bucket));
  const std::int64_t ns = to_ns(t);
  const TimePoint start = time_from_ns((ns >= 0 ? ns : ns - len + 1) / len * len);
  auto& tally = a.child_tally;
  // Events come in time order but for a few microseconds across threads: look from the newest.
  auto it = tally.end();
  while (it != tally.begin() && std::prev(it)->bucket > start) --it;
  if (it != tally.begin() && std::prev(it)->bucket == start) {
    --it;
  } else {
    it = tally.insert(it, ActorRecord::ChildTally{start, 0, 0});
  }
  ++(failed ? it->failed : it->replacements);
  // Forget what is older than the span (at most once per new bucket: the front is rarely that old).
  const TimePoint horizon = tally.back().bucket - limits_.child_tally;
  if (tally.front().bucket <= horizon) {
    auto kept = tally.begin();
    while (kept != tally.end() && kept->bucket <= horizon) ++kept;
    tally.erase(tally.begin(), kept);
  }
}

bool SystemState::child_failed_before(const ActorRecord& a, TimePoint t) const {
  for (auto it = a.child_tally.rbegin(); it != a.child_tally.rend(); ++it) {
    if (it->bucket <= t - limits_.child_tally) break;
    if (it->failed > 0) return true;
  }
  return false;
}

void SystemState::push_recent(const Event& e) { push_bounded(recent_events_, e, limits_.recent_events); }

namespace {

/// The tab-separated words of one line.
std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    const auto tab = line.find('\t');
    out.push_back(line.substr(0, tab));
    if (tab == std::string_view::npos) return out;
    line.remove_prefix(tab + 1);
  }
}

/// A whole number of milliseconds, or nullopt.
std::optional<Duration> millis(std::string_view word) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
  if (ec != std::errc{} || end != word.data() + word.size()) return std::nullopt;
  return std::chrono::duration_cast<Duration>(std::chrono::milliseconds(v));
}

}  // namespace

FactoryRecord::Settings FactoryRecord::parse_settings(std::string_view text) {
  Settings out;
  const auto number = [](std::string_view word, auto& v) {
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    return ec == std::errc{} && end == word.data() + word.size();
  };
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const auto w = words_of(line);
    if (w[0] == "queue" && w.size() >= 2) {
      out.priority = w[1] == "priority";
      out.priority_levels = 0;
      if (out.priority && w.size() >= 3) (void)number(w[2], out.priority_levels);
    } else if (w[0] == "discard" && w.size() >= 2) {
      out.discard = std::string(w[1]);
      out.discard_limit = 0;
      if (w.size() >= 3) (void)number(w[2], out.discard_limit);
      out.discard_oldest = w.size() >= 4 && w[3] == "oldest";
    } else if (w[0] == "dead_man" && w.size() >= 2) {
      out.dead_man = millis(w[1]);
      out.dead_man_kills = w.size() >= 3 && w[2] == "kill";
    } else if (w[0] == "rate" && w.size() >= 3) {
      std::uint64_t jobs = 0;
      const auto per = millis(w[2]);
      if (number(w[1], jobs) && per) {
        out.rate_jobs = jobs;
        out.rate_per = *per;
      }
    } else if (w[0] == "draining") {
      out.draining = true;
    }  // (other tags are for later formats: ignored)
  }
  return out;
}

void SystemState::configure_supervisor(const Event& e) {
  SupervisorRecord& sup = supervisors_[e.actor];
  sup.id = e.actor;
  sup.strategy = e.name;
  sup.max_restarts = e.thread;
  sup.period = e.period;
  sup.specs = e.text;
  sup.backoff.reset();
  // A spec that was there before keeps the actor it runs (start_child and delete_child send the
  // whole list again).
  std::vector<SupervisorRecord::Child> children;
  std::string_view text = e.text;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const auto w = words_of(line);
    if (w[0] == "child" && w.size() >= 5) {
      SupervisorRecord::Child c;
      c.id = std::string(w[1]);
      c.restart = std::string(w[2]);
      c.shutdown = std::string(w[3]);
      c.supervisor = w[4] == "supervisor";
      for (const auto& old : sup.children)
        if (old.id == c.id) c.actor = old.actor;
      // A sixth word, when a Supervisor sends one, is the pid of the actor running the spec now
      // (0: none): exact where the spec order is not (an observer that attaches after restarts).
      std::uint64_t pid = 0;
      if (w.size() >= 6 && std::from_chars(w[5].data(), w[5].data() + w[5].size(), pid).ec == std::errc{})
        c.actor = pid == 0 ? ActorId{} : ActorId{e.actor.node, pid};
      children.push_back(std::move(c));
    } else if (w[0] == "backoff" && w.size() >= 4) {
      const auto mn = millis(w[1]), mx = millis(w[2]), reset = millis(w[3]);
      if (mn && mx && reset) sup.backoff = SupervisorRecord::Backoff{*mn, *mx, *reset};
    }  // (other tags are for later formats: ignored)
  }
  sup.children = std::move(children);
  for (const auto& c : sup.children)
    if (auto k = c.actor.is_valid() ? actors_.find(c.actor) : actors_.end(); k != actors_.end())
      k->second.child_id = c.id;
  bind_children(sup);
}

void SystemState::bind_children(SupervisorRecord& sup) {
  // The events do not say which spec a child spawned for, but a supervisor starts its children in
  // spec order (and says so again when the list changes): its children that run no spec yet take
  // the specs that have no actor yet, in order. A restart says exactly (child_restarted).
  // A simple_one_for_one's one spec is a template that all its children run: it binds to none.
  if (sup.strategy == "simple_one_for_one" ||
      std::all_of(sup.children.begin(), sup.children.end(), [](const auto& c) { return c.actor.is_valid(); }))
    return;
  auto it = actors_.find(sup.id);
  if (it == actors_.end()) return;
  std::set<ActorId> bound;
  for (const auto& c : sup.children)
    if (c.actor.is_valid()) bound.insert(c.actor);
  auto spec = sup.children.begin();
  for (ActorId kid : it->second.children) {
    while (spec != sup.children.end() && spec->actor.is_valid()) ++spec;
    if (spec == sup.children.end()) break;
    auto k = actors_.find(kid);
    if (k == actors_.end() || !k->second.alive() || bound.count(kid) != 0) continue;
    spec->actor = kid;
    if (k->second.child_id.empty()) k->second.child_id = spec->id;
  }
}

namespace {

/// Whether a child_restarted counts against its supervisor's intensity, as the Supervisor counts:
/// once per failure, so the restart of the child that failed (or the retry of one that could not
/// start) counts, and neither a sibling restarted with it ("restarted with 'db' (one_for_all)")
/// nor a restart asked for by restart_child does.
bool counts_against_intensity(const Event& e) {
  return e.text != "restart_child" && e.text.rfind("restarted with ", 0) != 0;
}

}  // namespace

void SystemState::forget_failed_start(ActorId sup_id, const Event& e) {
  // A restart whose start failed names no actor, but the attempt was one: spawned under the
  // supervisor just before (the last of its children) and failed in pre_start, with the error the
  // restart's text ends with. It is the same child again, not a row of its own: it leaves the list,
  // and keeps its parent (so it is no root) and what it was.
  auto s = actors_.find(sup_id);
  if (s == actors_.end() || s->second.children.empty()) return;
  auto k = actors_.find(s->second.children.back());
  if (k == actors_.end()) return;
  ActorRecord& attempt = k->second;
  const auto& why = e.text;
  const auto& error = attempt.exit_reason;
  const bool its_error = !error.empty() && why.size() >= error.size() &&
                         why.compare(why.size() - error.size(), error.size(), error) == 0;
  if (attempt.alive() || attempt.exit_kind != ExitKind::failed || !its_error || !attempt.child_id.empty())
    return;
  if (const auto sup = supervisors_.find(sup_id);
      sup != supervisors_.end() && sup->second.child_of(attempt.id))
    return;
  s->second.children.pop_back();
  attempt.child_id = e.name;
  attempt.restarts = e.thread;
  attempt.replaces = e.peer;
}

void SystemState::restart_child(const Event& e) {
  const ActorRecord* old = e.peer.is_valid() ? actor(e.peer) : nullptr;
  ActorRecord* fresh = e.actor.is_valid() ? &touch(e.actor) : nullptr;  // none: its start failed
  ActorId sup_id = fresh != nullptr && fresh->parent.is_valid() ? fresh->parent : ActorId{};
  if (!sup_id.is_valid() && old != nullptr) sup_id = old->parent;
  if (fresh != nullptr) {
    fresh->child_id = e.name;
    fresh->restarts = e.thread;
    fresh->replaces = e.peer;
  }
  if (!sup_id.is_valid()) return;
  if (fresh == nullptr) forget_failed_start(sup_id, e);
  if (fresh != nullptr) {
    // The new actor takes the old one's place among the supervisor's children (its spawn put it
    // at the end), and the old one leaves the list: one child, one row. The old record keeps its
    // parent, so it is not taken for a root.
    if (!fresh->parent.is_valid()) fresh->parent = sup_id;
    auto& kids = touch(sup_id).children;
    kids.erase(std::remove(kids.begin(), kids.end(), fresh->id), kids.end());
    const auto at = e.peer.is_valid() ? std::find(kids.begin(), kids.end(), e.peer) : kids.end();
    if (at != kids.end()) {
      *at = fresh->id;
    } else {
      kids.push_back(fresh->id);
    }
  }

  SupervisorRecord& sup = supervisors_[sup_id];
  sup.id = sup_id;
  if (fresh != nullptr) {
    for (auto& c : sup.children) {
      if (c.id == e.name) {
        c.actor = fresh->id;
      } else if (c.actor == fresh->id) {
        c.actor = {};  // (it was bound by order to the wrong spec)
      }
    }
  }
  ++sup.total_restarts;
  if (!counts_against_intensity(e)) return;
  sup.recent_restarts.push_back(e.time);
  // Enough to tell the intensity at any later time: the restarts within a period of the newest,
  // and never more than the limit + 1.
  const std::size_t keep = std::max<std::size_t>(1, std::size_t{sup.max_restarts} + 1);
  while (sup.recent_restarts.size() > keep ||
         (sup.recent_restarts.size() > 1 &&
          sup.recent_restarts.back() - sup.recent_restarts.front() >= sup.period))
    sup.recent_restarts.pop_front();
}

void SystemState::prune_stopped() {
  while (stopped_order_.size() > limits_.stopped_actors) {
    const ActorId id = stopped_order_.front();
    stopped_order_.pop_front();
    auto it = actors_.find(id);
    if (it == actors_.end() || it->second.alive()) continue;
    detach_from_parent(it->second);
    for (ActorId child : it->second.children)
      if (auto c = actors_.find(child); c != actors_.end() && c->second.parent == id) c->second.parent = {};
    supervisors_.erase(id);
    factories_.erase(id);
    actors_.erase(it);
  }
}

bool SystemState::repeats(const Event& e) const {
  const ActorRecord* a = e.actor.is_valid() ? actor(e.actor) : nullptr;
  switch (e.kind) {
    case EventKind::runtime_info:
      return applied_ > 0 && e.name == runtime_ && e.thread == threads_;
    case EventKind::spawned:
      // Known from its own spawned event (a record made by an earlier event about it, a message it
      // sent before its spawn was drained, is not a sighting).
      return a != nullptr && a->spawned != TimePoint{};
    case EventKind::started:
      return a != nullptr && a->status >= ActorStatus::running;
    case EventKind::stopped:
    case EventKind::failed:
    case EventKind::killed:
      return a != nullptr && !a->alive();
    case EventKind::name_registered: {
      auto it = registry_.find(e.name);
      return it != registry_.end() && it->second == e.actor;
    }
    case EventKind::group_joined: {
      auto s = groups_.find(e.text);
      if (s == groups_.end()) return false;
      auto g = s->second.find(e.name);
      return g != s->second.end() && g->second.count(e.actor) != 0;
    }
    case EventKind::timer_started:
      return timers_.count(e.trace) != 0;
    case EventKind::mailbox_configured:
      return a != nullptr && a->mailbox_capacity == e.thread && to_string(a->overflow) == e.name;
    case EventKind::factory_configured: {
      const FactoryRecord* f = factory(e.actor);
      return f != nullptr && f->configured != TimePoint{} && f->routing == e.name && f->pool_size == e.thread &&
             f->settings_text == e.text;
    }
    case EventKind::supervisor_configured: {
      const SupervisorRecord* s = supervisor(e.actor);
      return s != nullptr && s->strategy == e.name && s->max_restarts == e.thread && s->period == e.period &&
             s->specs == e.text;
    }
    default:
      // linked (a link to the parent that spawned it is an event of its own), messages, firings,
      // leaves and cancellations are never repeats: each happened once.
      return false;
  }
}

bool SystemState::apply(const Event& e) {
  if (repeats(e)) return false;
  ++applied_;
  ++by_kind_[static_cast<std::size_t>(e.kind)];
  if (applied_ == 1 || e.time < first_time_) first_time_ = e.time;
  if (e.time > time_) time_ = e.time;

  switch (e.kind) {
    case EventKind::spawned: {
      ActorRecord& a = touch(e.actor);
      // The record may exist already (an event about it came before its spawn): fill it in.
      if (a.name.empty()) a.name = e.name;
      if (a.type_name.empty()) a.type_name = e.text;
      // Only its first spawned event is a spawn (a repeat describes an actor already counted).
      const bool first_sighting = a.spawned == TimePoint{};
      if (first_sighting) a.spawned = e.time;
      a.thread = e.thread;
      if (first_sighting && e.peer.is_valid())
        if (auto p = actors_.find(e.peer); p != actors_.end() && child_failed_before(p->second, e.time))
          tally_child(p->second, e.time, false);
      if (e.peer.is_valid() && a.alive()) {
        reparent(a, e.peer);
        if (auto sup = supervisors_.find(e.peer); sup != supervisors_.end()) bind_children(sup->second);
      }
      push_recent(e);
      break;
    }
    case EventKind::started: {
      ActorRecord& a = touch(e.actor);
      a.status = std::max(a.status, ActorStatus::running);
      if (a.thread == no_thread) a.thread = e.thread;  // the home chosen when it first ran
      push_recent(e);
      break;
    }
    case EventKind::stopped:
    case EventKind::failed:
    case EventKind::killed: {
      ActorRecord& a = touch(e.actor);
      if (a.alive()) {
        a.status = ActorStatus::stopped;
        --alive_;
        a.exit_kind = e.kind == EventKind::stopped  ? ExitKind::stopped
                      : e.kind == EventKind::failed ? ExitKind::failed
                                                    : ExitKind::killed;
        a.exit_reason = e.text;
        a.stopped = e.time;
        a.mailbox_depth = 0;
        a.busy = Duration::zero();
        stopped_order_.push_back(a.id);
        if (e.kind == EventKind::failed) {
          const FailureRecord f{e.time, a.id, e.text};
          add_failure(a, f);
          if (a.parent.is_valid()) {
            ActorRecord& p = touch(a.parent);
            ++p.child_failures;
            add_failure(p, f);
            tally_child(p, e.time, true);
          }
        }
        for (auto it = registry_.begin(); it != registry_.end();)
          it = it->second == a.id ? registry_.erase(it) : std::next(it);
        for (auto& [scope, groups] : groups_)
          for (auto& [group, members] : groups) members.erase(a.id);
        for (auto it = timers_.begin(); it != timers_.end();)
          it = it->second.target == a.id ? timers_.erase(it) : std::next(it);
        pending_ticks_.erase(a.id);
      }
      push_recent(e);
      prune_stopped();
      break;
    }
    case EventKind::message_sent: {
      if (e.actor.is_valid()) touch(e.actor);
      MessageRecord m;
      m.trace = e.trace;
      m.from = e.actor;
      m.to = e.peer;
      m.type = e.message_type;
      m.sent = e.time;
      if (!e.actor.is_valid()) {
        if (auto tick = pending_ticks_.find(e.peer); tick != pending_ticks_.end()) {
          if (e.time >= tick->second.fired && e.time - tick->second.fired <= kTickPairing) m.timer = tick->second.timer;
          pending_ticks_.erase(tick);
        }
      }
      push_bounded(recent_messages_, m, limits_.recent_messages);
      break;
    }
    case EventKind::message_handled: {
      ActorRecord& a = touch(e.actor);
      ++a.messages_observed;
      if (e.failed) ++a.handler_failures;
      if (e.timed) {
        a.queue_ns.record(static_cast<std::uint64_t>(std::max<std::int64_t>(0, to_ns(e.queue))));
        a.handling_ns.record(static_cast<std::uint64_t>(std::max<std::int64_t>(0, to_ns(e.handling))));
      }
      // Pair with its send: recent, so look back a little way only.
      MessageRecord* m = nullptr;
      if (e.trace != 0) {
        std::size_t looked = 0;
        for (auto it = recent_messages_.rbegin(); it != recent_messages_.rend() && looked < 1024; ++it, ++looked)
          if (it->trace == e.trace) {
            m = &*it;
            break;
          }
      }
      if (m == nullptr) {
        MessageRecord r;
        r.trace = e.trace;
        r.from = e.peer;
        r.to = e.actor;
        r.type = e.message_type;
        r.sent = e.time - e.queue - e.handling;
        push_bounded(recent_messages_, r, limits_.recent_messages);
        m = &recent_messages_.back();
      }
      m->handled = e.time;
      m->queue = e.queue;
      m->handling = e.handling;
      m->failed = e.failed;
      break;
    }
    case EventKind::linked: {
      reparent(touch(e.actor), e.peer);
      push_recent(e);
      break;
    }
    case EventKind::unlinked: {
      ActorRecord& a = touch(e.actor);
      if (a.parent == e.peer) detach_from_parent(a);
      push_recent(e);
      break;
    }
    case EventKind::supervision_delivered:
      ++touch(e.actor).supervision_handled;
      push_recent(e);
      break;
    case EventKind::group_joined:
      if (const ActorRecord* a = actor(e.actor); a == nullptr || a->alive()) groups_[e.text][e.name].insert(e.actor);
      push_recent(e);
      break;
    case EventKind::group_left: {
      auto s = groups_.find(e.text);
      if (s != groups_.end()) {
        auto g = s->second.find(e.name);
        if (g != s->second.end()) {
          g->second.erase(e.actor);
          if (g->second.empty()) s->second.erase(g);
        }
        if (s->second.empty()) groups_.erase(s);
      }
      push_recent(e);
      break;
    }
    case EventKind::name_registered:
      registry_[e.name] = e.actor;
      push_recent(e);
      break;
    case EventKind::name_unregistered:
      if (auto it = registry_.find(e.name); it != registry_.end() && it->second == e.actor) registry_.erase(it);
      push_recent(e);
      break;
    case EventKind::timer_started: {
      TimerRecord& t = timers_[e.trace];
      t.id = e.trace;
      t.target = e.actor;
      t.owner = e.peer;
      t.kind = e.name;
      t.period = e.period;
      t.started = e.time;
      t.next_due = e.scheduled;
      push_recent(e);
      break;
    }
    case EventKind::timer_fired: {
      if (const ActorRecord* target = actor(e.actor); target == nullptr || target->alive())
        pending_ticks_[e.actor] = {e.trace, e.time};
      auto it = timers_.find(e.trace);
      if (it != timers_.end()) {
        TimerRecord& t = it->second;
        ++t.fired;
        t.lateness_ns.record(static_cast<std::uint64_t>(std::max<std::int64_t>(0, to_ns(e.time - e.scheduled))));
        if (t.period > Duration::zero()) {
          t.next_due = e.scheduled + t.period;
        } else {
          timers_.erase(it);
        }
      }
      break;  // firings are too many for the event log; the timers view shows them
    }
    case EventKind::timer_cancelled:
      timers_.erase(e.trace);
      push_recent(e);
      break;
    case EventKind::runtime_info:
      runtime_ = e.name;
      threads_ = e.thread;
      push_recent(e);
      break;
    case EventKind::supervisor_configured:
      configure_supervisor(e);
      push_recent(e);
      break;
    case EventKind::child_restarted:
      restart_child(e);
      push_recent(e);
      break;
    case EventKind::mailbox_configured: {
      ActorRecord& a = touch(e.actor);
      a.mailbox_capacity = e.thread;
      // (A policy this build does not know, from a newer one, leaves the default: the capacity is
      // what the views show most.)
      if (const auto policy = overflow_from_string(e.name)) a.overflow = *policy;
      push_recent(e);
      break;
    }
    case EventKind::factory_configured: {
      FactoryRecord& f = touch_factory(e.actor);
      f.routing = e.name;
      f.pool_size = e.thread;
      f.settings_text = e.text;
      f.settings = FactoryRecord::parse_settings(e.text);
      f.configured = e.time;
      push_recent(e);
      break;
    }
    case EventKind::worker_stuck: {
      FactoryRecord& f = touch_factory(e.peer);
      ++f.stuck_reports;
      push_bounded(f.recent_stuck, FactoryRecord::Stuck{e.time, e.actor, e.thread, e.name, e.period, e.failed},
                   limits_.failures_per_actor);
      push_recent(e);
      break;
    }
    case EventKind::supervisor_gave_up: {
      SupervisorRecord& sup = supervisors_[e.actor];
      sup.id = e.actor;
      sup.gave_up = e.time;
      sup.gave_up_reason = e.text;
      sup.gave_up_restarts = e.thread;
      push_recent(e);
      break;
    }
  }
  return true;
}

void SystemState::apply(const StatsSample& s, StatsUndo& undo) {
  if (!undo.begun) {
    undo.begun = true;
    undo.time = time_;
    undo.dropped = dropped_;
  }
  if (const auto it = actors_.find(s.actor); it != actors_.end()) {
    const ActorRecord& a = it->second;
    StatsUndo::Change c;
    c.actor = a.id;
    c.counters = a.counters();
    c.busy = a.busy;
    const std::size_t before = a.history.size();
    if (!a.history.empty()) c.back = a.history.back();
    const auto front = a.history.begin();
    // apply() pushes a point when the sample's bucket is past the back one (popping from the
    // front beyond the limit), else adds to the back one: note which, and what a push pops.
    const auto bucket_len = std::max<std::int64_t>(1, to_ns(limits_.history_bucket));
    c.pushed = a.history.empty() || a.history.back().bucket < to_ns(s.end) / bucket_len;
    if (c.pushed) {
      const std::size_t pops = before + 1 > limits_.history_points ? before + 1 - limits_.history_points : 0;
      c.popped.assign(front, front + static_cast<std::ptrdiff_t>(std::min(pops, before)));
    }
    undo.changes.push_back(std::move(c));
  }
  apply(s);
}

void SystemState::add_dropped(std::uint64_t events, StatsUndo& undo) {
  if (!undo.begun) {
    undo.begun = true;
    undo.time = time_;
    undo.dropped = dropped_;
  }
  add_dropped(events);
}

void SystemState::undo(StatsUndo& undo) {
  for (auto c = undo.changes.rbegin(); c != undo.changes.rend(); ++c) {
    ActorRecord& a = actors_.at(c->actor);
    a.counters() = c->counters;
    a.busy = c->busy;
    if (c->pushed) {
      if (!a.history.empty()) a.history.pop_back();  // (none kept when the limit is 0 points)
      a.history.insert(a.history.begin(), c->popped.begin(), c->popped.end());
    } else {
      a.history.back() = c->back;
    }
  }
  if (undo.begun) {
    time_ = undo.time;
    dropped_ = undo.dropped;
  }
  undo = {};
}

void SystemState::apply(const StatsSample& s) {
  if (s.end > time_) time_ = s.end;
  auto it = actors_.find(s.actor);
  if (it == actors_.end()) return;  // its spawn was not seen (dropped, or pruned): nothing to attach to
  ActorRecord& a = it->second;
  a.add(s);
  if (a.alive()) {
    a.mailbox_depth = s.mailbox_depth;
    a.busy = s.busy;
  }

  const auto bucket_len = std::max<std::int64_t>(1, to_ns(limits_.history_bucket));
  const std::int64_t bucket = to_ns(s.end) / bucket_len;
  if (a.history.empty() || a.history.back().bucket < bucket) {
    a.history.push_back({bucket, s.handled, s.mailbox_max, s.dropped, s.rejected});
    while (a.history.size() > limits_.history_points) a.history.pop_front();
  } else {
    auto& h = a.history.back();
    h.handled += s.handled;
    h.mailbox_max = std::max(h.mailbox_max, s.mailbox_max);
    h.dropped += s.dropped;
    h.rejected += s.rejected;
  }
}

void SystemState::apply(const FactorySample& s) {
  if (s.end > time_) time_ = s.end;
  if (!s.factory.is_valid()) return;
  FactoryRecord& f = touch_factory(s.factory);
  f.add(s);
  if (const ActorRecord* a = actor(s.factory); a != nullptr && !a->alive()) {
    f.queue_depth = 0;  // (its final counters: nothing waits in a factory that ended)
    f.busy_workers = 0;
  }

  const auto bucket_len = std::max<std::int64_t>(1, to_ns(limits_.history_bucket));
  const std::int64_t bucket = to_ns(s.end) / bucket_len;
  if (f.history.empty() || f.history.back().bucket < bucket) {
    FactoryRecord::HistoryPoint h;
    h.bucket = bucket;
    f.history.push_back(h);
    while (f.history.size() > limits_.history_points) f.history.pop_front();
    if (f.history.empty()) return;  // (none kept when the limit is 0 points)
  }
  auto& h = f.history.back();
  h.queue_depth = f.queue_depth;
  h.queue_max = std::max({h.queue_max, s.queue_max, s.queue_depth});
  h.busy_workers = f.busy_workers;
  h.workers = s.workers;
  h.dispatched += s.dispatched;
  h.completed += s.completed;
  for (std::size_t r = 0; r < kDiscardReasonCount; ++r) h.discarded[r] += s.discarded(static_cast<DiscardReason>(r));
}

}  // namespace actorscope::observe
