// Monitors: Erlang-style monitors for one System. Any number of actors may watch another; when it
// exits, each of them gets an ActorDown supervision event (in addition to its one supervisor).
#pragma once

#include <actorscope/actor_cell.hpp>
#include <actorscope/detail/sticky_flag.hpp>
#include <actorscope/ref_counted.hpp>

#include <mutex>
#include <unordered_map>
#include <vector>

namespace actorscope::detail {

class CellCore;

class Monitors {
 public:
  /// `observer` will get ActorDown when `target` exits; at once if it already has. False if it was
  /// already watching, or the observer is stopping or stopped. @thread any
  bool add(CellCore& observer, CellCore& target);
  /// False if `observer` was not watching `target` (an ActorDown already sent is still delivered).
  /// @thread any
  bool remove(CellCore& observer, CellCore& target);
  /// Who watches `target`, in the order they started. @thread any
  std::vector<ActorCell> observers_of(const CellCore& target) const;

  /// `cell` has exited: tells its observers, and forgets what it was watching itself. Called once
  /// per cell by the System, after the cell's status became stopped.
  void cell_exited(CellCore& cell, const ActorExit& exit) noexcept;

 private:
  StickyFlag used_;
  // Taken with no other engine lock held; nothing else is locked under it. Events are pushed after
  // it is released.
  mutable std::mutex m_;
  std::unordered_map<const CellCore*, std::vector<Ref<CellCore>>> observers_;  // target → observers
  std::unordered_map<const CellCore*, std::vector<CellCore*>> watching_;       // observer → targets
};

}  // namespace actorscope::detail
