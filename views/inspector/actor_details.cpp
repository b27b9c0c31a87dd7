// Gathering an actor's details.
#include "inspector/actor_details.hpp"

#include "common/actor_metrics.hpp"

#include <algorithm>

namespace actorscope::views {

std::optional<ActorDetails> inspect(const observe::SystemState& state, ActorId id) {
  const observe::ActorRecord* a = state.actor(id);
  if (a == nullptr) return std::nullopt;
  auto link = [&](ActorId who) {
    ActorDetails::Link l;
    l.id = who;
    if (const observe::ActorRecord* r = state.actor(who)) {
      l.name = displayName(*r);
      l.health = healthOf(*r);
    } else {
      l.name = "actor " + who.to_string();
      l.health = Health::stopped;
    }
    return l;
  };

  ActorDetails d;
  d.id = id;
  d.name = displayName(*a);
  for (const auto& [name, who] : state.registry())
    if (who == id) d.registered = name;
  if (d.registered.empty() && a->alive()) d.registered = a->name;
  d.type = a->type_name;
  d.health = healthOf(*a);
  d.exitReason = a->exit_reason;
  d.thread = a->thread;
  d.spawned = a->spawned;
  d.stopped = a->stopped;
  d.origin = state.first_time();
  if (a->parent.is_valid()) d.parent = link(a->parent);
  // Live children first (in link order), then the ones that exited, latest exit first.
  std::vector<std::pair<TimePoint, ActorId>> exited;
  for (ActorId c : a->children) {
    const observe::ActorRecord* r = state.actor(c);
    if (r && r->alive()) {
      d.children.push_back(link(c));
      ++d.aliveChildren;
    } else {
      exited.emplace_back(r ? r->stopped : TimePoint{}, c);
    }
  }
  std::stable_sort(exited.begin(), exited.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (const auto& [t, c] : exited) d.children.push_back(link(c));
  d.childId = a->child_id;
  d.restarts = a->restarts;
  if (const observe::SupervisorRecord* s = state.supervisor(id); s != nullptr && !s->strategy.empty()) {
    ActorDetails::Supervision sv;
    sv.strategy = s->strategy;
    sv.intensity = intensityText(*s, state.time());
    sv.recentRestarts = s->restarts_within_period(state.time());
    sv.maxRestarts = s->max_restarts;
    sv.period = s->period;
    sv.backoff = s->backoff;
    sv.totalRestarts = s->total_restarts;
    sv.gaveUp = s->gave_up;
    sv.gaveUpReason = s->gave_up_reason;
    for (const auto& c : s->children) {
      ActorDetails::ChildSpec spec{c.id, c.restart, c.shutdown, c.supervisor, std::nullopt, 0};
      if (c.actor.is_valid()) {
        spec.actor = link(c.actor);
        if (const observe::ActorRecord* r = state.actor(c.actor)) spec.restarts = r->restarts;
      }
      sv.children.push_back(std::move(spec));
    }
    d.supervision = std::move(sv);
  }
  if (const observe::FactoryRecord* f = state.factory(id)) d.factory = factoryRow(state, id, *f);
  if (a->parent.is_valid() && state.factory(a->parent) != nullptr) d.workerOf = link(a->parent);
  d.groups = state.groups_of(id);
  for (const auto& [tid, t] : state.timers()) {
    if (t.target != id && t.owner != id) continue;
    d.timers.push_back({tid, t.kind, t.period, t.fired, t.owner == id});
  }

  d.handled = a->handled;
  d.sent = a->sent;
  d.mailbox = a->alive() ? a->mailbox_depth : 0;
  d.mailboxMax = a->mailbox_max;
  d.capacity = a->mailbox_capacity;
  d.overflow = a->overflow;
  d.dropped = a->dropped;
  d.rejected = a->rejected;
  d.rate = messagesPerSecond(state, *a);
  d.timed = a->timed;
  d.queueTotal = a->queue_time;
  d.handlingTotal = a->handling_time;
  if (d.timed > 0) {
    d.queueMean = d.queueTotal / static_cast<std::int64_t>(d.timed);
    d.handlingMean = d.handlingTotal / static_cast<std::int64_t>(d.timed);
  }
  d.queue = a->queue_ns;
  d.handling = a->handling_ns;

  // History: buckets with no sample had nothing to report (no messages, empty mailbox).
  const std::int64_t bucketNs = std::max<std::int64_t>(1, observe::to_ns(state.limits().history_bucket));
  const int slotCount = static_cast<int>(std::max<std::size_t>(2, state.limits().history_points));
  std::int64_t last = observe::to_ns(state.time()) / bucketNs;
  // The bucket in progress has no sample until its poll: it is not known yet, not empty, so the
  // charts end at the last bucket that has one (drawn as zero it dropped to the floor at the right
  // edge between polls). Older buckets without a sample are zeros: the actor was quiet.
  if (a->history.empty() || a->history.back().bucket < last) --last;
  const std::int64_t first = last - slotCount + 1;
  d.historySlots = slotCount;
  d.mailboxHistory.assign(static_cast<std::size_t>(slotCount), 0.0);
  d.rateHistory.assign(static_cast<std::size_t>(slotCount), 0.0);
  const double perSecond = 1e9 / static_cast<double>(bucketNs);
  for (const auto& h : a->history) {
    if (h.bucket < first || h.bucket > last) continue;
    const auto i = static_cast<std::size_t>(h.bucket - first);
    d.mailboxHistory[i] = static_cast<double>(h.mailbox_max);
    d.rateHistory[i] = static_cast<double>(h.handled) * perSecond;
  }
  // Messages are handled in bursts, so single 100 ms buckets jump between 0 and a peak: show a
  // trailing average over half a second, which reads as a rate.
  {
    std::vector<double> smooth(d.rateHistory.size(), 0.0);
    double sum = 0;
    constexpr std::size_t kSpan = 5;
    for (std::size_t i = 0; i < d.rateHistory.size(); ++i) {
      sum += d.rateHistory[i];
      if (i >= kSpan) sum -= d.rateHistory[i - kSpan];
      smooth[i] = sum / static_cast<double>(std::min(i + 1, kSpan));
    }
    d.rateHistory = std::move(smooth);
  }
  // An actor that started recently has no history before its spawn: do not draw zeros there.
  const std::int64_t born = observe::to_ns(a->spawned) / bucketNs;
  if (born > first) {
    const auto skip = static_cast<std::size_t>(std::min<std::int64_t>(born - first, slotCount - 1));
    d.mailboxHistory.erase(d.mailboxHistory.begin(), d.mailboxHistory.begin() + static_cast<std::ptrdiff_t>(skip));
    d.rateHistory.erase(d.rateHistory.begin(), d.rateHistory.begin() + static_cast<std::ptrdiff_t>(skip));
  }

  for (auto it = a->recent_failures.rbegin(); it != a->recent_failures.rend(); ++it)
    d.failures.push_back({it->time, link(it->actor), it->error});
  return d;
}

}  // namespace actorscope::views
