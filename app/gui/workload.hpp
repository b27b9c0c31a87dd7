// Workload: what a live session runs on its System: a name and one line for the toolbar, how to
// start it, and (optionally) the demo message a user can send an actor from a context menu. The
// app fills the list from the built-in demo scenarios; tests and the frame benchmark bring their own.
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/system.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace actorscope::gui {

struct Workload {
  std::string name;
  std::string summary;
  /// Spawns the workload's actors on `system`. Throws std::exception with a message for the user.
  std::function<void(System& system, std::uint64_t seed)> start;
  /// The demo message `actor` takes ("" if none); empty function: the workload has none at all.
  std::function<std::string(const ActorCell& actor)> demoMessage;
  /// Sends it; false if the actor does not take it (or is gone).
  std::function<bool(const ActorCell& actor)> sendDemoMessage;
};

using Workloads = std::vector<Workload>;

}  // namespace actorscope::gui
