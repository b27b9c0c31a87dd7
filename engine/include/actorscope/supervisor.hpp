// Supervisor: an actor that starts children from specifications and restarts them when they exit,
// with Erlang/OTP's strategies, restart types, restart intensity and ordered shutdown, plus an
// optional backoff between restarts.
//
// ```cpp context=outside
// as::SupervisorRef team = as::start_supervisor(system, {
//     .strategy = as::Strategy::one_for_one,
//     .children = {as::child<Worker>("db", {}, {.name = "db"}),
//                  as::child<Worker>("cache", {}, {.name = "cache"})},
// }).value();
// std::vector<as::ChildInfo> now = team.which_children().get().value();
// ```
//
// It is an ordinary actor (its message type is SupervisorMessage): it can itself be a child of
// another supervisor (supervisor_child), be monitored, join groups and be recorded. Where this
// header is silent it does what Erlang's `supervisor` module does.
#pragma once

#include <actorscope/actor.hpp>
#include <actorscope/actor_ref.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/expected.hpp>
#include <actorscope/reply.hpp>
#include <actorscope/runtime.hpp>
#include <actorscope/supervision_event.hpp>
#include <actorscope/system.hpp>
#include <actorscope/task.hpp>

#include <any>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace actorscope {

/// Which children a supervisor restarts when one of them exits and must be restarted.
enum class Strategy : std::uint8_t {
  one_for_one,         ///< only that child
  one_for_all,         ///< every child: the others are shut down (in reverse start order) first
  rest_for_one,        ///< that child and the ones started after it
  simple_one_for_one,  ///< one_for_one over children started from one template spec with start_child_with
};
std::string_view to_string(Strategy s) noexcept;

/// When a child that exited is restarted.
enum class Restart : std::uint8_t {
  permanent,  ///< always
  transient,  ///< only after an abnormal exit: a failure or a kill, not a stop or a drain
  temporary,  ///< never; its spec is removed when it exits
};
std::string_view to_string(Restart r) noexcept;

/// How a child is shut down (by the supervisor's own stop, a restart of its siblings, or
/// terminate_child): a graceful stop, then a kill once `timeout` has passed; or a kill at once.
struct Shutdown {
  enum class Kind : std::uint8_t { timeout, brutal_kill, infinity };
  Kind kind = Kind::timeout;
  Duration timeout = std::chrono::seconds(5);

  /// Stop, and kill if it has not exited after `t`.
  static Shutdown after(Duration t) noexcept { return {Kind::timeout, t}; }
  /// Kill at once: post_stop does not run.
  static Shutdown brutal_kill() noexcept { return {Kind::brutal_kill, Duration::zero()}; }
  /// Stop and wait as long as it takes (the default for a child that is itself a supervisor).
  static Shutdown infinity() noexcept { return {Kind::infinity, no_timeout}; }
  friend bool operator==(const Shutdown&, const Shutdown&) = default;
};
/// "brutal_kill", "infinity" or the timeout in milliseconds ("5000").
std::string to_string(const Shutdown& s);

/// Whether a child is a worker or itself a supervisor (a supervisor gets Shutdown::infinity).
enum class ChildKind : std::uint8_t { worker, supervisor };

/// What a child's start function is given.
struct ChildStartContext {
  System& system;
  /// The supervisor: spawn the child linked to it.
  const ActorCell& supervisor;
  /// simple_one_for_one only: the arguments given to start_child_with (nullptr otherwise).
  const std::any* arguments = nullptr;
};

/// Spawns the child linked to the supervisor. Called for its first start and again for every
/// restart, so it must be callable more than once (copy what it needs; never move it out).
using ChildStart = std::function<Expected<ActorCell, SpawnError>(const ChildStartContext&)>;

/// How one child is started, restarted and shut down.
struct ChildSpec {
  /// Unique among the supervisor's children; it stays the same across restarts.
  std::string id;
  ChildStart start;
  Restart restart = Restart::permanent;
  Shutdown shutdown{};
  ChildKind kind = ChildKind::worker;
};

/// A spec that spawns a copy of an actor object you configured, with `options` and `args`:
/// as::child("db", Worker{.retries = 3}, {.name = "db"}). Its registered name, if any, is taken
/// again by every restart. For a simple_one_for_one template, start_child_with's arguments replace
/// `args`; they must then be an arguments_t<A>. (`Explicit...` soaks up template arguments written
/// out, so that child<Worker>("db", {}, ...) always means the overload below, never this one.)
template <class... Explicit, class A>
requires(sizeof...(Explicit) == 0) ChildSpec
    child(std::string id, A actor, SpawnOptions options, arguments_t<A> args = {});
/// The same with a default-constructed A: as::child<Worker>("db", args, {.name = "db"}).
template <class A>
ChildSpec child(std::string id, arguments_t<A> args = {}, SpawnOptions options = {}) {
  return child(std::move(id), A{}, std::move(options), std::move(args));
}

/// Restarts wait exponentially longer: the n-th consecutive restart of a child waits
/// min·2ⁿ⁻¹, capped at max, less a random part of up to `jitter` of it (never below min). A child
/// that has run for `reset_after` since its last restart starts again from min.
struct Backoff {
  Duration min = std::chrono::milliseconds(100);
  Duration max = std::chrono::seconds(10);
  Duration reset_after = std::chrono::seconds(30);
  /// 0 to 1: the share of each delay that is random. 0 gives exact delays.
  double jitter = 0.2;
  /// Seeds the jitter, so that a run can be repeated.
  std::uint64_t seed = 0;
  /// The delay before the restart numbered `attempt` (1 for the first consecutive one), with
  /// `random` in [0, 1) drawn for it.
  Duration delay(std::uint32_t attempt, double random) const noexcept;
};

/// Everything a supervisor is told when it is spawned.
struct SupervisorSpec {
  Strategy strategy = Strategy::one_for_one;
  /// Restart intensity: more than `max_restarts` restarts within `period` and the supervisor
  /// gives up (shuts its children down and fails). Erlang's default: 3 in 5 s.
  std::uint32_t max_restarts = 3;
  Duration period = std::chrono::seconds(5);
  /// Waits between restarts; none by default (restart at once, as Erlang).
  std::optional<Backoff> backoff{};
  /// Started in this order when the supervisor starts (a failure to start one fails the spawn);
  /// shut down in the reverse order. simple_one_for_one takes exactly one: the template.
  std::vector<ChildSpec> children{};
};

/// What a supervisor refused to do, and why.
class SupervisorError {
 public:
  enum class Kind : std::uint8_t {
    unknown_child,    ///< no child has that id
    already_present,  ///< start_child: a spec with that id exists (restart_child or delete_child it)
    already_started,  ///< start_child: a child with that id is running
    running,          ///< restart_child / delete_child of a child that is running (terminate it first)
    restarting,       ///< restart_child of a child waiting on its backoff
    start_failed,     ///< the child's start function failed (its pre_start threw, its name was taken, ...)
    bad_request,      ///< the request does not fit this supervisor (its strategy, or the arguments' type)
  };
  SupervisorError(Kind kind, std::string text) : kind_(kind), text_(std::move(text)) {}
  Kind kind() const noexcept { return kind_; }
  const char* what() const noexcept { return text_.c_str(); }

 private:
  Kind kind_;
  std::string text_;
};

/// A supervisor exceeded its restart intensity; this is what it fails with, so its own
/// supervisor hears of it (ActorFailed).
class SupervisorGaveUp : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One child, as which_children tells it.
struct ChildInfo {
  enum class Status : std::uint8_t {
    running,     ///< `actor` is its live actor
    restarting,  ///< waiting on its backoff before a restart
    terminated,  ///< not running, and not to be restarted unless asked (restart_child)
  };
  std::string id;
  ActorCell actor;  ///< empty unless running
  Status status = Status::running;
  Restart restart = Restart::permanent;
  Shutdown shutdown{};
  ChildKind kind = ChildKind::worker;
  std::uint32_t restarts = 0;  ///< how many times it was restarted
};
std::string_view to_string(ChildInfo::Status s) noexcept;

/// Erlang's count_children.
struct ChildCounts {
  std::size_t specs = 0;        ///< children the supervisor knows, running or not
  std::size_t active = 0;       ///< running
  std::size_t supervisors = 0;  ///< specs of kind supervisor
  std::size_t workers = 0;      ///< specs of kind worker
};

/// The requests a supervisor handles. Send them through SupervisorRef rather than by hand.
namespace supervisor_request {
template <class T>
using Result = Expected<T, SupervisorError>;
struct StartChild {
  ChildSpec spec;
  Reply<Result<ActorCell>> reply;
};
struct StartChildWith {
  std::any arguments;
  Reply<Result<ActorCell>> reply;
};
struct TerminateChild {
  std::string id;
  Reply<Result<void>> reply;
};
struct RestartChild {
  std::string id;
  Reply<Result<ActorCell>> reply;
};
struct DeleteChild {
  std::string id;
  Reply<Result<void>> reply;
};
struct WhichChildren {
  Reply<std::vector<ChildInfo>> reply;
};
struct CountChildren {
  Reply<ChildCounts> reply;
};
/// The supervisor's own: a restart waited on its backoff, or is tried again after its start failed.
struct RestartDue {
  std::uint64_t round = 0;
};
}  // namespace supervisor_request

using SupervisorMessage = std::variant<supervisor_request::StartChild, supervisor_request::StartChildWith,
                                       supervisor_request::TerminateChild, supervisor_request::RestartChild,
                                       supervisor_request::DeleteChild, supervisor_request::WhichChildren,
                                       supervisor_request::CountChildren, supervisor_request::RestartDue>;

namespace detail {
class SupervisorCore;
/// Deletes the supervisor's state where its type is complete (supervisor.cpp).
struct SupervisorCoreDeleter {
  void operator()(SupervisorCore* core) const noexcept;
};
}  // namespace detail

/// The supervisor actor. Spawn it with start_supervisor (or spawn<Supervisor> and a
/// SupervisorSpec as its arguments).
struct Supervisor {
  using Message = SupervisorMessage;
  using Arguments = SupervisorSpec;
  /// Its children and its restart history; opaque.
  using State = std::unique_ptr<detail::SupervisorCore, detail::SupervisorCoreDeleter>;

  State pre_start(Context<Supervisor>& ctx, SupervisorSpec spec);
  Task<> handle(Context<Supervisor>& ctx, SupervisorMessage message, State& state);
  Task<> handle_supervisor_event(Context<Supervisor>& ctx, const SupervisionEvent& event, State& state);
  Task<> post_stop(Context<Supervisor>& ctx, State& state);
};

/// A handle to a supervisor: everything an ActorRef does, and the supervisor's requests. Each
/// request returns a pending call: get() it outside actors, co_await it inside them.
class SupervisorRef : public ActorRef<SupervisorMessage> {
 public:
  SupervisorRef() noexcept = default;
  explicit SupervisorRef(ActorRef<SupervisorMessage> ref) noexcept : ActorRef(std::move(ref)) {}

  template <class T>
  using Pending = PendingCall<Expected<T, SupervisorError>>;

  /// Adds a child and starts it (at the end of the start order).
  Pending<ActorCell> start_child(ChildSpec spec, Duration timeout = no_timeout) const;
  /// simple_one_for_one: starts a child from the template with these arguments (an arguments_t of
  /// the template's actor). Its id is the template's id, '#' and a number.
  template <class Args>
  Pending<ActorCell> start_child_with(Args arguments, Duration timeout = no_timeout) const {
    return call(
        [&](Reply<Expected<ActorCell, SupervisorError>> r) {
          return supervisor_request::StartChildWith{std::any(std::move(arguments)), std::move(r)};
        },
        timeout);
  }
  /// Shuts the child down as its spec says; its spec stays (a simple_one_for_one child's goes).
  Pending<void> terminate_child(std::string id, Duration timeout = no_timeout) const;
  /// Starts a terminated child again from its spec.
  Pending<ActorCell> restart_child(std::string id, Duration timeout = no_timeout) const;
  /// Forgets a terminated child's spec.
  Pending<void> delete_child(std::string id, Duration timeout = no_timeout) const;
  /// Every child, in start order.
  PendingCall<std::vector<ChildInfo>> which_children(Duration timeout = no_timeout) const;
  PendingCall<ChildCounts> count_children(Duration timeout = no_timeout) const;
};

/// Spawns a root supervisor. Its children are started before this returns; if one fails to start,
/// the ones started are shut down and the error says which failed and why.
Expected<SupervisorRef, SpawnError> start_supervisor(System& system, SupervisorSpec spec,
                                                     SpawnOptions options = {});
/// Spawns a supervisor supervised by `parent`.
Expected<SupervisorRef, SpawnError> start_supervisor(System& system, const ActorCell& parent,
                                                     SupervisorSpec spec, SpawnOptions options = {});
/// A child spec for a nested supervisor (kind supervisor, Shutdown::infinity).
ChildSpec supervisor_child(std::string id, SupervisorSpec spec, SpawnOptions options = {});

// -- templates --

namespace detail {
/// The arguments a simple_one_for_one start gives, or the spec's own.
template <class Args>
Args child_arguments(const ChildStartContext& ctx, const Args& own, std::string_view actor_type);
[[noreturn]] void throw_bad_child_arguments(std::string_view actor_type, std::string_view expected,
                                            std::string_view got);
}  // namespace detail

template <class... Explicit, class A>
requires(sizeof...(Explicit) == 0) ChildSpec
    child(std::string id, A actor, SpawnOptions options, arguments_t<A> args) {
  ChildSpec spec;
  spec.id = std::move(id);
  spec.start = [actor = std::move(actor), options = std::move(options),
                args = std::move(args)](const ChildStartContext& ctx) -> Expected<ActorCell, SpawnError> {
    auto spawned = ctx.system.spawn_linked<A>(
        ctx.supervisor, actor, options,
        detail::child_arguments<arguments_t<A>>(ctx, args, detail::type_name<A>()));
    if (!spawned) return unexpected(spawned.error());
    return ActorCell(*spawned);
  };
  return spec;
}

template <class Args>
Args detail::child_arguments(const ChildStartContext& ctx, const Args& own, std::string_view actor_type) {
  if (ctx.arguments == nullptr || !ctx.arguments->has_value()) return own;
  if (const Args* given = std::any_cast<Args>(ctx.arguments)) return *given;
  throw_bad_child_arguments(actor_type, detail::type_name<Args>(), ctx.arguments->type().name());
}

}  // namespace actorscope
