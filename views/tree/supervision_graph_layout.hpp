// SupervisionGraphLayout: where each actor of the supervision graph goes, as rows and columns (no
// widgets, so it is tested alone). The layout is stable: an actor keeps its row while it lives.
// Every supervisor keeps a list of places for its children; a child keeps its place for its whole
// life, a new child takes the first free place (a replacement takes the place of the child it
// replaces) or a new one at the end, and a place's height only grows while the place exists. Rows
// above an actor therefore never shrink under it, and a supervisor sits on the row of its first
// place, so its own children never move it either. A row under each supervisor's children is kept
// for the aggregate nodes ("+ N more", the children that exited lately).
#pragma once

#include "common/health.hpp"

#include <actorscope/observe/system_state.hpp>

#include <QString>

#include <chrono>
#include <cstddef>
#include <unordered_map>
#include <vector>

namespace actorscope::views {

class SupervisionGraphLayout {
 public:
  struct Node {
    ActorId id{};         ///< invalid for an aggregate
    QString label;
    QString detail;       ///< "0.42 · 1.2k/s"
    Health health = Health::running;
    std::uint64_t mailbox = 0;
    bool flashing = false;
    bool aggregate = false;  ///< stands for `hidden` children
    bool exits = false;      ///< aggregate of children that exited lately
    std::size_t hidden = 0;
    std::size_t hiddenAlive = 0;
    /// How the children of an aggregate ended (for "+ N more", the hidden children that exited).
    std::size_t failed = 0;
    std::size_t killed = 0;
    std::size_t stopped = 0;
    int parent = -1;  ///< index into nodes
    int depth = 0;    ///< column
    int row = 0;      ///< row from the top, 0-based; stable while the actor lives
    QString search;   ///< lower-case name, type and id
  };

  struct Options {
    bool showStopped = false;
    /// Shown even when it is beyond the children shown of its supervisor.
    ActorId selected{};
  };

  /// A supervisor with more children than this shows the first places and one "+ N more" node.
  static constexpr int kMaxChildrenShown = 12;
  /// Children that exited this recently are folded into one node per supervisor.
  static constexpr auto kExitsShownFor = std::chrono::milliseconds(2500);

  /// Lays out `state`, keeping every live actor where it was in the previous update.
  void update(const observe::SystemState& state, const Options& options);
  /// Forgets every place (a new session).
  void clear();

  const std::vector<Node>& nodes() const noexcept { return nodes_; }
  /// Rows in use (the height of the drawing, in rows), and the deepest column.
  int rowCount() const noexcept { return rows_; }
  int maxDepth() const noexcept { return maxDepth_; }
  /// The node of an actor, or -1.
  int indexOf(ActorId id) const;

 private:
  struct Slot {
    ActorId occupant{};  ///< invalid: free (a gap, until a new child takes it)
    int rows = 1;        ///< the most rows its occupants' subtrees have needed
  };
  /// The places of one supervisor's children (and of the roots).
  struct Block {
    std::vector<Slot> places;
    /// Rows under the places for "+ N more" and the children that exited lately: kept from the
    /// first child on, so that their coming and going never moves an actor.
    int extraRows = 1;
  };

  int place(const observe::SystemState& state, const observe::ActorRecord& actor, int parent, int depth, int row);
  int placeChildren(const observe::SystemState& state, Block& block, const std::vector<const observe::ActorRecord*>& kids,
                    int parent, int depth, int row, std::size_t shownLimit,
                    const std::vector<const observe::ActorRecord*>& exited);
  static void assign(Block& block, const std::vector<const observe::ActorRecord*>& kids);
  /// The two kinds of node that stand for several children: the ones beyond the places shown of a
  /// crowd ("+ N more"), and the ones that exited lately.
  enum class Aggregate { more, exits };
  /// An aggregate node for `members` (counts, label, detail, colour), not yet placed.
  static Node aggregateNode(Aggregate kind, const std::vector<const observe::ActorRecord*>& members);
  Node nodeFor(const observe::SystemState& state, const observe::ActorRecord& actor) const;

  Options options_;
  TimePoint now_{};
  Block roots_;
  std::unordered_map<ActorId, Block> blocks_;
  std::vector<Node> nodes_;
  std::unordered_map<ActorId, int> index_;
  int rows_ = 0;
  int maxDepth_ = 0;
};

}  // namespace actorscope::views
