// Defining an actor: derive from Actor<Self> (CRTP, so hooks are found at compile time and cost no
// virtual call), name the Message, State and Arguments types, and write the hooks you need.
//
// ```cpp context=declarations
// struct Add { int n; };
// struct Get { as::Reply<int> reply; };
//
// struct Counter : as::Actor<Counter> {
//   using Message = std::variant<Add, Get>;
//   using State = int;
//   using Arguments = int;
//   State pre_start(as::Context<Counter>&, int start) { return start; }
//   void handle(as::Context<Counter>&, Message msg, State& total) {
//     as::match(msg, [&](Add& a) { total += a.n; }, [&](Get& g) { g.reply.send(total); });
//   }
// };
// ```
//
// Deriving from Actor<Self> is optional. Hooks (all optional but handle): pre_start builds the
// state from the arguments, on the spawning thread; post_start, handle, handle_supervisor_event and post_stop run on the actor's thread, one at
// a time. Any of those four may be a coroutine returning as::Task<>. A throw ends the actor.
#pragma once

#include <actorscope/actor_ref.hpp>
#include <actorscope/detail/cell_core.hpp>
#include <actorscope/detail/format.hpp>
#include <actorscope/overflow.hpp>
#include <actorscope/runtime.hpp>
#include <actorscope/supervision_event.hpp>
#include <actorscope/task.hpp>

#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace actorscope {

class System;

/// How and where to spawn an actor.
struct SpawnOptions {
  /// Registers the actor under this name (where_is finds it). "" for an unnamed actor.
  std::string name{};
  /// Which thread the actor lives on. Only the Qt runtime distinguishes hosts and the GUI thread.
  PlacementRequest placement{};
  /// Messages handled per drain before the actor yields its thread to others.
  std::uint32_t budget = 64;
  /// The most messages that may wait in the mailbox (a message leaves it when its handler begins);
  /// 0, the default, for no limit. Stop, kill and supervision events are never limited.
  std::uint32_t mailbox_capacity = 0;
  /// What a message that finds a bounded mailbox full does (see Overflow). Ignored when unbounded.
  Overflow overflow = Overflow::reject;
};

namespace detail {
template <class A>
struct state_of {
  using type = std::monostate;
};
template <class A>
  requires requires { typename A::State; }
struct state_of<A> {
  using type = typename A::State;
};
template <class A>
struct arguments_of {
  using type = std::monostate;
};
template <class A>
  requires requires { typename A::Arguments; }
struct arguments_of<A> {
  using type = typename A::Arguments;
};

void default_supervision(CellCore& self, const SupervisionEvent& event);
}  // namespace detail

template <class A>
using message_t = typename A::Message;
template <class A>
using state_t = typename detail::state_of<A>::type;
template <class A>
using arguments_t = typename detail::arguments_of<A>::type;

template <class A>
class Context;

/// An optional base that documents "this is an actor". Hooks are found by name at compile time
/// whether or not a type derives from it, so an actor can also be a plain aggregate configured with
/// designated initializers:
///
/// ```cpp context=outside
/// struct Worker {
///   using Message = Job;
///   int retries = 1;
///   void handle(as::Context<Worker>&, Job, std::monostate&) {}
/// };
/// as::ActorRef<Job> w = system.spawn(Worker{.retries = 3}, {}).value();
/// ```
///
/// The defaults for missing hooks:
/// post_start and post_stop do nothing; handle_supervisor_event stops the actor when a child
/// terminates or fails (ractor's policy, so failures travel up the tree unless handled).
template <class Self>
struct Actor {};

/// What a hook can do to and from its own actor. Valid for the actor's lifetime.
template <class A>
class Context {
 public:
  using Message = message_t<A>;

  explicit Context(detail::CellCore& cell) noexcept : cell_(cell) {
    ::new (&self_) ActorRef<Message>(Ref<detail::CellCore>::adopt(&cell));
  }
  // self_ is never destroyed: it holds no reference to release (see self()).
  ~Context() {}
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// A typed reference to this actor, valid as long as the context. Copying it gives an owning
  /// reference; using it in place, without a copy, costs no reference-count traffic.
  const ActorRef<Message>& self() const noexcept { return self_; }
  ActorCell cell() const noexcept { return ActorCell(Ref<detail::CellCore>(&cell_)); }
  ActorId id() const noexcept { return cell_.id(); }
  const std::string& name() const noexcept { return cell_.name(); }
  ActorStatus status() const noexcept { return cell_.status(); }
  Runtime& runtime() const noexcept { return cell_.runtime(); }
  System& system() const noexcept;

  /// Stops this actor once the current hook returns (post_stop runs).
  void stop(std::string reason = {}) const { cell_.request_stop(std::move(reason)); }
  /// Kills this actor once the current hook returns (post_stop is skipped).
  void kill() const { cell_.request_kill(); }
  /// Stops taking new messages; the queued ones are still handled.
  bool drain() const { return cell_.request_drain(); }

  /// Spawns an actor supervised by this one.
  template <class C>
  [[nodiscard]] Expected<ActorRef<message_t<C>>, SpawnError> spawn_linked(SpawnOptions options = {},
                                                                          arguments_t<C> args = {}) const;

  std::vector<ActorCell> children() const;
  void stop_children(std::string reason = {}) const;
  /// Stops every child gracefully and waits (without blocking the thread) until they have all
  /// exited; true if they did within `timeout`. The usual place is a coroutine post_stop, for an
  /// orderly subtree shutdown in which every child's post_stop runs.
  Task<bool> stop_children_and_wait(Duration timeout = no_timeout, std::string reason = {}) const;

  // -- timers aimed at this actor (see ActorRef and ActorCell); each returns a handle that cancels it --
  /// ```cpp context=handler
  /// as::TimerHandle tick = ctx.send_interval(250ms, [] { return Tick{}; });  // the first Tick in 250 ms
  /// ```
  template <class F>
  TimerHandle send_interval(Duration period, F make, MissedTick policy = MissedTick::burst) const {
    return self().send_interval(period, std::move(make), policy);
  }
  template <class X>
  TimerHandle send_after(Duration delay, X&& message_or_make) const {
    return self().send_after(delay, std::forward<X>(message_or_make));
  }
  TimerHandle exit_after(Duration delay) const { return cell().exit_after(delay); }
  TimerHandle kill_after(Duration delay) const { return cell().kill_after(delay); }

  // -- monitors: this actor gets ActorDown when `target` exits --
  bool monitor(const ActorCell& target) const { return cell().monitor(target); }
  bool unmonitor(const ActorCell& target) const { return cell().unmonitor(target); }

  /// The same as target.call(builder, timeout), read from here:
  /// ```cpp context=handler
  /// as::CallResult<int> total = co_await ctx.call(counter, as::rpc<Get>, 100ms);
  /// ```
  template <class N, class B>
  PendingCall<detail::reply_type_t<B>> call(const ActorRef<N>& target, B&& builder, Duration timeout = no_timeout) const {
    return target.call(std::forward<B>(builder), timeout);
  }

  /// Writes a line through the System's log sink: ctx.log("total = {}", total).
  template <class... Args>
  void log(std::string_view fmt, const Args&... args) const;

 private:
  friend struct detail::CoreAccess;  // the engine's way to the cell (detail/core_access.hpp)
  detail::CellCore& cell_;
  // A non-owning ActorRef to the cell that holds this context (the cell outlives it, and a
  // reference to itself would keep it alive forever), built in place and never destroyed.
  union {
    ActorRef<Message> self_;
  };
};

/// Visits a variant (a message, a supervision event) with one lambda per alternative.
template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class V, class... F>
decltype(auto) match(V&& value, F&&... handlers) {
  return std::visit(overloaded<std::decay_t<F>...>{std::forward<F>(handlers)...}, std::forward<V>(value));
}

}  // namespace actorscope
