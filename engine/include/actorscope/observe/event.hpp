// The one event vocabulary of the engine: everything the observatory shows, records and replays
// is a stream of these. An Event is a flat record; which fields mean what depends on its kind
// (see the table on EventKind), so that storage, export and the fold all read one shape.
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/actor_status.hpp>
#include <actorscope/runtime.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace actorscope::observe {

/// What happened. The names (to_string) are the `kind` values of a recording's events table and
/// never change once released. Each kind has a named constructor on Event that says the same per
/// field; the table is the overview.
///
/// | kind                  | actor            | peer               | name        | text                 | other fields |
/// |-----------------------|------------------|--------------------|-------------|----------------------|--------------|
/// | spawned               | the new actor    | its supervisor     | actor name  | actor type name      | thread (host, or `no_thread` until started) |
/// | started               | the actor        |                    |             |                      | thread (host) |
/// | stopped               | the actor        |                    |             | stop reason          | |
/// | failed                | the actor        |                    |             | error text           | |
/// | killed                | the actor        |                    |             | reason               | |
/// | message_sent          | sender (0 = not an actor) | receiver  |             |                      | lane, message_type, trace, cause |
/// | message_handled       | the handler      | sender             |             |                      | lane, message_type, trace, queue, handling, failed |
/// | linked / unlinked     | the child        | the supervisor     |             |                      | |
/// | supervision_delivered | the supervisor   | the actor it is about |          | description          | |
/// | group_joined / group_left | the member   |                    | group       | scope                | |
/// | name_registered / name_unregistered | the actor |             | the name    |                      | |
/// | timer_started         | the target actor | the owner (0 = outside) | timer kind | ""                 | trace = timer id, period, scheduled (first due) |
/// | timer_fired           | the target actor |                    | timer kind  |                      | trace = timer id, scheduled (when it was due); time = when it fired |
/// | timer_cancelled       | the target actor |                    | timer kind  | why it ended         | trace = timer id |
/// | runtime_info          |                  |                    | runtime name |                     | thread = worker threads |
/// | supervisor_configured | the supervisor   |                    | strategy    | its specs, one per line | thread = max_restarts, period = the intensity period |
/// | child_restarted       | the new actor (0 if its start failed) | the actor it replaces | child id | why it was restarted | thread = attempt, period = backoff delay, failed = the start failed |
/// | supervisor_gave_up    | the supervisor   |                    |             | the reason it fails with | thread = restarts in the period, period = the period |
/// | mailbox_configured    | the actor        |                    | overflow policy |                  | thread = mailbox capacity |
/// | factory_configured    | the factory      |                    | routing     | its settings, one per line | thread = pool size |
/// | worker_stuck          | the worker       | its factory        | job key     |                      | thread = worker id, period = how long the job had run, failed = killed to be replaced |
enum class EventKind : std::uint8_t {
  spawned,
  started,
  stopped,
  failed,
  killed,
  message_sent,
  message_handled,
  linked,
  unlinked,
  supervision_delivered,
  group_joined,
  group_left,
  name_registered,
  name_unregistered,
  timer_started,
  timer_fired,
  timer_cancelled,
  runtime_info,
  supervisor_configured,
  child_restarted,
  supervisor_gave_up,
  mailbox_configured,
  factory_configured,
  worker_stuck,
};
inline constexpr std::size_t kEventKindCount = static_cast<std::size_t>(EventKind::worker_stuck) + 1;

/// The snake_case name of a kind: "message_handled".
std::string_view to_string(EventKind kind) noexcept;
/// The kind with that name, or nullopt.
std::optional<EventKind> event_kind_from_string(std::string_view name) noexcept;

/// The mailbox lane a message travelled in, highest priority first.
enum class Lane : std::uint8_t { signal, stop, supervision, message };
std::string_view to_string(Lane lane) noexcept;
std::optional<Lane> lane_from_string(std::string_view name) noexcept;

/// Event::thread of an actor whose home is not chosen yet.
inline constexpr std::uint32_t no_thread = UINT32_MAX;

struct Event {
  EventKind kind = EventKind::runtime_info;
  Lane lane = Lane::message;
  /// message_handled: the handler threw.
  bool failed = false;
  /// message_handled: queue and handling were measured (the observer asked for timing).
  bool timed = false;
  /// spawned and started: the runtime host the actor lives on (a message_handled event also
  /// carries it). At spawn it may be `no_thread`: the qt runtime chooses the home of an actor
  /// spawned from outside its threads when the actor first runs, and `started` says which.
  /// runtime_info: the worker thread count.
  std::uint32_t thread = 0;
  /// Engine-wide order of emission, from 1. Events are applied in this order.
  std::uint64_t seq = 0;
  /// When it happened, on the runtime's clock (virtual on the manual runtime).
  TimePoint time{};
  ActorId actor{};
  ActorId peer{};
  /// message_*: pairs a send with its handling (0 when the message was not sampled);
  /// timer_*: the timer's id.
  std::uint64_t trace = 0;
  /// message_sent: the trace of the message the sending actor was handling when it sent this one,
  /// so that what led to a message can be followed back, hop by hop. 0 when the sender was not in a
  /// message handler (sent from outside the system, from post_start, post_stop or a supervision
  /// event), or when the message it was handling was not sampled.
  std::uint64_t cause = 0;
  /// message_handled: time in the mailbox, and time in the handler (both 0 without timing).
  Duration queue{};
  Duration handling{};
  /// timer_started: the period (0 for one-shot timers).
  Duration period{};
  /// timer_started: the first deadline; timer_fired: the deadline it fired for.
  TimePoint scheduled{};
  /// message_*: the message's type (static storage; "" without type names).
  std::string_view message_type{};
  std::string name{};
  std::string text{};

  friend bool operator==(const Event&, const Event&) = default;

  // -- One named constructor per kind: what each field means for that kind is written here, once.
  // The engine builds its events with these; a reader of a recording fills the fields directly.
  // A time left at TimePoint{} is stamped by the System when the event is emitted. The strings are
  // taken by value (the copy, which may throw, is the caller's), so that none of these throws.

  /// An actor was spawned. `name` is its registered name ("" for none), `text` its type name;
  /// `peer` is its supervisor (0 for a root). `host` is where it lives, or `no_thread` while its
  /// home is not chosen yet (a `started` event says where it settled).
  static Event spawned(ActorId actor, ActorId supervisor, std::string name, std::string type,
                       std::uint32_t host) noexcept;
  /// An actor's post_start finished: it runs messages from now on, on runtime host `host`.
  static Event started(ActorId actor, std::uint32_t host) noexcept;
  /// An actor exited after its post_stop; `text` is the stop reason ("" for a plain stop).
  /// Lane: stop.
  static Event stopped(ActorId actor, std::string reason) noexcept;
  /// An actor exited because a hook failed (kind `failed`; the field of that name is
  /// message_handled's); `text` is the error (the exception's text). Lane: stop.
  static Event failed_with(ActorId actor, std::string error) noexcept;
  /// An actor was killed (no post_stop ran); `text` is why. Lane: signal.
  static Event killed(ActorId actor, std::string reason) noexcept;

  /// A sampled message was sent. `actor` is the sender (0 when not sent from an actor), `peer` the
  /// receiver; `trace` pairs it with its message_handled, and `cause` is the trace of the message
  /// the sender was handling (0: none, or not sampled). `time` is the send time when the message
  /// is timed, else TimePoint{} (stamped at emission).
  static Event message_sent(ActorId sender, ActorId receiver, std::uint64_t trace, std::uint64_t cause,
                            std::string_view message_type, TimePoint time) noexcept;
  /// How long a timed message waited and ran: the handler ended at `ended`.
  struct Handling {
    TimePoint ended;
    Duration queue;
    Duration handling;
  };
  /// A sampled message was handled by `handler` on runtime host `host`; `peer` is its sender (by
  /// pid), `trace` the id its message_sent carried, `failed` whether the handler threw. With
  /// `timing`, the event is `timed` and carries the queue and handling times, and its time is when
  /// the handler ended.
  static Event message_handled(ActorId handler, ActorId sender, std::uint64_t trace, std::string_view message_type,
                               std::uint32_t host, bool failed, std::optional<Handling> timing) noexcept;

  /// `child` was linked under `supervisor` (`peer`).
  static Event linked(ActorId child, ActorId supervisor) noexcept;
  /// `child` was unlinked from `supervisor` (`peer`).
  static Event unlinked(ActorId child, ActorId supervisor) noexcept;
  /// A supervision event reached `supervisor`'s hook; `peer` is the actor it is about and `text`
  /// describes it ("actor 7 failed: ..."). Lane: supervision.
  static Event supervision_delivered(ActorId supervisor, ActorId about, std::string description) noexcept;

  /// `member` joined process group `name` in scope `text`.
  static Event group_joined(ActorId member, std::string group, std::string scope) noexcept;
  /// `member` left process group `name` in scope `text`.
  static Event group_left(ActorId member, std::string group, std::string scope) noexcept;
  /// `actor` holds the registered name `name` (from spawn, or in the present replayed at attach).
  static Event name_registered(ActorId actor, std::string name) noexcept;
  /// `actor` gave up its registered name `name` (as it began to stop).
  static Event name_unregistered(ActorId actor, std::string name) noexcept;

  /// A timer aimed at `target` started: `trace` is its id, `name` its kind ("interval", "after",
  /// "exit_after", "kill_after"), `peer` the actor that started it (0 outside an actor, and in the
  /// present replayed at attach), `period` its period (0 for a one-shot timer), `scheduled` its
  /// first deadline.
  static Event timer_started(ActorId target, ActorId owner, std::uint64_t timer_id, std::string kind, Duration period,
                             TimePoint first_due) noexcept;
  /// Timer `trace` (of kind `name`) acted on `target`; `scheduled` is when it was due, and the
  /// event's time (stamped at emission) when it fired.
  static Event timer_fired(ActorId target, std::uint64_t timer_id, std::string kind, TimePoint due) noexcept;
  /// Timer `trace` (of kind `name`) ended without firing to completion; `text` says why
  /// ("cancelled", "target stopped", "building its message failed").
  static Event timer_cancelled(ActorId target, std::uint64_t timer_id, std::string kind, std::string why) noexcept;

  /// Which runtime the System runs on (`name`) and how many worker threads it has (`thread`).
  static Event runtime_info(std::string runtime, std::uint32_t threads) noexcept;

  /// A Supervisor (supervisor.hpp) says how it works: `name` is its strategy ("one_for_one",
  /// "one_for_all", "rest_for_one", "simple_one_for_one"), `thread` its max_restarts and `period`
  /// the window they are counted in. `text` lists its child specs and options, one per line, each
  /// line tab-separated words that start with a tag:
  /// - `child <id> <restart> <shutdown> <worker|supervisor> <pid>`, in start order, where restart is
  ///   permanent, transient or temporary, shutdown is "brutal_kill", "infinity" or a timeout in
  ///   milliseconds ("5000"), and pid is the actor running the spec (0: none). A
  ///   simple_one_for_one supervisor lists its template, with pid 0.
  /// - `backoff <min ms> <max ms> <reset after ms>`, when restarts wait on a backoff.
  /// A reader ignores tags and words it does not know. Sent once the supervisor has started its
  /// children and again whenever its list of specs changes (start_child, delete_child, a temporary
  /// child gone); an observer attaching later hears it with the present, with the pids of now.
  static Event supervisor_configured(ActorId supervisor, std::string strategy, std::uint32_t max_restarts,
                                     Duration period, std::string specs) noexcept;
  /// A supervisor restarted child `child_id`: `actor` is the new actor (spawned just before),
  /// `peer` the one it replaces (0 if the child had none), `text` why ("child 'db' failed: boom",
  /// "restarted with 'db' (one_for_all)", "restart_child"), `thread` the child's restart count
  /// (1 for its first restart), `period` the backoff delay waited before it. `failed`: the restart
  /// attempt failed (the new actor's pre_start threw, or its name was taken), so there is no new
  /// actor (`actor` is 0) and `text` ends with "; its start failed: <why>"; the attempt counts
  /// against the supervisor's intensity all the same, and it is tried again. Lane: supervision.
  static Event child_restarted(ActorId new_actor, ActorId old_actor, std::string child_id, std::string why,
                               std::uint32_t attempt, Duration delay, bool start_failed) noexcept;
  /// A supervisor exceeded its restart intensity: `thread` restarts within `period`. It has shut
  /// its children down and now fails with `text`, so its own supervisor hears of it. Lane: supervision.
  static Event supervisor_gave_up(ActorId supervisor, std::uint32_t restarts, Duration period,
                                  std::string reason) noexcept;

  /// `actor` has a bounded mailbox (SpawnOptions::mailbox_capacity > 0): `thread` is its capacity
  /// and `name` what it does when full (to_string(Overflow): "reject", "drop_newest",
  /// "drop_oldest", "backpressure"). Sent right after the actor's `spawned` (and its
  /// name_registered), and again with the present to an observer that attaches later; never for an
  /// unbounded mailbox, so an actor without one is unbounded (as every actor of an older recording).
  /// Its drops and rejections are counters (ActorCounters::dropped, rejected), in the statistics.
  static Event mailbox_configured(ActorId actor, std::uint32_t capacity, std::string overflow) noexcept;

  /// `factory` is a factory (factory.hpp) whose pool has `thread` workers (its linked children),
  /// routing jobs as `name` says (to_string(Routing): "queuer", "key_persistent", ...). `text` lists
  /// its settings, one per line, each line tab-separated words that start with a tag:
  /// - `queue fifo` or `queue priority <levels>`;
  /// - `discard none`, `discard static <limit> <mode>` or `discard dynamic <limit> <mode>`;
  /// the mode is oldest or newest, and a dynamic limit is the one in force when it was sent.
  /// - `dead_man <detection timeout ms> <kill|report>`, when its dead-man's switch is on;
  /// - `rate <jobs> <per ms>`, when it is rate limited;
  /// - `draining`, once it drains (it takes no new work, finishes what it has, then stops).
  /// A reader ignores tags and words it does not know. Sent once its workers have started, again
  /// whenever its pool or settings change, and with the present to an observer that attaches later.
  /// Its counters and gauges are sampled (FactoryStats), not sent as events.
  static Event factory_configured(ActorId factory, std::string routing, std::uint32_t workers,
                                  std::string settings) noexcept;
  /// A factory's dead-man's switch found worker `worker_id` (actor `worker`) running one job for
  /// longer than its detection timeout: `name` is the job's key as text ("?" when the key type
  /// cannot be printed), `period` how long the job had run, `failed` whether the worker is killed
  /// to be replaced (else it is only reported). Lane: supervision.
  static Event worker_stuck(ActorId worker, ActorId factory, std::uint32_t worker_id, std::string key,
                            Duration running, bool killed) noexcept;
};

/// Nanoseconds since the clock's epoch: how times are stored and exported.
constexpr std::int64_t to_ns(TimePoint t) noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
constexpr std::int64_t to_ns(Duration d) noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}
constexpr TimePoint time_from_ns(std::int64_t ns) noexcept {
  return TimePoint(std::chrono::duration_cast<Duration>(std::chrono::nanoseconds(ns)));
}
constexpr Duration duration_from_ns(std::int64_t ns) noexcept {
  return std::chrono::duration_cast<Duration>(std::chrono::nanoseconds(ns));
}

}  // namespace actorscope::observe
