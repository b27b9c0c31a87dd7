// The supervision graph's stable layout.
#include "tree/supervision_graph_layout.hpp"

#include "common/actor_metrics.hpp"
#include "common/format.hpp"

#include <QStringList>

#include <algorithm>
#include <unordered_set>

namespace actorscope::views {

void SupervisionGraphLayout::clear() {
  roots_ = {};
  blocks_.clear();
  nodes_.clear();
  index_.clear();
  rows_ = 0;
  maxDepth_ = 0;
}

int SupervisionGraphLayout::indexOf(ActorId id) const {
  auto it = index_.find(id);
  return it == index_.end() ? -1 : it->second;
}

void SupervisionGraphLayout::assign(Block& block, const std::vector<const observe::ActorRecord*>& kids) {
  std::unordered_set<ActorId> want;
  want.reserve(kids.size());
  for (const observe::ActorRecord* k : kids) want.insert(k->id);
  std::unordered_set<ActorId> have;
  for (Slot& s : block.places) {
    if (!s.occupant.is_valid()) continue;
    if (want.count(s.occupant) == 0) {
      s.occupant = {};  // it left: its place stays, for the next newcomer
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

SupervisionGraphLayout::Node SupervisionGraphLayout::nodeFor(const observe::SystemState& state,
                                                             const observe::ActorRecord& a) const {
  Node n;
  n.id = a.id;
  n.label = QString::fromStdString(nameUnder(a, a.parent.is_valid() ? state.actor(a.parent) : nullptr));
  n.health = healthOf(a);
  n.mailbox = a.alive() ? a.mailbox_depth : 0;
  n.flashing = failedRecently(a, now_, kExitsShownFor) || recentChildFailures(a, now_, std::chrono::seconds(1)) > 0;
  n.detail = formatActorId(a.id) + QStringLiteral("  ·  ") +
             (a.alive() ? formatRate(messagesPerSecond(state, a)) : healthText(n.health));
  n.search = (QString::fromStdString(a.name) + QLatin1Char(' ') + QString::fromStdString(a.type_name) +
              QLatin1Char(' ') + formatActorId(a.id))
                 .toLower();
  return n;
}

void SupervisionGraphLayout::update(const observe::SystemState& state, const Options& options) {
  options_ = options;
  now_ = state.time();
  nodes_.clear();
  index_.clear();
  maxDepth_ = 0;

  std::vector<const observe::ActorRecord*> roots;
  for (ActorId root : state.roots()) {
    const observe::ActorRecord* r = state.actor(root);
    bool shown = options_.showStopped || r->alive() || now_ - r->stopped <= kExitsShownFor;
    for (ActorId c : r->children)
      if (const auto* cr = state.actor(c); cr && cr->alive()) shown = true;
    if (shown) roots.push_back(r);
  }
  assign(roots_, roots);
  int row = 0;
  for (Slot& slot : roots_.places) {
    if (const observe::ActorRecord* r = slot.occupant.is_valid() ? state.actor(slot.occupant) : nullptr)
      slot.rows = std::max(slot.rows, place(state, *r, -1, 0, row));
    row += slot.rows;
  }
  rows_ = row;

  // Places are kept for the supervisors drawn; the others' are forgotten (a supervisor that comes
  // back, with "show stopped", starts afresh).
  for (auto it = blocks_.begin(); it != blocks_.end();) it = index_.count(it->first) == 0 ? blocks_.erase(it) : std::next(it);
}

int SupervisionGraphLayout::place(const observe::SystemState& state, const observe::ActorRecord& a, int parent,
                                  int depth, int row) {
  Node n = nodeFor(state, a);
  n.parent = parent;
  n.depth = depth;
  n.row = row;
  maxDepth_ = std::max(maxDepth_, depth);
  const int self = static_cast<int>(nodes_.size());
  nodes_.push_back(std::move(n));
  index_[a.id] = self;

  // The drawing is about the live structure. Children that exited lately are folded into one node
  // per supervisor (a restarting supervisor would otherwise fill the view with corpses); the tree
  // and the table list them one by one. "Show stopped" draws them all.
  std::vector<const observe::ActorRecord*> kids, exited;
  for (ActorId c : a.children) {
    const observe::ActorRecord* r = state.actor(c);
    if (r == nullptr || r->parent != a.id) continue;
    if (options_.showStopped || r->alive()) {
      kids.push_back(r);
    } else if (now_ - r->stopped <= kExitsShownFor) {
      exited.push_back(r);
    }
  }
  auto block = blocks_.find(a.id);
  if (kids.empty() && exited.empty() && block == blocks_.end()) return 1;
  Block& b = block != blocks_.end() ? block->second : blocks_[a.id];
  assign(b, kids);
  return std::max(1, placeChildren(state, b, kids, self, depth + 1, row, kMaxChildrenShown, exited));
}

int SupervisionGraphLayout::placeChildren(const observe::SystemState& state, Block& block,
                                          const std::vector<const observe::ActorRecord*>& kids, int parent, int depth,
                                          int row, std::size_t shownLimit,
                                          const std::vector<const observe::ActorRecord*>& exited) {
  std::unordered_map<ActorId, const observe::ActorRecord*> byId;
  for (const observe::ActorRecord* k : kids) byId.emplace(k->id, k);
  // A crowd shows its first places (and the selected child), and one node for the rest.
  const bool crowd = kids.size() > shownLimit;
  std::size_t shownOccupied = 0;
  std::vector<const observe::ActorRecord*> hidden;
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
      slot.rows = std::max(slot.rows, place(state, *k, parent, depth, r));
      r += slot.rows;
      continue;
    }
    hidden.push_back(k);
  }
  // The aggregates go on the rows kept under the places, "+ N more" first.
  int extra = 0;
  using Members = const std::vector<const observe::ActorRecord*>*;
  const std::pair<Aggregate, Members> aggregates[] = {{Aggregate::more, &hidden}, {Aggregate::exits, &exited}};
  for (const auto& [kind, members] : aggregates) {
    if (members->empty()) continue;
    Node n = aggregateNode(kind, *members);
    n.parent = parent;
    n.depth = depth;
    n.row = r + extra++;
    maxDepth_ = std::max(maxDepth_, depth);
    nodes_.push_back(std::move(n));
  }
  block.extraRows = std::max(block.extraRows, extra);
  return r + block.extraRows - row;
}

SupervisionGraphLayout::Node SupervisionGraphLayout::aggregateNode(Aggregate kind,
                                                                   const std::vector<const observe::ActorRecord*>& members) {
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
                   .arg(std::chrono::duration<double>(kExitsShownFor).count(), 0, 'f', 1);
    n.health = n.failed > 0 ? Health::failed : n.killed > 0 ? Health::killed : Health::stopped;
    n.flashing = n.failed > 0;
  }
  return n;
}

}  // namespace actorscope::views
