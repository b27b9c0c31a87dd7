// The supervision graph's stable layout: one pure function from a state, options and the previous
// layout to the next layout.
#include "tree/supervision_graph_layout.hpp"

#include "common/actor_metrics.hpp"
#include "common/format.hpp"

#include <QStringList>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace actorscope::views {
namespace {

using Node = SupervisionGraphLayout::Node;
using Records = std::vector<const observe::ActorRecord*>;

/// The two kinds of node that stand for several children: the ones beyond the places shown of a
/// crowd ("+ N more"), and the ones that exited lately.
enum class Aggregate { more, exits };

/// An aggregate node for `members` (counts, label, detail, colour), not yet placed.
Node aggregateNode(Aggregate kind, const Records& members) {
  Node n;
  n.aggregate = true;
  n.exits = kind == Aggregate::exits;
  n.hidden = members.size();
  for (const observe::ActorRecord* m : members) {
    if (m->alive()) {
      ++n.hiddenAlive;
    } else if (m->exit_kind == ExitKind::failed) {
      ++n.failed;
    } else if (m->exit_kind == ExitKind::killed) {
      ++n.killed;
    } else {
      ++n.stopped;
    }
  }
  QStringList ends;
  if (n.failed > 0) ends << QStringLiteral("%1 failed").arg(n.failed);
  if (n.killed > 0) ends << QStringLiteral("%1 killed").arg(n.killed);
  if (n.stopped > 0) ends << QStringLiteral("%1 stopped").arg(n.stopped);
  if (kind == Aggregate::more) {
    // The children beyond the places shown, alive or not ("show stopped" keeps the dead in places).
    n.label = QStringLiteral("+ %1 more").arg(n.hidden);
    n.detail = (QStringList{QStringLiteral("%1 alive").arg(n.hiddenAlive)} + ends).join(QStringLiteral(" · "));
    n.health = n.hiddenAlive > 0 ? Health::running : Health::stopped;
  } else {
    // The children that exited lately, named by how they ended, red while any of them failed.
    n.label = ends.join(QStringLiteral(", "));
    n.detail = QStringLiteral("exited in the last %1 s")
                   .arg(std::chrono::duration<double>(SupervisionGraphLayout::kExitsShownFor).count(), 0, 'f', 1);
    n.health = n.failed > 0 ? Health::failed : n.killed > 0 ? Health::killed : Health::stopped;
    n.flashing = n.failed > 0;
  }
  return n;
}

/// The node of one actor (what it shows), not yet placed.
Node actorNode(const observe::SystemState& state, const observe::ActorRecord& a, TimePoint now) {
  Node n;
  n.id = a.id;
  n.label = QString::fromStdString(nameUnder(a, a.parent.is_valid() ? state.actor(a.parent) : nullptr));
  if (a.restarts > 0) n.label += QStringLiteral("  ") + QString::fromStdString(restartBadge(a.restarts));
  n.health = healthOf(a);
  n.mailbox = a.alive() ? a.mailbox_depth : 0;
  n.flashing = failedRecently(a, now, SupervisionGraphLayout::kExitsShownFor) ||
               recentChildFailures(a, now, std::chrono::seconds(1)) > 0;
  n.detail = formatActorId(a.id) + QStringLiteral("  ·  ") +
             (a.alive() ? formatRate(messagesPerSecond(state, a)) : healthText(n.health));
  n.search = (QString::fromStdString(a.name) + QLatin1Char(' ') + QString::fromStdString(a.type_name) +
              QLatin1Char(' ') + formatActorId(a.id))
                 .toLower();
  return n;
}

}  // namespace

int SupervisionGraphLayout::indexOf(ActorId id) const {
  auto it = index_.find(id);
  return it == index_.end() ? -1 : it->second;
}

/// One update: walks the tree depth-first and fills `out`, whose places start as the previous
/// layout's. It lives only inside layOutSupervisionGraph; nothing of it outlasts the call.
class SupervisionGraphLayout::Builder {
 public:
  Builder(const observe::SystemState& state, const Options& options, SupervisionGraphLayout& out)
      : state_(state), options_(options), now_(state.time()), out_(out) {}

  void run() {
    Records roots;
    for (ActorId root : state_.roots()) {
      const observe::ActorRecord* r = state_.actor(root);
      bool shown = options_.showStopped || r->alive() || now_ - r->stopped <= kExitsShownFor;
      for (ActorId c : r->children)
        if (const auto* cr = state_.actor(c); cr && cr->alive()) shown = true;
      if (shown) roots.push_back(r);
    }
    assign(state_, out_.roots_, roots);
    int row = 0;
    for (Slot& slot : out_.roots_.places) {
      if (const observe::ActorRecord* r = slot.occupant.is_valid() ? state_.actor(slot.occupant) : nullptr)
        slot.rows = std::max(slot.rows, place(*r, -1, 0, row));
      row += slot.rows;
    }
    out_.rows_ = row;

    // Places are kept for the supervisors drawn; the others' are forgotten (a supervisor that comes
    // back, with "show stopped", starts afresh).
    for (auto it = out_.blocks_.begin(); it != out_.blocks_.end();)
      it = out_.index_.count(it->first) == 0 ? out_.blocks_.erase(it) : std::next(it);
  }

 private:
  /// Gives every child in `kids` a place in `block`: its own if it had one, the place of the actor
  /// it replaces (a Supervisor's restart, however many since the last update), else the first free
  /// one or a new one at the end.
  static void assign(const observe::SystemState& state, Block& block, const Records& kids) {
    std::unordered_set<ActorId> want;
    want.reserve(kids.size());
    for (const observe::ActorRecord* k : kids) want.insert(k->id);
    // Who took over from whom: each replaced actor (back along the chain of restarts) → its
    // replacement among `kids`.
    std::unordered_map<ActorId, ActorId> successor;
    for (const observe::ActorRecord* k : kids) {
      const observe::ActorRecord* r = k;
      for (int hops = 0; r != nullptr && r->replaces.is_valid() && hops < 64; ++hops) {
        successor.emplace(r->replaces, k->id);
        r = state.actor(r->replaces);
      }
    }
    std::unordered_set<ActorId> have;
    for (Slot& s : block.places) {
      if (!s.occupant.is_valid()) continue;
      if (want.count(s.occupant) == 0) {
        const auto next = successor.find(s.occupant);
        if (next != successor.end() && have.count(next->second) == 0 &&
            std::none_of(block.places.begin(), block.places.end(),
                         [&](const Slot& o) { return o.occupant == next->second; })) {
          s.occupant = next->second;  // restarted: the new actor keeps the old one's place
          have.insert(s.occupant);
        } else {
          s.occupant = {};  // it left: its place stays, for the next newcomer
        }
      } else {
        have.insert(s.occupant);
      }
    }
    std::size_t free = 0;
    for (const observe::ActorRecord* k : kids) {
      if (have.count(k->id) != 0) continue;
      while (free < block.places.size() && block.places[free].occupant.is_valid()) ++free;
      if (free < block.places.size()) {
        block.places[free].occupant = k->id;
      } else {
        block.places.push_back({k->id, 1});
      }
    }
    // Free places at the end hold nobody's place: they go.
    while (!block.places.empty() && !block.places.back().occupant.is_valid()) block.places.pop_back();
  }

  /// Places `a` at (`depth`, `row`) and its children right of it; returns the rows its subtree uses.
  int place(const observe::ActorRecord& a, int parent, int depth, int row) {
    Node n = actorNode(state_, a, now_);
    n.parent = parent;
    n.depth = depth;
    n.row = row;
    out_.maxDepth_ = std::max(out_.maxDepth_, depth);
    const int self = static_cast<int>(out_.nodes_.size());
    out_.nodes_.push_back(std::move(n));
    out_.index_[a.id] = self;

    // The drawing is about the live structure. Children that exited lately are folded into one node
    // per supervisor (a restarting supervisor would otherwise fill the view with corpses); the tree
    // and the table list them one by one. "Show stopped" draws them all.
    Records kids, exited;
    for (ActorId c : a.children) {
      const observe::ActorRecord* r = state_.actor(c);
      if (r == nullptr || r->parent != a.id) continue;
      if (options_.showStopped || r->alive()) {
        kids.push_back(r);
      } else if (now_ - r->stopped <= kExitsShownFor) {
        exited.push_back(r);
      }
    }
    auto block = out_.blocks_.find(a.id);
    if (kids.empty() && exited.empty() && block == out_.blocks_.end()) return 1;
    Block& b = block != out_.blocks_.end() ? block->second : out_.blocks_[a.id];
    assign(state_, b, kids);
    return std::max(1, placeChildren(b, kids, self, depth + 1, row, exited));
  }

  /// Places the children of node `parent` in their places of `block` from `row` down, then the
  /// aggregates under them; returns the rows they use.
  int placeChildren(Block& block, const Records& kids, int parent, int depth, int row, const Records& exited) {
    std::unordered_map<ActorId, const observe::ActorRecord*> byId;
    for (const observe::ActorRecord* k : kids) byId.emplace(k->id, k);
    // A crowd shows its first places (and the selected child), and one node for the rest.
    const auto shownLimit = static_cast<std::size_t>(options_.maxChildrenShown);
    const bool crowd = kids.size() > shownLimit;
    std::size_t shownOccupied = 0;
    Records hidden;
    int r = row;
    for (Slot& slot : block.places) {
      const observe::ActorRecord* k = slot.occupant.is_valid() ? byId.at(slot.occupant) : nullptr;
      const bool inside = !crowd || shownOccupied < shownLimit - 1;
      if (k == nullptr) {
        if (inside) r += slot.rows;  // a free place keeps the ones below where they are
        continue;
      }
      if (inside || k->id == options_.selected) {
        ++shownOccupied;
        slot.rows = std::max(slot.rows, place(*k, parent, depth, r));
        r += slot.rows;
        continue;
      }
      hidden.push_back(k);
    }
    // The aggregates go on the rows kept under the places, "+ N more" first.
    int extra = 0;
    const std::pair<Aggregate, const Records*> aggregates[] = {{Aggregate::more, &hidden}, {Aggregate::exits, &exited}};
    for (const auto& [kind, members] : aggregates) {
      if (members->empty()) continue;
      Node n = aggregateNode(kind, *members);
      n.parent = parent;
      n.depth = depth;
      n.row = r + extra++;
      out_.maxDepth_ = std::max(out_.maxDepth_, depth);
      out_.nodes_.push_back(std::move(n));
    }
    block.extraRows = std::max(block.extraRows, extra);
    return r + block.extraRows - row;
  }

  const observe::SystemState& state_;
  const Options& options_;
  const TimePoint now_;
  SupervisionGraphLayout& out_;
};

SupervisionGraphLayout layOutSupervisionGraph(const observe::SystemState& state,
                                              const SupervisionGraphLayout::Options& options,
                                              SupervisionGraphLayout previous) {
  if (options.maxChildrenShown < 1)
    throw std::invalid_argument("supervision graph layout: maxChildrenShown is " +
                                std::to_string(options.maxChildrenShown) +
                                "; it must be at least 1 (the children a crowd draws before its \"+ N more\" node)");
  // Only the places carry over; what is drawn is made afresh from the state.
  SupervisionGraphLayout out;
  out.roots_ = std::move(previous.roots_);
  out.blocks_ = std::move(previous.blocks_);
  SupervisionGraphLayout::Builder(state, options, out).run();
  return out;
}

}  // namespace actorscope::views
