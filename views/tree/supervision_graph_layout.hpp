// SupervisionGraphLayout: where each actor of the supervision graph goes, as rows and columns. It is
// a value made by one pure function, layOutSupervisionGraph(state, options, previous), with no
// widgets and no fonts, so it is tested alone like the models.
//
// The layout is stable: an actor keeps its row while it lives. Every supervisor keeps a list of
// places for its children; a child keeps its place for its whole life, a new child takes the first
// free place (a replacement takes the place of the child it replaces) or a new one at the end, and a
// place's height only grows while the place exists. Rows above an actor therefore never shrink
// under it, and a supervisor sits on the row of its first place, so its own children never move it
// either. A row under each supervisor's children is kept for the aggregate nodes ("+ N more", the
// children that exited lately). The places are part of the value: the caller passes the previous
// layout back in, and that is the only memory between updates.
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

    friend bool operator==(const Node&, const Node&) = default;
  };

  /// A supervisor with more children than this shows the first places and one "+ N more" node.
  static constexpr int kMaxChildrenShown = 12;
  /// Children that exited this recently are folded into one node per supervisor.
  static constexpr auto kExitsShownFor = std::chrono::milliseconds(2500);

  struct Options {
    bool showStopped = false;
    /// Shown even when it is beyond the children shown of its supervisor.
    ActorId selected{};
    /// The crowd threshold: a supervisor with more children draws kMaxChildrenShown - 1 of them
    /// and one "+ N more" node. At least 1 (1 folds every child of a crowd into the aggregate).
    int maxChildrenShown = kMaxChildrenShown;
  };

  /// The empty layout: no nodes and no places (a new session).
  SupervisionGraphLayout() = default;

  const std::vector<Node>& nodes() const noexcept { return nodes_; }
  /// Rows in use (the height of the drawing, in rows), and the deepest column.
  int rowCount() const noexcept { return rows_; }
  int maxDepth() const noexcept { return maxDepth_; }
  /// The node of an actor, or -1.
  int indexOf(ActorId id) const;

  /// Equal nodes and equal kept places: what the next update would start from is the same too.
  friend bool operator==(const SupervisionGraphLayout&, const SupervisionGraphLayout&) = default;

 private:
  friend SupervisionGraphLayout layOutSupervisionGraph(const observe::SystemState& state, const Options& options,
                                                       SupervisionGraphLayout previous);
  class Builder;  // the walk that fills a layout (in the .cpp)

  struct Slot {
    ActorId occupant{};  ///< invalid: free (a gap, until a new child takes it)
    int rows = 1;        ///< the most rows its occupants' subtrees have needed

    friend bool operator==(const Slot&, const Slot&) = default;
  };
  /// The places of one supervisor's children (and of the roots).
  struct Block {
    std::vector<Slot> places;
    /// Rows under the places for "+ N more" and the children that exited lately: kept from the
    /// first child on, so that their coming and going never moves an actor.
    int extraRows = 1;

    friend bool operator==(const Block&, const Block&) = default;
  };

  // What is drawn.
  std::vector<Node> nodes_;
  std::unordered_map<ActorId, int> index_;
  int rows_ = 0;
  int maxDepth_ = 0;
  // The places kept for the next update: the roots', and those of every supervisor drawn.
  Block roots_;
  std::unordered_map<ActorId, Block> blocks_;
};

/// Lays out `state`. Every actor of `previous` (the layout of the last update; the empty layout for
/// a new session) that is still drawn keeps its place; `previous` is taken by value, so a caller
/// that keeps only the latest layout moves it in and nothing is copied. The result depends on its
/// arguments alone: the same state, options and previous layout always give the same layout.
/// Throws std::invalid_argument when `options.maxChildrenShown` is below 1.
SupervisionGraphLayout layOutSupervisionGraph(const observe::SystemState& state,
                                              const SupervisionGraphLayout::Options& options,
                                              SupervisionGraphLayout previous = {});

}  // namespace actorscope::views
