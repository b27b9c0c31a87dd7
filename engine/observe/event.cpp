// Names of event kinds and lanes (the recording format's words), the events' named constructors,
// and the string pool.
#include <actorscope/detail/system_core.hpp>
#include <actorscope/observe/event.hpp>
#include <actorscope/observe/observer.hpp>

#include <mutex>
#include <string>
#include <unordered_set>

namespace actorscope::observe {

namespace {
constexpr std::array<std::string_view, kEventKindCount> kKindNames = {
    "spawned",         "started",      "stopped",      "failed",          "killed",
    "message_sent",    "message_handled", "linked",    "unlinked",        "supervision_delivered",
    "group_joined",    "group_left",   "name_registered", "name_unregistered", "timer_started",
    "timer_fired",     "timer_cancelled", "runtime_info", "supervisor_configured", "child_restarted",
    "supervisor_gave_up", "mailbox_configured", "factory_configured", "worker_stuck",
};
constexpr std::array<std::string_view, 4> kLaneNames = {"signal", "stop", "supervision", "message"};
}  // namespace

std::string_view to_string(EventKind kind) noexcept {
  const auto i = static_cast<std::size_t>(kind);
  return i < kKindNames.size() ? kKindNames[i] : std::string_view("unknown");
}

std::optional<EventKind> event_kind_from_string(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == name) return static_cast<EventKind>(i);
  return std::nullopt;
}

std::string_view to_string(Lane lane) noexcept {
  const auto i = static_cast<std::size_t>(lane);
  return i < kLaneNames.size() ? kLaneNames[i] : std::string_view("unknown");
}

std::optional<Lane> lane_from_string(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kLaneNames.size(); ++i)
    if (kLaneNames[i] == name) return static_cast<Lane>(i);
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Named constructors (their meaning is documented at the declarations)

Event Event::spawned(ActorId actor, ActorId supervisor, std::string name, std::string type,
                     std::uint32_t host) noexcept {
  Event e;
  e.kind = EventKind::spawned;
  e.actor = actor;
  e.peer = supervisor;
  e.name = std::move(name);
  e.text = std::move(type);
  e.thread = host;
  return e;
}

Event Event::started(ActorId actor, std::uint32_t host) noexcept {
  Event e;
  e.kind = EventKind::started;
  e.actor = actor;
  e.thread = host;
  return e;
}

namespace {
Event exit_event(EventKind kind, Lane lane, ActorId actor, std::string text) noexcept {
  Event e;
  e.kind = kind;
  e.lane = lane;
  e.actor = actor;
  e.text = std::move(text);
  return e;
}
}  // namespace

Event Event::stopped(ActorId actor, std::string reason) noexcept {
  return exit_event(EventKind::stopped, Lane::stop, actor, std::move(reason));
}

Event Event::failed_with(ActorId actor, std::string error) noexcept {
  return exit_event(EventKind::failed, Lane::stop, actor, std::move(error));
}

Event Event::killed(ActorId actor, std::string reason) noexcept {
  return exit_event(EventKind::killed, Lane::signal, actor, std::move(reason));
}

Event Event::message_sent(ActorId sender, ActorId receiver, std::uint64_t trace, std::uint64_t cause,
                          std::string_view message_type, TimePoint time) noexcept {
  Event e;
  e.kind = EventKind::message_sent;
  e.lane = Lane::message;
  e.time = time;
  e.actor = sender;
  e.peer = receiver;
  e.trace = trace;
  e.cause = cause;
  e.message_type = message_type;
  return e;
}

Event Event::message_handled(ActorId handler, ActorId sender, std::uint64_t trace, std::string_view message_type,
                             std::uint32_t host, bool failed, std::optional<Handling> timing) noexcept {
  Event e;
  e.kind = EventKind::message_handled;
  e.lane = Lane::message;
  e.failed = failed;
  e.actor = handler;
  e.peer = sender;
  e.trace = trace;
  e.thread = host;
  e.message_type = message_type;
  if (timing) {
    e.timed = true;
    e.time = timing->ended;
    e.queue = timing->queue;
    e.handling = timing->handling;
  }
  return e;
}

Event Event::linked(ActorId child, ActorId supervisor) noexcept {
  Event e;
  e.kind = EventKind::linked;
  e.actor = child;
  e.peer = supervisor;
  return e;
}

Event Event::unlinked(ActorId child, ActorId supervisor) noexcept {
  Event e;
  e.kind = EventKind::unlinked;
  e.actor = child;
  e.peer = supervisor;
  return e;
}

Event Event::supervision_delivered(ActorId supervisor, ActorId about, std::string description) noexcept {
  Event e;
  e.kind = EventKind::supervision_delivered;
  e.lane = Lane::supervision;
  e.actor = supervisor;
  e.peer = about;
  e.text = std::move(description);
  return e;
}

Event Event::group_joined(ActorId member, std::string group, std::string scope) noexcept {
  Event e;
  e.kind = EventKind::group_joined;
  e.actor = member;
  e.name = std::move(group);
  e.text = std::move(scope);
  return e;
}

Event Event::group_left(ActorId member, std::string group, std::string scope) noexcept {
  Event e = group_joined(member, std::move(group), std::move(scope));
  e.kind = EventKind::group_left;
  return e;
}

Event Event::name_registered(ActorId actor, std::string name) noexcept {
  Event e;
  e.kind = EventKind::name_registered;
  e.actor = actor;
  e.name = std::move(name);
  return e;
}

Event Event::name_unregistered(ActorId actor, std::string name) noexcept {
  Event e = name_registered(actor, std::move(name));
  e.kind = EventKind::name_unregistered;
  return e;
}

Event Event::timer_started(ActorId target, ActorId owner, std::uint64_t timer_id, std::string kind, Duration period,
                           TimePoint first_due) noexcept {
  Event e;
  e.kind = EventKind::timer_started;
  e.actor = target;
  e.peer = owner;
  e.trace = timer_id;
  e.name = std::move(kind);
  e.period = period;
  e.scheduled = first_due;
  return e;
}

Event Event::timer_fired(ActorId target, std::uint64_t timer_id, std::string kind, TimePoint due) noexcept {
  Event e;
  e.kind = EventKind::timer_fired;
  e.actor = target;
  e.trace = timer_id;
  e.name = std::move(kind);
  e.scheduled = due;
  return e;
}

Event Event::timer_cancelled(ActorId target, std::uint64_t timer_id, std::string kind, std::string why) noexcept {
  Event e;
  e.kind = EventKind::timer_cancelled;
  e.actor = target;
  e.trace = timer_id;
  e.name = std::move(kind);
  e.text = std::move(why);
  return e;
}

Event Event::runtime_info(std::string runtime, std::uint32_t threads) noexcept {
  Event e;
  e.kind = EventKind::runtime_info;
  e.name = std::move(runtime);
  e.thread = threads;
  return e;
}

Event Event::supervisor_configured(ActorId supervisor, std::string strategy, std::uint32_t max_restarts,
                                   Duration period, std::string specs) noexcept {
  Event e;
  e.kind = EventKind::supervisor_configured;
  e.actor = supervisor;
  e.name = std::move(strategy);
  e.thread = max_restarts;
  e.period = period;
  e.text = std::move(specs);
  return e;
}

Event Event::child_restarted(ActorId new_actor, ActorId old_actor, std::string child_id, std::string why,
                             std::uint32_t attempt, Duration delay, bool start_failed) noexcept {
  Event e;
  e.kind = EventKind::child_restarted;
  e.lane = Lane::supervision;
  e.actor = new_actor;
  e.peer = old_actor;
  e.name = std::move(child_id);
  e.text = std::move(why);
  e.thread = attempt;
  e.period = delay;
  e.failed = start_failed;
  return e;
}

Event Event::supervisor_gave_up(ActorId supervisor, std::uint32_t restarts, Duration period,
                                std::string reason) noexcept {
  Event e;
  e.kind = EventKind::supervisor_gave_up;
  e.lane = Lane::supervision;
  e.actor = supervisor;
  e.thread = restarts;
  e.period = period;
  e.text = std::move(reason);
  return e;
}

Event Event::mailbox_configured(ActorId actor, std::uint32_t capacity, std::string overflow) noexcept {
  Event e;
  e.kind = EventKind::mailbox_configured;
  e.actor = actor;
  e.thread = capacity;
  e.name = std::move(overflow);
  return e;
}

Event Event::factory_configured(ActorId factory, std::string routing, std::uint32_t workers,
                                std::string settings) noexcept {
  Event e;
  e.kind = EventKind::factory_configured;
  e.actor = factory;
  e.thread = workers;
  e.name = std::move(routing);
  e.text = std::move(settings);
  return e;
}

Event Event::worker_stuck(ActorId worker, ActorId factory, std::uint32_t worker_id, std::string key,
                          Duration running, bool killed) noexcept {
  Event e;
  e.kind = EventKind::worker_stuck;
  e.lane = Lane::supervision;
  e.actor = worker;
  e.peer = factory;
  e.thread = worker_id;
  e.name = std::move(key);
  e.period = running;
  e.failed = killed;
  return e;
}

// ---------------------------------------------------------------------------------------------
// Observer and the string pool

Observer::~Observer() { detach_all(); }

void Observer::detach_all() noexcept {
  std::vector<detail::SystemCore*> systems;
  {
    std::lock_guard lk(systems_m_);
    systems = systems_;
  }
  // SystemCore::detach takes its own lock first and then ours (to forget the link), so ours must
  // not be held here.
  for (detail::SystemCore* s : systems) s->detach(*this);
}

std::string_view intern(std::string_view text) {
  if (text.empty()) return {};
  // Never destroyed: the views it hands out must outlive every static that holds one.
  static std::mutex* m = new std::mutex;
  static auto* pool = new std::unordered_set<std::string>;
  std::lock_guard lk(*m);
  return *pool->emplace(text).first;
}

}  // namespace actorscope::observe
