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
  Node more;
  more.aggregate = true;
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
    ++more.hidden;
    if (k->alive()) {
      ++more.hiddenAlive;
    } else if (k->exit_kind == ExitKind::failed) {
      ++more.failed;
    } else if (k->exit_kind == ExitKind::killed) {
      ++more.killed;
    } else {
      ++more.stopped;
    }
  }
  int extra = 0;
  if (more.hidden > 0) {
    more.label = QStringLiteral("+ %1 more").arg(more.hidden);
    QStringList parts{QStringLiteral("%1 alive").arg(more.hiddenAlive)};
    if (more.failed > 0) parts << QStringLiteral("%1 failed").arg(more.failed);
    if (more.killed > 0) parts << QStringLiteral("%1 killed").arg(more.killed);
    if (more.stopped > 0) parts << QStringLiteral("%1 stopped").arg(more.stopped);
    more.detail = parts.join(QStringLiteral(" · "));
    more.health = more.hiddenAlive > 0 ? Health::running : Health::stopped;
    more.parent = parent;
    more.depth = depth;
    more.row = r + extra++;
    more.search.clear();
    maxDepth_ = std::max(maxDepth_, depth);
    nodes_.push_back(std::move(more));
  }
  if (!exited.empty()) {
    Node gone;
    gone.aggregate = true;
    gone.exits = true;
    gone.hidden = exited.size();
    for (const observe::ActorRecord* e : exited) {
      if (e->exit_kind == ExitKind::failed) {
        ++gone.failed;
      } else if (e->exit_kind == ExitKind::killed) {
        ++gone.killed;
      } else {
        ++gone.stopped;
      }
    }
    QStringList parts;
    if (gone.failed > 0) parts << QStringLiteral("%1 failed").arg(gone.failed);
    if (gone.killed > 0) parts << QStringLiteral("%1 killed").arg(gone.killed);
    if (gone.stopped > 0) parts << QStringLiteral("%1 stopped").arg(gone.stopped);
    gone.label = parts.join(QStringLiteral(", "));
    gone.detail = QStringLiteral("exited in the last %1 s")
                      .arg(std::chrono::duration<double>(kExitsShownFor).count(), 0, 'f', 1);
    gone.health = gone.failed > 0 ? Health::failed : gone.killed > 0 ? Health::killed : Health::stopped;
    gone.flashing = gone.failed > 0;
    gone.parent = parent;
    gone.depth = depth;
    gone.row = r + extra++;
    maxDepth_ = std::max(maxDepth_, depth);
    nodes_.push_back(std::move(gone));
  }
  block.extraRows = std::max(block.extraRows, extra);
  return r + block.extraRows - row;
}

}  // namespace actorscope::views
