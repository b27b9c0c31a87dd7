// ActorCell: the untyped handle to an actor. Cheap to copy; equal when it is the same actor,
// hashed by ActorId.
// Everything that does not need the message type lives here (stop, kill, wait, links, children,
// monitors, exit and kill timers).
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/actor_stats.hpp>
#include <actorscope/actor_status.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/join_handle.hpp>
#include <actorscope/ref_counted.hpp>
#include <actorscope/runtime.hpp>
#include <actorscope/timer.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace actorscope {

namespace detail {
class CellCore;
struct CoreAccess;
}

template <class M>
class ActorRef;

/// How an actor ended: the kind and the stop reason or failure text.
struct ActorExit {
  ExitKind kind = ExitKind::stopped;
  std::string reason;
};

class ActorCell {
 public:
  ActorCell() noexcept;
  explicit ActorCell(Ref<detail::CellCore> cell) noexcept;
  ActorCell(const ActorCell&) noexcept;
  ActorCell(ActorCell&&) noexcept;
  ActorCell& operator=(const ActorCell&) noexcept;
  ActorCell& operator=(ActorCell&&) noexcept;
  ~ActorCell();

  explicit operator bool() const noexcept { return static_cast<bool>(cell_); }

  // -- identity (any thread) --
  ActorId id() const noexcept;
  /// The registered name, or "" for an unnamed actor.
  const std::string& name() const noexcept;
  /// The actor's C++ type, as the compiler spells it.
  std::string_view type_name() const noexcept;
  ActorStatus status() const noexcept;
  /// Not yet stopped.
  bool is_alive() const noexcept { return status() != ActorStatus::stopped; }
  /// How it ended, once it has stopped.
  std::optional<ActorExit> exit() const;
  /// Its exact counters: messages received, handled and sent, mailbox depth and high-water mark.
  ActorStats stats() const;

  // -- lifecycle (any thread) --
  /// Graceful: the current handler finishes, queued messages are dropped, post_stop runs.
  void stop(std::string reason = {}) const;
  /// Immediate: interrupts a suspended coroutine handler and skips post_stop.
  void kill() const;
  /// Refuses new messages, handles every queued one, then stops with the reason "drained".
  /// False if the actor was already draining or stopping.
  bool drain() const;

  // -- blocking waits: only outside actors (they throw BlockingWaitError on a runtime thread) --
  /// Waits for the actor to stop; true if it did within `timeout`. Returns at once if already dead.
  bool wait(Duration timeout = no_timeout) const;
  /// stop(), then wait(). Returns only after post_stop has run.
  bool stop_and_wait(Duration timeout = no_timeout, std::string reason = {}) const;
  bool kill_and_wait(Duration timeout = no_timeout) const;
  bool drain_and_wait(Duration timeout = no_timeout) const;

  /// A handle to the actor's exit (abort() kills). Usable from coroutines: co_await h.join().
  JoinHandle<ActorExit> join_handle() const;

  // -- supervision --
  /// Puts this actor under `supervisor`, moving it from its current supervisor if it has one.
  Expected<void, LinkError> link(const ActorCell& supervisor) const;
  /// Removes the link to `supervisor`; false if that was not this actor's supervisor.
  bool unlink(const ActorCell& supervisor) const;
  /// The current supervisor, or an empty cell.
  ActorCell supervisor() const;
  /// A snapshot of the direct children.
  std::vector<ActorCell> children() const;
  /// Stops every direct child gracefully (their post_stop runs).
  void stop_children(std::string reason = {}) const;
  /// stop_children(), then waits for all of them. Blocking: only outside actors.
  bool stop_children_and_wait(Duration timeout = no_timeout, std::string reason = {}) const;

  // -- monitors (any thread) --
  /// Makes this actor a monitor of `target`: when `target` exits, this actor gets an ActorDown
  /// supervision event with how it ended (at once if it already has). Any number of actors may
  /// monitor one, in addition to its supervisor; monitoring twice is the same as once. False if this
  /// actor already monitored `target`, or is itself stopping. Throws MonitorError for an empty
  /// handle, the actor itself, or an actor of another System.
  bool monitor(const ActorCell& target) const;
  /// Stops monitoring `target`. False if it was not monitoring it; an ActorDown already sent is
  /// still delivered.
  bool unmonitor(const ActorCell& target) const;
  /// The actors monitoring this one.
  std::vector<ActorCell> monitors() const;

  // -- timers (any thread); each returns a handle that cancels it --
  /// Stops the actor gracefully after `delay`, with the reason "exit after N ms".
  TimerHandle exit_after(Duration delay) const;
  /// Kills the actor after `delay`, even one stuck in a long coroutine handler.
  TimerHandle kill_after(Duration delay) const;

  /// A typed reference, if the actor's message type is M.
  template <class M>
  std::optional<ActorRef<M>> as() const;

  friend bool operator==(const ActorCell& a, const ActorCell& b) noexcept;

 protected:
  Ref<detail::CellCore> cell_;

 private:
  friend struct detail::CoreAccess;  // the engine's way to the cell (detail/core_access.hpp)
  detail::CellCore& monitor_peer(const ActorCell& target, std::string_view operation) const;
};

}  // namespace actorscope

template <>
struct std::hash<actorscope::ActorCell> {
  std::size_t operator()(const actorscope::ActorCell& c) const noexcept {
    return std::hash<actorscope::ActorId>{}(c.id());
  }
};
