// CoreAccess: the one way from a public handle to the engine type behind it. ActorCell, Context
// and TimerHandle keep their cores private and befriend only this struct, so that the detail types
// stay out of the API a program reads and calls. The engine's own code goes through it: the
// toolbox's templates (spawn_linked, output ports, rpc.hpp), process groups and the benchmark
// workloads.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/timer.hpp>

namespace actorscope {

template <class A>
class Context;

namespace detail {

class CellCore;

struct CoreAccess {
  /// The cell behind an actor handle (nullptr for an empty handle).
  static CellCore* cell(const ActorCell& actor) noexcept { return actor.cell_.get(); }
  /// The cell of the actor whose hook holds `ctx`.
  template <class A>
  static CellCore& cell(const Context<A>& ctx) noexcept {
    return ctx.cell_;
  }
  /// The timer behind a handle (nullptr for an empty handle).
  static TimerCore* timer(const TimerHandle& handle) noexcept { return handle.t_.get(); }
};

}  // namespace detail
}  // namespace actorscope
