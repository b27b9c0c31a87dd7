// SystemState: the fold of the event stream, and its keyframe image.
#include <actorscope/observe/observer.hpp>
#include <actorscope/observe/system_state.hpp>

#include <algorithm>
#include <cstring>

namespace actorscope::observe {

// ---------------------------------------------------------------------------------------------
// StatsBucketer

std::vector<StatsSample> StatsBucketer::update(const std::vector<ActorStats>& polled, TimePoint now) {
  std::vector<StatsSample> out;
  std::unordered_map<ActorId, Last> next;
  next.reserve(polled.size());
  // An actor can appear twice in one poll (alive when the live list was read, then final): each
  // entry is compared with the one before it.
  for (const ActorStats& s : polled) {
    Last last{};
    if (auto it = next.find(s.id); it != next.end()) {
      last = it->second;
    } else if (auto old = last_.find(s.id); old != last_.end()) {
      last = old->second;
    }
    const ActorStats& before = last.stats;
    StatsSample d;
    d.end = now;
    d.actor = s.id;
    d.handled = s.handled - std::min(before.handled, s.handled);
    d.sent = s.sent - std::min(before.sent, s.sent);
    d.timed = s.timed - std::min(before.timed, s.timed);
    d.queue_time = s.queue_time - std::min(before.queue_time, s.queue_time);
    d.handling_time = s.handling_time - std::min(before.handling_time, s.handling_time);
    d.mailbox_depth = s.mailbox_depth;
    d.mailbox_max = s.mailbox_max > before.mailbox_max ? s.mailbox_max : std::max(s.mailbox_depth, before.mailbox_depth);
    // The same hook still running since an earlier poll: it has held the thread since then.
    const bool same_hook = s.in_hook && before.in_hook && s.hook_runs == before.hook_runs;
    const TimePoint busy_since = s.in_hook ? (same_hook ? last.busy_since : now) : TimePoint{};
    if (s.in_hook) d.busy = now - busy_since;
    const bool moved = d.handled != 0 || d.sent != 0 || d.mailbox_depth != 0 || d.mailbox_max != 0 ||
                       d.timed != 0 || d.queue_time != Duration::zero() ||
                       d.handling_time != Duration::zero() || d.busy != Duration::zero();
    // A sample with busy zero once the hook returned, so that the fold's gauge falls back.
    if (moved || last.reported_busy) out.push_back(d);
    next[s.id] = Last{s, busy_since, d.busy != Duration::zero()};
  }
  last_ = std::move(next);
  return out;
}

void StatsBucketer::baseline(const std::vector<ActorStats>& polled) {
  last_.clear();
  last_.reserve(polled.size());
  for (const ActorStats& s : polled) {  // a later entry of an actor is the newer one
    Last l{s};
    l.stats.in_hook = false;  // since when a hook running now has run, this poll cannot say
    last_[s.id] = l;
  }
}

// ---------------------------------------------------------------------------------------------
// The fold

const ActorRecord* SystemState::actor(ActorId id) const noexcept {
  auto it = actors_.find(id);
  return it == actors_.end() ? nullptr : &it->second;
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

void SystemState::add_failure(ActorRecord& a, const FailureRecord& f) {
  a.recent_failures.push_back(f);
  while (a.recent_failures.size() > limits_.failures_per_actor) a.recent_failures.pop_front();
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

void SystemState::push_recent(const Event& e) {
  recent_events_.push_back(e);
  while (recent_events_.size() > limits_.recent_events) recent_events_.pop_front();
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
      if (e.peer.is_valid() && a.parent != e.peer && a.alive()) {
        detach_from_parent(a);
        a.parent = e.peer;
        ActorRecord& p = touch(e.peer);
        if (std::find(p.children.begin(), p.children.end(), a.id) == p.children.end()) p.children.push_back(a.id);
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
      recent_messages_.push_back(m);
      while (recent_messages_.size() > limits_.recent_messages) recent_messages_.pop_front();
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
        recent_messages_.push_back(r);
        while (recent_messages_.size() > limits_.recent_messages) recent_messages_.pop_front();
        m = &recent_messages_.back();
      }
      m->handled = e.time;
      m->queue = e.queue;
      m->handling = e.handling;
      m->failed = e.failed;
      break;
    }
    case EventKind::linked: {
      ActorRecord& a = touch(e.actor);
      if (a.parent != e.peer) {
        detach_from_parent(a);
        a.parent = e.peer;
        ActorRecord& p = touch(e.peer);
        if (std::find(p.children.begin(), p.children.end(), a.id) == p.children.end()) p.children.push_back(a.id);
      }
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
  }
  return true;
}

void SystemState::apply(const StatsSample& s) {
  if (s.end > time_) time_ = s.end;
  auto it = actors_.find(s.actor);
  if (it == actors_.end()) return;  // its spawn was not seen (dropped, or pruned): nothing to attach to
  ActorRecord& a = it->second;
  a.handled += s.handled;
  a.sent += s.sent;
  a.timed += s.timed;
  a.queue_time += s.queue_time;
  a.handling_time += s.handling_time;
  if (a.alive()) {
    a.mailbox_depth = s.mailbox_depth;
    a.busy = s.busy;
  }
  a.mailbox_max = std::max(a.mailbox_max, s.mailbox_max);

  const auto bucket_len = std::max<std::int64_t>(1, to_ns(limits_.history_bucket));
  const std::int64_t bucket = to_ns(s.end) / bucket_len;
  if (a.history.empty() || a.history.back().bucket < bucket) {
    a.history.push_back({bucket, s.handled, s.mailbox_max});
    while (a.history.size() > limits_.history_points) a.history.pop_front();
  } else {
    auto& h = a.history.back();
    h.handled += s.handled;
    h.mailbox_max = std::max(h.mailbox_max, s.mailbox_max);
  }
}

bool operator==(const SystemState& a, const SystemState& b) {
  return a.limits_ == b.limits_ && a.actors_ == b.actors_ && a.stopped_order_ == b.stopped_order_ &&
         a.alive_ == b.alive_ && a.groups_ == b.groups_ && a.registry_ == b.registry_ && a.timers_ == b.timers_ &&
         a.recent_events_ == b.recent_events_ && a.recent_messages_ == b.recent_messages_ &&
         a.pending_ticks_ == b.pending_ticks_ &&
         a.runtime_ == b.runtime_ && a.threads_ == b.threads_ && a.first_time_ == b.first_time_ &&
         a.time_ == b.time_ && a.applied_ == b.applied_ && a.by_kind_ == b.by_kind_ && a.dropped_ == b.dropped_;
}

// ---------------------------------------------------------------------------------------------
// Keyframe image: "ASKF", a format number, then the fields in a fixed order. Integers are LEB128
// varints (zigzag for signed ones), strings are a length and bytes.

namespace {

constexpr char kMagic[4] = {'A', 'S', 'K', 'F'};
// 2: ActorRecord::timed. 3: ActorRecord::child_tally and its limit. 4: ActorRecord::busy. 5:
// MessageRecord::timer and the pending timer ticks. 6: Event::cause of the recent events. Each
// format appends to the one before, and older images are still read.
constexpr std::uint64_t kImageFormat = 6;

class Writer {
 public:
  void u(std::uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  void i(std::int64_t v) { u((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63)); }
  void b(bool v) { u(v ? 1 : 0); }
  void s(std::string_view v) {
    u(v.size());
    out.append(v);
  }
  void id(ActorId v) {
    u(v.node);
    u(v.pid);
  }
  void t(TimePoint v) { i(to_ns(v)); }
  void d(Duration v) { i(to_ns(v)); }
  void hist(const LogHistogram& h) {
    u(h.buckets().size());
    for (std::uint64_t c : h.buckets()) u(c);
    u(h.min());
    u(h.max());
    u(h.sum());
  }
  void event(const Event& e) {
    u(static_cast<std::uint64_t>(e.kind));
    u(static_cast<std::uint64_t>(e.lane));
    b(e.failed);
    b(e.timed);
    u(e.thread);
    u(e.seq);
    t(e.time);
    id(e.actor);
    id(e.peer);
    u(e.trace);
    d(e.queue);
    d(e.handling);
    d(e.period);
    t(e.scheduled);
    s(e.message_type);
    s(e.name);
    s(e.text);
  }
  std::string out;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  std::uint64_t u() {
    std::uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (pos_ >= in_.size()) fail("it ends in the middle of a number");
      if (shift > 63) fail("a number is too long");
      const auto byte = static_cast<unsigned char>(in_[pos_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return v;
    }
  }
  std::int64_t i() {
    const std::uint64_t z = u();
    return static_cast<std::int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  bool b() {
    const std::uint64_t v = u();
    if (v > 1) fail("a flag is neither 0 nor 1");
    return v == 1;
  }
  std::uint64_t count(std::uint64_t max = 1u << 26) {
    const std::uint64_t n = u();
    if (n > max || n > in_.size() - pos_ + 1) fail("a count is larger than the image");
    return n;
  }
  std::string s() {
    const std::uint64_t n = u();
    if (n > in_.size() - pos_) fail("a string runs past the end");
    std::string v(in_.substr(pos_, n));
    pos_ += n;
    return v;
  }
  ActorId id() {
    ActorId v;
    const std::uint64_t node = u();
    if (node > 0xffffffffu) fail("an actor id's node is out of range");
    v.node = static_cast<std::uint32_t>(node);
    v.pid = u();
    return v;
  }
  TimePoint t() { return time_from_ns(i()); }
  Duration d() { return duration_from_ns(i()); }
  template <class E>
  E e(std::uint64_t count_of_values) {
    const std::uint64_t v = u();
    if (v >= count_of_values) fail("an enumeration value is out of range");
    return static_cast<E>(v);
  }
  LogHistogram hist() {
    std::vector<std::uint64_t> buckets(count(4096));
    for (auto& c : buckets) c = u();
    const std::uint64_t mn = u(), mx = u(), sum = u();
    return LogHistogram::from_parts(std::move(buckets), mn, mx, sum);
  }
  Event event() {
    Event ev;
    ev.kind = e<EventKind>(kEventKindCount);
    ev.lane = e<Lane>(4);
    ev.failed = b();
    ev.timed = b();
    ev.thread = static_cast<std::uint32_t>(u());
    ev.seq = u();
    ev.time = t();
    ev.actor = id();
    ev.peer = id();
    ev.trace = u();
    ev.queue = d();
    ev.handling = d();
    ev.period = d();
    ev.scheduled = t();
    ev.message_type = intern(s());
    ev.name = s();
    ev.text = s();
    return ev;
  }
  bool at_end() const noexcept { return pos_ == in_.size(); }
  [[noreturn]] void fail(const std::string& why) const {
    throw StateFormatError("the keyframe image is corrupt at byte " + std::to_string(pos_) + ": " + why);
  }

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string SystemState::serialize() const {
  Writer w;
  w.out.append(kMagic, sizeof kMagic);
  w.u(kImageFormat);
  w.u(limits_.stopped_actors);
  w.u(limits_.recent_events);
  w.u(limits_.recent_messages);
  w.u(limits_.failures_per_actor);
  w.u(limits_.history_points);
  w.d(limits_.history_bucket);

  w.u(actors_.size());
  for (const auto& [id, a] : actors_) {
    w.id(a.id);
    w.id(a.parent);
    w.u(a.children.size());
    for (ActorId c : a.children) w.id(c);
    w.s(a.name);
    w.s(a.type_name);
    w.u(a.thread);
    w.u(static_cast<std::uint64_t>(a.status));
    w.u(a.exit_kind ? static_cast<std::uint64_t>(*a.exit_kind) + 1 : 0);
    w.s(a.exit_reason);
    w.t(a.spawned);
    w.t(a.stopped);
    w.u(a.handled);
    w.u(a.sent);
    w.u(a.mailbox_depth);
    w.u(a.mailbox_max);
    w.u(a.timed);
    w.d(a.queue_time);
    w.d(a.handling_time);
    w.u(a.child_failures);
    w.u(a.supervision_handled);
    w.u(a.messages_observed);
    w.u(a.handler_failures);
    w.hist(a.queue_ns);
    w.hist(a.handling_ns);
    w.u(a.recent_failures.size());
    for (const auto& f : a.recent_failures) {
      w.t(f.time);
      w.id(f.actor);
      w.s(f.error);
    }
    w.u(a.history.size());
    for (const auto& h : a.history) {
      w.i(h.bucket);
      w.u(h.handled);
      w.u(h.mailbox_max);
    }
  }
  w.u(stopped_order_.size());
  for (ActorId id : stopped_order_) w.id(id);
  w.u(alive_);
  w.u(groups_.size());
  for (const auto& [scope, groups] : groups_) {
    w.s(scope);
    w.u(groups.size());
    for (const auto& [group, members] : groups) {
      w.s(group);
      w.u(members.size());
      for (ActorId m : members) w.id(m);
    }
  }
  w.u(registry_.size());
  for (const auto& [name, id] : registry_) {
    w.s(name);
    w.id(id);
  }
  w.u(timers_.size());
  for (const auto& [tid, t] : timers_) {
    w.u(t.id);
    w.id(t.target);
    w.id(t.owner);
    w.s(t.kind);
    w.d(t.period);
    w.t(t.started);
    w.t(t.next_due);
    w.u(t.fired);
    w.hist(t.lateness_ns);
  }
  w.u(recent_events_.size());
  for (const Event& e : recent_events_) w.event(e);
  w.u(recent_messages_.size());
  for (const MessageRecord& m : recent_messages_) {
    w.u(m.trace);
    w.id(m.from);
    w.id(m.to);
    w.s(m.type);
    w.t(m.sent);
    w.b(m.handled.has_value());
    if (m.handled) w.t(*m.handled);
    w.d(m.queue);
    w.d(m.handling);
    w.b(m.failed);
  }
  w.s(runtime_);
  w.u(threads_);
  w.t(first_time_);
  w.t(time_);
  w.u(applied_);
  for (std::uint64_t c : by_kind_) w.u(c);
  w.u(dropped_);
  // Format 3 appends the child tallies (and their limit) to what format 2 had.
  w.d(limits_.child_tally);
  std::uint64_t tallied = 0;
  for (const auto& [id, a] : actors_) tallied += a.child_tally.empty() ? 0 : 1;
  w.u(tallied);
  for (const auto& [id, a] : actors_) {
    if (a.child_tally.empty()) continue;
    w.id(id);
    w.u(a.child_tally.size());
    for (const auto& c : a.child_tally) {
      w.t(c.bucket);
      w.u(c.failed);
      w.u(c.replacements);
    }
  }
  // Format 4 appends the actors that have a hook holding their thread, and for how long.
  std::uint64_t busy = 0;
  for (const auto& [id, a] : actors_) busy += a.busy != Duration::zero() ? 1 : 0;
  w.u(busy);
  for (const auto& [id, a] : actors_) {
    if (a.busy == Duration::zero()) continue;
    w.id(id);
    w.d(a.busy);
  }
  // Format 5 appends the messages timers delivered (by their place among the recent messages) and
  // the firings whose message has not been seen yet.
  std::uint64_t fromTimers = 0;
  for (const MessageRecord& m : recent_messages_) fromTimers += m.timer != 0 ? 1 : 0;
  w.u(fromTimers);
  for (std::size_t i = 0; i < recent_messages_.size(); ++i) {
    if (recent_messages_[i].timer == 0) continue;
    w.u(i);
    w.u(recent_messages_[i].timer);
  }
  w.u(pending_ticks_.size());
  for (const auto& [target, tick] : pending_ticks_) {
    w.id(target);
    w.u(tick.timer);
    w.t(tick.fired);
  }
  // Format 6 appends the causes of the recent events that have one (by their place).
  std::uint64_t caused = 0;
  for (const Event& e : recent_events_) caused += e.cause != 0 ? 1 : 0;
  w.u(caused);
  for (std::size_t i = 0; i < recent_events_.size(); ++i) {
    if (recent_events_[i].cause == 0) continue;
    w.u(i);
    w.u(recent_events_[i].cause);
  }
  return std::move(w.out);
}

SystemState SystemState::deserialize(std::string_view bytes) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw StateFormatError("not a SystemState keyframe image (it does not start with \"ASKF\")");
  Reader r(bytes.substr(sizeof kMagic));
  const std::uint64_t format = r.u();
  if (format > kImageFormat)
    throw StateFormatError("the keyframe image has format " + std::to_string(format) + ", but this build reads up to " +
                           std::to_string(kImageFormat) + ": open it with a newer Actorscope");
  Limits limits;
  limits.stopped_actors = r.u();
  limits.recent_events = r.u();
  limits.recent_messages = r.u();
  limits.failures_per_actor = r.u();
  limits.history_points = r.u();
  limits.history_bucket = r.d();
  SystemState st(limits);

  for (std::uint64_t n = r.count(); n > 0; --n) {
    ActorRecord a;
    a.id = r.id();
    a.parent = r.id();
    a.children.resize(r.count());
    for (auto& c : a.children) c = r.id();
    a.name = r.s();
    a.type_name = r.s();
    a.thread = static_cast<std::uint32_t>(r.u());
    a.status = r.e<ActorStatus>(6);
    if (const std::uint64_t k = r.u(); k > 3) {
      r.fail("an exit kind is out of range");
    } else if (k > 0) {
      a.exit_kind = static_cast<ExitKind>(k - 1);
    }
    a.exit_reason = r.s();
    a.spawned = r.t();
    a.stopped = r.t();
    a.handled = r.u();
    a.sent = r.u();
    a.mailbox_depth = r.u();
    a.mailbox_max = r.u();
    // Format 1 timed every message whenever it timed at all.
    a.timed = format >= 2 ? r.u() : 0;
    a.queue_time = r.d();
    a.handling_time = r.d();
    if (format < 2 && (a.queue_time != Duration::zero() || a.handling_time != Duration::zero()))
      a.timed = a.handled;
    a.child_failures = r.u();
    a.supervision_handled = r.u();
    a.messages_observed = r.u();
    a.handler_failures = r.u();
    a.queue_ns = r.hist();
    a.handling_ns = r.hist();
    for (std::uint64_t f = r.count(); f > 0; --f) {
      FailureRecord rec;
      rec.time = r.t();
      rec.actor = r.id();
      rec.error = r.s();
      a.recent_failures.push_back(std::move(rec));
    }
    for (std::uint64_t h = r.count(); h > 0; --h) {
      ActorRecord::HistoryPoint p;
      p.bucket = r.i();
      p.handled = r.u();
      p.mailbox_max = r.u();
      a.history.push_back(p);
    }
    const ActorId id = a.id;
    st.actors_.emplace(id, std::move(a));
  }
  for (std::uint64_t n = r.count(); n > 0; --n) st.stopped_order_.push_back(r.id());
  st.alive_ = r.u();
  for (std::uint64_t n = r.count(); n > 0; --n) {
    auto& groups = st.groups_[r.s()];
    for (std::uint64_t g = r.count(); g > 0; --g) {
      auto& members = groups[r.s()];
      for (std::uint64_t m = r.count(); m > 0; --m) members.insert(r.id());
    }
  }
  for (std::uint64_t n = r.count(); n > 0; --n) {
    std::string name = r.s();
    st.registry_[std::move(name)] = r.id();
  }
  for (std::uint64_t n = r.count(); n > 0; --n) {
    TimerRecord t;
    t.id = r.u();
    t.target = r.id();
    t.owner = r.id();
    t.kind = r.s();
    t.period = r.d();
    t.started = r.t();
    t.next_due = r.t();
    t.fired = r.u();
    t.lateness_ns = r.hist();
    const std::uint64_t id = t.id;
    st.timers_.emplace(id, std::move(t));
  }
  for (std::uint64_t n = r.count(); n > 0; --n) st.recent_events_.push_back(r.event());
  for (std::uint64_t n = r.count(); n > 0; --n) {
    MessageRecord m;
    m.trace = r.u();
    m.from = r.id();
    m.to = r.id();
    m.type = intern(r.s());
    m.sent = r.t();
    if (r.b()) m.handled = r.t();
    m.queue = r.d();
    m.handling = r.d();
    m.failed = r.b();
    st.recent_messages_.push_back(m);
  }
  st.runtime_ = r.s();
  st.threads_ = static_cast<std::uint32_t>(r.u());
  st.first_time_ = r.t();
  st.time_ = r.t();
  st.applied_ = r.u();
  for (auto& c : st.by_kind_) c = r.u();
  st.dropped_ = r.u();
  if (format >= 3) {
    st.limits_.child_tally = r.d();
    for (std::uint64_t n = r.count(); n > 0; --n) {
      const auto it = st.actors_.find(r.id());
      if (it == st.actors_.end()) r.fail("a child tally belongs to no actor of the image");
      for (std::uint64_t c = r.count(); c > 0; --c) {
        ActorRecord::ChildTally tally;
        tally.bucket = r.t();
        tally.failed = r.u();
        tally.replacements = r.u();
        it->second.child_tally.push_back(tally);
      }
    }
  } else {
    // Before format 3 only the latest few failures were kept: their count is the best there is.
    for (auto& [id, a] : st.actors_)
      for (const FailureRecord& f : a.recent_failures)
        if (f.actor != a.id) st.tally_child(a, f.time, true);
  }
  if (format >= 4) {
    for (std::uint64_t n = r.count(); n > 0; --n) {
      const auto it = st.actors_.find(r.id());
      if (it == st.actors_.end()) r.fail("a busy time belongs to no actor of the image");
      it->second.busy = r.d();
    }
  }
  if (format >= 5) {
    for (std::uint64_t n = r.count(); n > 0; --n) {
      const std::uint64_t at = r.u();
      if (at >= st.recent_messages_.size()) r.fail("a timer's message is not among the image's messages");
      st.recent_messages_[static_cast<std::size_t>(at)].timer = r.u();
    }
    for (std::uint64_t n = r.count(); n > 0; --n) {
      const ActorId target = r.id();
      PendingTick tick;
      tick.timer = r.u();
      tick.fired = r.t();
      st.pending_ticks_[target] = tick;
    }
  }
  if (format >= 6) {
    for (std::uint64_t n = r.count(); n > 0; --n) {
      const std::uint64_t at = r.u();
      if (at >= st.recent_events_.size()) r.fail("a cause belongs to no event of the image");
      st.recent_events_[static_cast<std::size_t>(at)].cause = r.u();
    }
  }
  if (!r.at_end()) r.fail("there are bytes after the end of the image");
  return st;
}

}  // namespace actorscope::observe
