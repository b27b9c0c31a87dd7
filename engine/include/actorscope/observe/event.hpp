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
/// never change once released.
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
/// | timer_cancelled       | the target actor |                    | timer kind  |                      | trace = timer id |
/// | runtime_info          |                  |                    | runtime name |                     | thread = worker threads |
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
};
inline constexpr std::size_t kEventKindCount = static_cast<std::size_t>(EventKind::runtime_info) + 1;

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
