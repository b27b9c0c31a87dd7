// System: one actor engine on one runtime. It spawns actors and tasks, owns the registry and the
// supervision tree, and on destruction stops everything in order. Tests make a fresh System each
// time; there are no hidden globals.
#pragma once

#include <actorscope/actor.hpp>
#include <actorscope/actor_ref.hpp>
#include <actorscope/detail/cell.hpp>
#include <actorscope/detail/core_access.hpp>
#include <actorscope/detail/system_core.hpp>
#include <actorscope/detail/task_cell.hpp>
#include <actorscope/join_handle.hpp>
#include <actorscope/log.hpp>
#include <actorscope/observe/observer.hpp>
#include <actorscope/process_groups.hpp>
#include <actorscope/runtime.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace actorscope {

namespace observe {
class StatsPoller;
}

template <class A>
using SpawnResult = Expected<ActorRef<message_t<A>>, SpawnError>;

class System {
 public:
  /// Takes ownership of a runtime: System sys{make_runtime("asio", {.threads = 2})}.
  explicit System(std::unique_ptr<Runtime> runtime);
  /// Creates the runtime by name: System sys{"manual"}.
  explicit System(std::string_view runtime_name, const RuntimeOptions& options = {});
  /// Shuts down (see shutdown) with a 10 s budget.
  ~System();
  System(const System&) = delete;
  System& operator=(const System&) = delete;

  Runtime& runtime() const noexcept { return core_->runtime(); }

  /// Spawns an unsupervised actor. pre_start runs now, on this thread; its failure is returned as
  /// a SpawnError and the actor never runs.
  template <class A>
  [[nodiscard]] SpawnResult<A> spawn(SpawnOptions options = {}, arguments_t<A> args = {}) {
    return spawn_impl<A>(A{}, std::move(options), std::move(args), nullptr);
  }
  /// The same with an actor object you configured (an actor's fields are read-only configuration).
  template <class A>
  [[nodiscard]] SpawnResult<A> spawn(A actor, SpawnOptions options, arguments_t<A> args = {}) {
    return spawn_impl<A>(std::move(actor), std::move(options), std::move(args), nullptr);
  }
  /// Spawns an actor supervised by `supervisor`: from post_start on, its exit or failure is a
  /// supervision event there. Fails if the supervisor is draining or stopping.
  template <class A>
  [[nodiscard]] SpawnResult<A> spawn_linked(const ActorCell& supervisor, SpawnOptions options = {},
                                            arguments_t<A> args = {}) {
    if (!supervisor) return unexpected(SpawnError(SpawnError::Kind::supervisor_stopping,
                                                  std::string(detail::type_name<A>()), "the supervisor handle is empty"));
    return spawn_impl<A>(A{}, std::move(options), std::move(args), detail::CoreAccess::cell(supervisor));
  }
  template <class A>
  [[nodiscard]] SpawnResult<A> spawn_linked(const ActorCell& supervisor, A actor, SpawnOptions options,
                                            arguments_t<A> args = {}) {
    if (!supervisor) return unexpected(SpawnError(SpawnError::Kind::supervisor_stopping,
                                                  std::string(detail::type_name<A>()), "the supervisor handle is empty"));
    return spawn_impl<A>(std::move(actor), std::move(options), std::move(args),
                         detail::CoreAccess::cell(supervisor));
  }

  /// Runs `fn` (a function, or a coroutine returning as::Task<T>) on the runtime. abort() on the
  /// handle kills it; a throw becomes JoinError::failed.
  template <class F>
  JoinHandle<detail::task_result_t<std::decay_t<F>>> spawn_task(F&& fn) {
    using Fn = std::decay_t<F>;
    using T = detail::task_result_t<Fn>;
    auto out = make_ref<detail::TaskJoinState<T>>(runtime());
    auto cell = make_ref<detail::TaskCell<Fn>>(*core_, Fn(std::forward<F>(fn)), out, runtime().place({}));
    out->attach(*cell);
    (void)core_->start(*cell, nullptr);  // refused only while shutting down: the handle then says aborted
    return JoinHandle<T>(std::move(out));
  }

  /// The live actor registered under `name`.
  std::optional<ActorCell> where_is(std::string_view name) const;
  /// The same, typed: nullopt if there is no such actor or its message type is not M.
  template <class M>
  std::optional<ActorRef<M>> where_is(std::string_view name) const {
    auto cell = where_is(name);
    return cell ? cell->template as<M>() : std::nullopt;
  }
  /// The registered names, sorted.
  std::vector<std::string> registered() const;

  /// Live actors (tasks not included), in spawn order.
  std::vector<ActorCell> actors() const;
  std::size_t actor_count() const;
  std::size_t task_count() const;

  /// The process groups of this System (Erlang pg): join, leave, list, monitor.
  ProcessGroups& groups() const noexcept { return core_->groups(); }
  /// Timers (send_interval, send_after, exit_after, kill_after) that have not ended yet.
  std::size_t timer_count() const { return core_->timers().active_count(); }

  /// Refuses new spawns, stops every root actor gracefully (their subtrees are killed as they
  /// exit) and aborts tasks; after half of `timeout`, kills what is left; then stops the runtime.
  /// True if everything exited in time. Call it from outside the runtime.
  bool shutdown(Duration timeout = std::chrono::seconds(10));

  /// Where Context::log lines go. The default writes to standard error.
  void set_log_sink(LogSink sink);

  // -- observation --
  /// Starts sending engine events to `observer` (see observe/observer.hpp): first the present
  /// (the runtime, every live actor, every name), then everything as it happens. Several observers
  /// may be attached at once. The observer must stay alive until detach() returns or the System is
  /// destroyed. Throws std::logic_error if it is already attached, or if observation was compiled
  /// out of this build.
  void attach(observe::Observer& observer) { core_->attach(observer); }
  /// Stops sending events to `observer`; once this returns it is never called again. False if it
  /// was not attached. Never call it from inside the observer's own on_event.
  bool detach(observe::Observer& observer) noexcept { return core_->detach(observer); }
  /// The exact counters of every live actor, in spawn order (no observer needed).
  std::vector<ActorStats> stats() const { return core_->stats(); }

 private:
  // The engine's own parts that are given a System and work on its core. The core is a detail
  // type, so it is not part of what a user sees or calls.
  friend class observe::StatsPoller;
  detail::SystemCore& core() const noexcept { return *core_; }

  template <class A>
  SpawnResult<A> spawn_impl(A actor, SpawnOptions options, arguments_t<A> args, detail::CellCore* supervisor) {
    using M = message_t<A>;
    const std::string_view type = detail::type_name<A>();
    Placement where;
    try {
      where = runtime().place(options.placement);
    } catch (const std::exception& e) {
      return unexpected(SpawnError(SpawnError::Kind::bad_placement, std::string(type), e.what()));
    }
    auto cell = make_ref<detail::Cell<A>>(
        *core_, std::move(actor), std::move(args),
        detail::CellConfig{std::move(options.name), options.budget, where, &detail::actor_cell_type_v<A, M>,
                           detail::CellKind::actor, options.mailbox_capacity, options.overflow});
    if (auto started = core_->start(*cell, supervisor); !started) return unexpected(std::move(started).error());
    return ActorRef<M>(Ref<detail::CellCore>(std::move(cell)));
  }

  std::unique_ptr<detail::SystemCore> core_;
};

// -- Context members that need System --

template <class A>
System& Context<A>::system() const noexcept {
  return cell_.system().owner();
}

template <class A>
template <class C>
Expected<ActorRef<message_t<C>>, SpawnError> Context<A>::spawn_linked(SpawnOptions options, arguments_t<C> args) const {
  return system().template spawn_linked<C>(cell(), std::move(options), std::move(args));
}

template <class A>
std::vector<ActorCell> Context<A>::children() const {
  return cell_.system().children_of(cell_);
}

template <class A>
void Context<A>::stop_children(std::string reason) const {
  for (const ActorCell& child : children()) child.stop(reason);
}

template <class A>
Task<bool> Context<A>::stop_children_and_wait(Duration timeout, std::string reason) const {
  std::vector<ActorCell> kids = children();
  for (const ActorCell& child : kids) child.stop(reason);
  Runtime& rt = runtime();
  const TimePoint deadline = deadline_after(rt.now(), timeout);
  bool all = true;
  for (const ActorCell& child : kids) {
    Duration left = no_timeout;
    if (deadline != TimePoint::max()) {
      const TimePoint now = rt.now();
      left = deadline > now ? deadline - now : Duration::zero();
    }
    if (!co_await child.join_handle().join_for(left)) all = false;
  }
  co_return all;
}

template <class A>
template <class... Args>
void Context<A>::log(std::string_view fmt, const Args&... args) const {
  cell_.system().log(&cell_, detail::format(fmt, args...));
}

}  // namespace actorscope
