// Where the engine core builds and publishes its observation events: the hooks of the actor
// lifecycle (CellCore) and of the System (spawn, names, links), delivery to the attached observers,
// and the present that an observer attaching to a running System hears first. The lifecycle code
// only decides that something happened and calls in here; what each event carries is said once, by
// the named constructors of observe::Event. (Timers and process groups emit theirs beside the
// lock that orders them: see timers.cpp and process_groups.cpp.)
//
// Every function here is reached only when an observer is attached: its call site tests
// SystemCore::observing() first, so that a System nobody watches pays one relaxed load per hook.
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/spin_wait.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/observe/event.hpp>
#include <actorscope/observe/observer.hpp>
#include <actorscope/supervision_event.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace actorscope::detail {

namespace {
// A copy of `s`, or "" when there is no memory for it: a hook must not throw, and the event still
// counts without its words.
std::string copy_or_empty(std::string_view s) noexcept {
  try {
    return std::string(s);
  } catch (...) {
    return {};
  }
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// The actor's own hooks (on the thread that runs it, or the sender's for note_send)

void CellCore::note_send(MessageNode& n, std::uint8_t obs, std::string_view type) noexcept {
  CellCore* sender = current_;
  n.sender = sender != nullptr ? sender->id_.pid : 0;
  // One message in `every` per receiver is sampled: it becomes a pair of events, and with sampled
  // timing it is the only one timed. Offset by the actor's id, so that actors receiving at the
  // same pace (a ring, a pool) are not all sampled in the same instant: the sampled stream stays
  // smooth instead of coming in bursts.
  bool sampled = true;
  if ((obs & (kMessages | kSampledTiming)) != 0) {
    const std::uint32_t every = sys_.sample_every();
    sampled = every <= 1 || (received() + id_.pid) % every == 0;
  }
  // A message timed here (enqueued_ns set) is timed when it is handled too.
  const bool timing = (obs & kTiming) != 0 || ((obs & kSampledTiming) != 0 && sampled);
  TimePoint now{};
  if (timing) {
    now = runtime_.now();
    n.enqueued_ns = observe::to_ns(now);
  }
  if ((obs & kMessages) == 0 || kind_ != CellKind::actor || !sampled) return;
  n.trace = sys_.next_trace();
  // What the sender was handling: the message in flight on its drain (a coroutine handler that
  // resumed is still handling it), unless that is a supervision event.
  std::uint64_t cause = 0;
  if (sender != nullptr && sender->in_flight_ != nullptr && !sender->in_flight_is_supervision_)
    cause = static_cast<const MessageNode*>(sender->in_flight_)->trace;
  sys_.emit_event(observe::Event::message_sent(sender != nullptr ? sender->id_ : ActorId{}, id_, n.trace,
                                               cause, type, timing ? now : TimePoint{}));
}

void CellCore::observe_handled(bool failed) noexcept {
  const std::uint8_t obs = sys_.observing();
  auto& n = static_cast<MessageNode&>(*in_flight_);
  Timing* const t = (obs & (kTiming | kSampledTiming)) != 0 && n.enqueued_ns != 0
                        ? timing_.load(std::memory_order_relaxed)  // the drain's own store
                        : nullptr;
  std::optional<observe::Event::Handling> measured;
  if (t != nullptr && t->started != TimePoint{}) {
    const TimePoint end = runtime_.now();
    Duration queue = t->started - observe::time_from_ns(n.enqueued_ns);
    if (queue < Duration::zero()) queue = Duration::zero();
    measured = observe::Event::Handling{end, queue, end - t->started};
    // The exact statistics keep the totals of every timed message, sampled for events or not.
    bump(t->timed);
    bump(t->queue_ns, static_cast<std::uint64_t>(observe::to_ns(measured->queue)));
    bump(t->handling_ns, static_cast<std::uint64_t>(observe::to_ns(measured->handling)));
  }
  if (n.trace == 0 || (obs & kMessages) == 0 || kind_ != CellKind::actor) return;
  const std::string_view type = (obs & kTypeNames) != 0 ? message_type(n) : std::string_view{};
  sys_.emit_event(observe::Event::message_handled(id_, ActorId{0, n.sender}, n.trace, type,
                                                  home_.load(std::memory_order_relaxed),  // settled: we run
                                                  failed, measured));
}

void CellCore::observe_supervision(const SupervisionEvent& event) noexcept {
  if (kind_ != CellKind::actor) return;
  std::string description;
  try {
    description = event.describe();
  } catch (...) {  // no memory for the text: the event still counts
  }
  sys_.emit_event(observe::Event::supervision_delivered(id_, event.actor().id(), std::move(description)));
}

void CellCore::observe_started() noexcept {
  if (kind_ != CellKind::actor) return;
  // Settled by now: a home deferred at spawn is chosen before the first drain runs post_start.
  sys_.emit_event(observe::Event::started(id_, home_.load(std::memory_order_relaxed)));
}

void CellCore::observe_exit(ExitKind kind, const std::string& text) noexcept {
  if (kind_ != CellKind::actor) return;
  std::string words = copy_or_empty(text);
  switch (kind) {
    case ExitKind::stopped:
      return sys_.emit_event(observe::Event::stopped(id_, std::move(words)));
    case ExitKind::failed:
      return sys_.emit_event(observe::Event::failed_with(id_, std::move(words)));
    case ExitKind::killed:
      return sys_.emit_event(observe::Event::killed(id_, std::move(words)));
  }
}

// ---------------------------------------------------------------------------------------------
// The System's hooks (any thread)

void SystemCore::observe_spawned(const CellCore& cell, const CellCore* supervisor) noexcept {
  if (cell.kind() != CellKind::actor) return;
  emit_event(observe::Event::spawned(cell.id(), supervisor != nullptr ? supervisor->id() : ActorId{},
                                     copy_or_empty(cell.name()), copy_or_empty(cell.type_name()),
                                     cell.placement().host));
  // The name was registered before the spawn is told: say so right after it.
  if (!cell.name().empty())
    emit_event(observe::Event::name_registered(cell.id(), copy_or_empty(cell.name())));
  // A bounded mailbox says so once, after the spawn (an unbounded one, the common case, says nothing).
  if (cell.mailbox_capacity() != 0)
    emit_event(observe::Event::mailbox_configured(cell.id(), cell.mailbox_capacity(),
                                                  copy_or_empty(to_string(cell.overflow()))));
}

void SystemCore::observe_name_released(const CellCore& cell) noexcept {
  emit_event(observe::Event::name_unregistered(cell.id(), copy_or_empty(cell.name())));
}

void SystemCore::observe_link(const CellCore& child, const CellCore& parent, bool linked) noexcept {
  if (child.kind() != CellKind::actor) return;
  emit_event(linked ? observe::Event::linked(child.id(), parent.id())
                    : observe::Event::unlinked(child.id(), parent.id()));
}

// ---------------------------------------------------------------------------------------------
// Delivery

void SystemCore::emit_event(observe::Event& event) noexcept {
  if constexpr (!kObserve) return;
  for (;;) {
    ObserverSet* set = observer_set_.load(std::memory_order_seq_cst);
    if (set == nullptr) return;
    set->emitting.fetch_add(1, std::memory_order_seq_cst);
    // Pinned only if still published: detach swaps the set, then waits for its count to reach
    // zero, so an emitter that lost the race never calls an observer that is going away.
    if (observer_set_.load(std::memory_order_seq_cst) != set) {
      set->emitting.fetch_sub(1, std::memory_order_seq_cst);
      continue;
    }
    event.seq = event_seq_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (event.time == TimePoint{}) event.time = runtime_->now();
    for (observe::Observer* o : set->observers) o->on_event(event);
    set->emitting.fetch_sub(1, std::memory_order_seq_cst);
    return;
  }
}

void SystemCore::publish_observers(std::vector<observe::Observer*> list) {
  // The caller holds observers_m_.
  observe::Interest merged;
  bool first = true;
  for (observe::Observer* o : list) {
    const observe::Interest i = o->interest();
    merged = first ? i : merged.merged(i);
    first = false;
  }
  std::uint8_t flags = 0;
  if (!list.empty()) {
    flags = kObserved;
    if (merged.messages) flags |= kMessages;
    if (merged.timing) flags |= merged.time_sampled_only ? kSampledTiming : kTiming;
    if (merged.type_names) flags |= kTypeNames;
  }
  ObserverSet* next = nullptr;
  if (!list.empty()) {
    observer_sets_.push_back(std::make_unique<ObserverSet>());
    next = observer_sets_.back().get();
    next->observers = std::move(list);
  }
  obs_sample_.store(std::max<std::uint32_t>(1, merged.sample_every), std::memory_order_relaxed);
  if (next != nullptr) {
    // Attach: the set first, so a hook that sees the flags finds someone to tell.
    ObserverSet* old = observer_set_.exchange(next, std::memory_order_seq_cst);
    obs_flags_.store(flags, std::memory_order_seq_cst);
    if (old != nullptr)
      while (old->emitting.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
  } else {
    obs_flags_.store(0, std::memory_order_seq_cst);
    ObserverSet* old = observer_set_.exchange(nullptr, std::memory_order_seq_cst);
    if (old != nullptr)
      while (old->emitting.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
  }
}

// ---------------------------------------------------------------------------------------------
// Attaching and detaching

void SystemCore::attach(observe::Observer& observer) {
  if constexpr (!kObserve)
    throw std::logic_error(
        "actorscope: this build compiled observation out (ACTORSCOPE_WITH_OBSERVE=OFF); rebuild with it ON "
        "to attach "
        "an observer");
  std::lock_guard lk(observers_m_);
  std::vector<observe::Observer*> list;
  if (ObserverSet* cur = observer_set_.load(std::memory_order_acquire)) list = cur->observers;
  if (std::find(list.begin(), list.end(), &observer) != list.end())
    throw std::logic_error("actorscope: this observer is already attached to the System");
  observer.on_attach(owner_);  // may throw: nothing is attached yet
  try {
    list.push_back(&observer);
    {
      std::lock_guard olk(observer.systems_m_);
      observer.systems_.push_back(this);
    }
    publish_observers(std::move(list));
  } catch (...) {  // no memory: undo, so the observer hears on_detach for its on_attach
    {
      std::lock_guard olk(observer.systems_m_);
      std::erase(observer.systems_, this);
    }
    observer.on_detach(owner_);
    throw;
  }
  replay_present(observer);
}

void SystemCore::replay_present(observe::Observer& observer) {
  // For this observer only: it may arrive after live events about the same actors, which the fold
  // tolerates (spawned only fills in; statuses only move forward).
  auto send = [&](observe::Event e) {
    e.seq = event_seq_.fetch_add(1, std::memory_order_relaxed) + 1;
    e.time = runtime_->now();
    observer.on_event(e);
  };
  send(observe::Event::runtime_info(std::string(runtime_->name()), runtime_->thread_count()));

  // Copied under the structure lock, told after it: an observer may take its time.
  struct Present {
    ActorId id, parent;
    std::string name;
    std::string_view type;
    std::uint32_t host;
    bool running;
    std::uint32_t capacity;
    Overflow overflow;
  };
  std::vector<Present> present;
  {
    BriefLock slk(struct_m_);
    for (const CellCore& c : live_) {  // in spawn order
      if (c.kind() != CellKind::actor) continue;
      present.push_back({c.id(), c.parent_ != nullptr ? c.parent_->id() : ActorId{}, c.name(), c.type_name(),
                         c.placement().host, c.status() >= ActorStatus::running, c.mailbox_capacity(),
                         c.overflow()});
    }
  }
  for (Present& p : present) {
    send(observe::Event::spawned(p.id, p.parent, std::move(p.name), std::string(p.type), p.host));
    if (p.capacity != 0)
      send(observe::Event::mailbox_configured(p.id, p.capacity, std::string(to_string(p.overflow))));
    if (p.running) send(observe::Event::started(p.id, p.host));
  }
  std::vector<std::pair<std::string, ActorId>> names;
  {
    std::lock_guard nlk(names_m_);
    for (const auto& [name, cell] : names_) names.emplace_back(name, cell->id());
  }
  for (auto& [name, id] : names) send(observe::Event::name_registered(id, std::move(name)));
  for (const std::string& scope : groups_.scopes())
    for (const std::string& group : groups_.groups(scope))
      for (const ActorCell& member : groups_.members_scoped(scope, group))
        send(observe::Event::group_joined(member.id(), group, scope));
  // Who started a running timer is not kept: the replay says "outside an actor" (0).
  for (const Timers::Active& t : timers_.active())
    send(observe::Event::timer_started(t.target, ActorId{}, t.id, t.kind, t.period, t.next));
  std::vector<observe::Event> supervisors;
  {
    std::lock_guard lk(supervisors_m_);
    for (const SupervisorPresent& p : supervisors_) supervisors.push_back(p.event());
  }
  for (observe::Event& e : supervisors) send(std::move(e));
  for (observe::Event& e : factories_.configurations()) send(std::move(e));
}

observe::Event SystemCore::SupervisorPresent::event() const {
  observe::Event e = config;
  std::string text;
  for (std::size_t i = 0; i < children.size(); ++i) {
    text += children[i];
    text += '\t';
    text += std::to_string(i < actors.size() ? actors[i].pid : 0);
    text += '\n';
  }
  text += config.text;
  if (!text.empty() && text.back() == '\n') text.pop_back();
  e.text = std::move(text);
  return e;
}

void SystemCore::supervisor_configured(SupervisorPresent present) noexcept {
  try {
    observe::Event now = observing() != 0 ? present.event() : observe::Event{};
    {
      std::lock_guard lk(supervisors_m_);
      auto it = std::find_if(supervisors_.begin(), supervisors_.end(), [&](const SupervisorPresent& p) {
        return p.config.actor == present.config.actor;
      });
      if (it != supervisors_.end()) {
        *it = std::move(present);
      } else {
        supervisors_.push_back(std::move(present));
      }
    }
    if (now.kind == observe::EventKind::supervisor_configured) emit_event(now);
  } catch (...) {  // no memory: the configuration goes unseen, and the supervisor works on
  }
}

void SystemCore::supervisor_child_actor(ActorId supervisor, std::size_t index, ActorId actor) noexcept {
  std::lock_guard lk(supervisors_m_);
  for (SupervisorPresent& p : supervisors_)
    if (p.config.actor == supervisor && index < p.actors.size()) p.actors[index] = actor;
}

void SystemCore::supervisor_gone(ActorId supervisor) noexcept {
  std::lock_guard lk(supervisors_m_);
  std::erase_if(supervisors_, [&](const SupervisorPresent& p) { return p.config.actor == supervisor; });
}

bool SystemCore::detach(observe::Observer& observer) noexcept {
  std::lock_guard lk(observers_m_);
  ObserverSet* cur = observer_set_.load(std::memory_order_acquire);
  if (cur == nullptr) return false;
  std::vector<observe::Observer*> list = cur->observers;
  auto it = std::find(list.begin(), list.end(), &observer);
  if (it == list.end()) return false;
  list.erase(it);
  {
    std::lock_guard olk(observer.systems_m_);
    std::erase(observer.systems_, this);
  }
  try {
    publish_observers(std::move(list));
  } catch (...) {  // no memory for the smaller set: stop observing altogether rather than fail
    publish_observers({});
  }
  observer.on_detach(owner_);
  return true;
}

}  // namespace actorscope::detail
