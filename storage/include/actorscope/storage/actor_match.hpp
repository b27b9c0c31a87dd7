// Matching the actors of two sessions, for `actorscope diff`. Actor ids differ from run to run, so
// an actor is known by where it sits in the supervision tree instead:
//
// - Its path: its supervisor's path, "/", and its own segment, from a root down
//   ("root/team-a/worker-3"). The segment is the actor's registered name, or its type name when it
//   has none ("root/demo::Worker").
// - Siblings (children of one supervisor) sharing a segment are numbered in spawn order: the first
//   keeps the bare segment, the second is "worker#2", the third "worker#3", ...
// - A restart is not a new sibling: an actor spawned under the same supervisor, with the same
//   segment, after an earlier one with that path has exited, takes that path over (a supervisor
//   replacing a failed child, or the same job run again one after another). The path is then one
//   logical actor with several incarnations, whose figures add up. A restart counts an incarnation
//   that replaced one which had *failed*; replacing one that stopped or was killed is not a restart.
// - Paths are matched first. Then an actor left unmatched on both sides with the same registered
//   name, a name that no other unmatched actor of either side carries, is matched by that name (an
//   actor moved to another supervisor). Ids are never used. What remains is listed as on one side only.
//
// A name containing "/" or "#" can spell another actor's path; such a clash is resolved by numbering
// the later actor further, so that every path in a session is unique.
#pragma once

#include <actorscope/actor_id.hpp>
#include <actorscope/observe/system_state.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace actorscope {

/// One logical actor of a session: a path and the incarnations that held it, in spawn order.
struct ActorSlot {
  std::string path;
  /// The registered name its incarnations carry ("" when unnamed: the path then uses the type name).
  std::string registered_name;
  std::string type_name;
  std::vector<ActorId> incarnations;
  /// Incarnations that replaced one which had failed (see the header's comment).
  std::uint32_t restarts = 0;
};

/// The slots of a session, from the actors it saw (any order; ActorInfo::parent, name, type_name,
/// spawned and stopped are used). Sorted by path.
std::vector<ActorSlot> actor_slots(std::vector<ActorInfo> actors);

/// The actors of a folded state as ActorInfo rows (what SessionReader::actors gives for a
/// recording), for states built without a recording. Actors the state has pruned are not in it.
std::vector<ActorInfo> actor_infos(const observe::SystemState& state);

struct ActorMatch {
  enum class By : std::uint8_t { path, registered_name };
  struct Pair {
    std::size_t a = 0;  ///< index into side A's slots
    std::size_t b = 0;  ///< index into side B's slots
    By by = By::path;
  };
  std::vector<Pair> matched;  ///< by A's index
  std::vector<std::size_t> only_a;
  std::vector<std::size_t> only_b;
};

/// Matches two sessions' slots by path, then by registered name (see the header's comment).
ActorMatch match_actors(const std::vector<ActorSlot>& a, const std::vector<ActorSlot>& b);

}  // namespace actorscope
