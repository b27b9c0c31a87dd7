// The supervision tree model and its incremental update.
#include "tree/supervision_tree_model.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/roles.hpp"

#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <functional>
#include <cctype>
#include <unordered_set>

namespace actorscope::views {

SupervisionTreeModel::SupervisionTreeModel(QObject* parent) : QAbstractItemModel(parent) {}
SupervisionTreeModel::~SupervisionTreeModel() = default;

void SupervisionTreeModel::clear() {
  beginResetModel();
  roots_.clear();
  byId_.clear();
  signature_ = {};
  lingerUntil_ = TimePoint::max();
  endResetModel();
}

SupervisionTreeModel::Signature SupervisionTreeModel::signatureOf(const observe::SystemState& state, bool showStopped,
                                                                 const std::string& filter) {
  using K = observe::EventKind;
  Signature sig;
  sig.state = &state;
  sig.actors = state.actors().size();
  // (A child_restarted moves the new child into the old one's place.)
  for (K k : {K::spawned, K::stopped, K::failed, K::killed, K::linked, K::unlinked, K::child_restarted})
    sig.structural += state.events_of(k);
  sig.showStopped = showStopped;
  sig.filter = filter;
  return sig;
}

SupervisionTreeModel::Figures SupervisionTreeModel::figuresFor(const observe::SystemState& state,
                                                               const observe::ActorRecord& a) const {
  Figures f;
  f.health = healthOf(a);
  f.mailbox = a.alive() ? a.mailbox_depth : 0;
  f.rate = a.alive() ? messagesPerSecond(state, a) : 0.0;
  f.failures = a.child_failures;
  f.recentFailures = a.recent_failures.empty() ? 0 : recentChildFailures(a, state.time(), std::chrono::seconds(10));
  f.restarts = a.restarts;
  return f;
}

void SupervisionTreeModel::fillIdentity(Node& n, const observe::SystemState& state, const observe::ActorRecord& a) const {
  n.identity.label = nameUnder(a, a.parent.is_valid() ? state.actor(a.parent) : nullptr);
  n.identity.fullName = displayName(a);
  n.identity.type = a.type_name;
  n.identity.exitReason = a.exit_reason;
  n.identity.nameLength = a.name.size();
}

bool SupervisionTreeModel::matches(const observe::ActorRecord& a) const {
  if (filter_.empty()) return true;
  auto contains = [this](const std::string& text) {
    return std::search(text.begin(), text.end(), filter_.begin(), filter_.end(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == y;
           }) != text.end();
  };
  return contains(a.name) || contains(a.type_name) || a.id.to_string().rfind(filter_, 0) == 0;
}

bool SupervisionTreeModel::markVisible(const observe::SystemState& state, const observe::ActorRecord& a,
                                       Visible& visible) const {
  // Shown: a live actor (or a lingering stopped one) that matches the search, and the ancestors
  // of every shown actor, so that a match keeps its place in the tree.
  bool show = (showStopped_ || a.alive() || a.stopped >= lingerSince_) && matches(a);
  for (ActorId child : a.children) {
    const observe::ActorRecord* c = state.actor(child);
    if (c == nullptr || c->parent != a.id) continue;
    if (markVisible(state, *c, visible)) show = true;
  }
  visible[a.id] = {&a, show};
  return show;
}

void SupervisionTreeModel::setFilterText(const QString& text) {
  filter_ = text.trimmed().toLower().toStdString();
}

std::vector<ActorId> SupervisionTreeModel::visibleChildren(const observe::SystemState& state,
                                                           const observe::ActorRecord* parent,
                                                           const Visible& visible) const {
  std::vector<ActorId> out;
  auto keep = [&](ActorId id) {
    auto it = visible.find(id);
    return it != visible.end() && it->second.show;
  };
  if (parent == nullptr) {
    for (ActorId id : state.roots())
      if (keep(id)) out.push_back(id);
    return out;
  }
  // A child reached from this parent was marked by markVisible, with its record: one hash lookup.
  for (ActorId child : parent->children) {
    auto it = visible.find(child);
    if (it != visible.end() && it->second.show && it->second.record->parent == parent->id) out.push_back(child);
  }
  return out;
}

void SupervisionTreeModel::renumber(std::vector<Node*>& nodes, std::size_t from) {
  for (std::size_t i = from; i < nodes.size(); ++i) nodes[i]->row = static_cast<int>(i);
}

const observe::ActorRecord* SupervisionTreeModel::recordOf(const observe::SystemState& state, ActorId id,
                                                           const Visible& visible) {
  const auto it = visible.find(id);
  return it != visible.end() ? it->second.record : state.actor(id);
}

SupervisionTreeModel::Node* SupervisionTreeModel::create(const observe::SystemState& state, ActorId id, Node* parent,
                                                         const Visible& visible) {
  auto owned = std::make_unique<Node>();
  Node* n = owned.get();
  n->id = id;
  n->parent = parent;
  const observe::ActorRecord* a = recordOf(state, id, visible);
  n->record = a;
  fillIdentity(*n, state, *a);
  n->figures = figuresFor(state, *a);
  byId_[id] = std::move(owned);
  for (ActorId child : visibleChildren(state, a, visible)) {
    Node* c = create(state, child, n, visible);
    c->row = static_cast<int>(n->children.size());
    n->children.push_back(c);
  }
  return n;
}

void SupervisionTreeModel::destroy(Node* node) {
  for (Node* c : node->children) destroy(c);
  byId_.erase(node->id);
}

QModelIndex SupervisionTreeModel::indexFor(const Node* node, int column) const {
  return node ? createIndex(node->row, column, const_cast<Node*>(node)) : QModelIndex();
}

void SupervisionTreeModel::update(const observe::SystemState& state) {
  const Signature sig = signatureOf(state, showStopped_, filter_);
  if (sig == signature_ && state.time() < lingerUntil_) {
    refreshAll(state, nullptr);
    return;
  }
  // Stopped actors linger for kLinger, but only the latest kMaxLingering of them: a storm of
  // short-lived actors would otherwise fill the tree with the dead.
  lingerSince_ = state.time() - kLinger;
  if (!showStopped_) {
    std::vector<TimePoint> recent;
    for (const auto& [id, a] : state.actors())
      if (!a.alive() && a.stopped >= lingerSince_) recent.push_back(a.stopped);
    if (recent.size() > kMaxLingering) {
      std::nth_element(recent.begin(), recent.begin() + (kMaxLingering - 1), recent.end(), std::greater<>());
      lingerSince_ = recent[kMaxLingering - 1];
    }
  }
  Visible visible;
  visible.reserve(state.actors().size());
  const std::vector<ActorId> roots = state.roots();
  for (ActorId root : roots) markVisible(state, *state.actor(root), visible);

  // 1. Take out every node that is gone, hidden or now under another supervisor (with its subtree).
  // (An actor not reached from the roots is not in `visible`: it is not shown. One reached as a
  // child has its supervisor in `visible`; a root's supervisor is unknown to the state.)
  std::vector<ActorId> misplaced;
  for (const auto& [id, node] : byId_) {
    const auto seen = visible.find(id);
    const observe::ActorRecord* a = seen != visible.end() && seen->second.show ? seen->second.record : nullptr;
    bool ok = a != nullptr;
    if (ok) {
      const bool parentKnown = a->parent.is_valid() && visible.count(a->parent) != 0;
      const ActorId want = parentKnown ? a->parent : ActorId{};
      const ActorId have = node->parent ? node->parent->id : ActorId{};
      ok = want == have;
    }
    if (!ok) misplaced.push_back(id);
  }
  for (ActorId id : misplaced) {
    auto it = byId_.find(id);
    if (it == byId_.end()) continue;  // went with an ancestor
    Node* n = it->second.get();
    Node* parent = n->parent;
    auto& kids = childrenOf(parent);
    const int row = n->row;
    beginRemoveRows(indexFor(parent, 0), row, row);
    kids.erase(kids.begin() + row);
    renumber(kids, static_cast<std::size_t>(row));
    destroy(n);
    endRemoveRows();
  }

  // 2. Insert what is new and refresh what changed, level by level.
  std::vector<ActorId> top;
  for (ActorId id : roots)
    if (const auto it = visible.find(id); it != visible.end() && it->second.show) top.push_back(id);
  sync(state, nullptr, top, visible);

  signature_ = sig;
  lingerUntil_ = TimePoint::max();
  if (!showStopped_)
    for (const auto& [id, node] : byId_)
      if (node->record && !node->record->alive()) lingerUntil_ = std::min(lingerUntil_, node->record->stopped + kLinger);
  // More exits may push lingering actors out before their time: the structural signature
  // (stop events) catches that.
}

void SupervisionTreeModel::refreshAll(const observe::SystemState& state, Node* parent) {
  static const std::vector<Node*> none;
  refreshChildren(state, parent, none);
  for (Node* n : childrenOf(parent))
    if (!n->children.empty()) refreshAll(state, n);
}

void SupervisionTreeModel::refreshChildren(const observe::SystemState& state, Node* parent,
                                           const std::vector<Node*>& fresh) {
  // Contiguous dataChanged ranges. A range starts at the status column unless a name or status
  // changed: QTreeView re-examines every row of a range that covers column 0, which costs dearly
  // on large expanded trees.
  const auto& kids = childrenOf(parent);
  const QModelIndex parentIndex = indexFor(parent, 0);
  const bool notify = !notifyExpandedOnly_ || parent == nullptr || parent->expanded;
  int runStart = -1;
  int runColumn = StatusColumn;
  auto flush = [&](int endRow) {
    if (runStart < 0) return;
    if (!notify) {
      parent->stale = true;
      runStart = -1;
      return;
    }
    // The roles that move; never the search role, so a filter proxy does not re-filter (and
    // re-signal every ancestor) on every update.
    static const QList<int> roles{Qt::DisplayRole, Qt::ForegroundRole, Qt::DecorationRole, Qt::ToolTipRole, SortRole,
                                  HealthRole};
    emit dataChanged(index(runStart, runColumn, parentIndex), index(endRow, ColumnCount - 1, parentIndex), roles);
    runStart = -1;
    runColumn = StatusColumn;
  };
  std::unordered_set<const Node*> freshSet;
  if (fresh.size() > 8) freshSet.insert(fresh.begin(), fresh.end());
  auto isFresh = [&](const Node* n) {
    if (fresh.empty()) return false;
    return fresh.size() > 8 ? freshSet.count(n) != 0 : std::find(fresh.begin(), fresh.end(), n) != fresh.end();
  };
  for (Node* n : kids) {
    if (isFresh(n)) {
      flush(n->row - 1);
      continue;
    }
    const observe::ActorRecord* a = n->record;
    const Figures f = figuresFor(state, *a);
    const bool renamed = a->name.size() != n->identity.nameLength;
    if (!renamed && f == n->figures) {
      flush(n->row - 1);
      continue;
    }
    const bool firstColumn = renamed || f.health != n->figures.health || f.restarts != n->figures.restarts;
    if (firstColumn) fillIdentity(*n, state, *a);
    n->figures = f;
    if (runStart < 0) runStart = n->row;
    if (firstColumn) runColumn = NameColumn;
  }
  flush(static_cast<int>(kids.size()) - 1);
}

void SupervisionTreeModel::sync(const observe::SystemState& state, Node* parent, const std::vector<ActorId>& target,
                                const Visible& visible) {
  auto& kids = childrenOf(parent);
  const QModelIndex parentIndex = indexFor(parent, 0);
  std::vector<Node*> fresh;

  bool same = kids.size() == target.size();
  for (std::size_t i = 0; same && i < kids.size(); ++i) same = kids[i]->id == target[i];
  if (!same) {
    // What is left here is a subset of the target; if it is out of order (an actor moved away and
    // back between two updates), rebuild this level.
    std::size_t j = 0;
    for (std::size_t i = 0; i < target.size() && j < kids.size(); ++i)
      if (kids[j]->id == target[i]) ++j;
    if (j != kids.size() && !kids.empty()) {
      beginRemoveRows(parentIndex, 0, static_cast<int>(kids.size()) - 1);
      for (Node* n : kids) destroy(n);
      kids.clear();
      endRemoveRows();
    }
    // Insert runs of new ids where they belong.
    std::size_t k = 0;  // position in kids
    std::size_t i = 0;
    while (i < target.size()) {
      if (k < kids.size() && kids[k]->id == target[i]) {
        ++k;
        ++i;
        continue;
      }
      std::size_t end = i;
      while (end < target.size() && !(k < kids.size() && kids[k]->id == target[end])) ++end;
      const int first = static_cast<int>(k);
      const int last = first + static_cast<int>(end - i) - 1;
      beginInsertRows(parentIndex, first, last);
      std::vector<Node*> run;
      for (std::size_t t = i; t < end; ++t) run.push_back(create(state, target[t], parent, visible));
      kids.insert(kids.begin() + first, run.begin(), run.end());
      renumber(kids, static_cast<std::size_t>(first));
      endInsertRows();
      fresh.insert(fresh.end(), run.begin(), run.end());
      k += run.size();
      i = end;
    }
  }

  std::unordered_set<const Node*> isFresh(fresh.begin(), fresh.end());
  for (Node* n : kids)
    if (isFresh.count(n) == 0) n->record = recordOf(state, n->id, visible);
  refreshChildren(state, parent, fresh);
  for (Node* n : kids) {
    if (isFresh.count(n) != 0) continue;
    sync(state, n, visibleChildren(state, n->record, visible), visible);
  }
}

void SupervisionTreeModel::setExpanded(const QModelIndex& index, bool expanded) {
  if (!index.isValid() || index.model() != this) return;
  Node* n = static_cast<Node*>(index.internalPointer());
  n->expanded = expanded;
  if (expanded && n->stale && !n->children.empty()) {
    n->stale = false;
    emit dataChanged(this->index(0, 0, indexFor(n, 0)),
                     this->index(static_cast<int>(n->children.size()) - 1, ColumnCount - 1, indexFor(n, 0)));
  }
}

std::size_t SupervisionTreeModel::stoppedCount() const {
  std::size_t n = 0;
  for (const auto& [id, node] : byId_) n += hasExited(node->figures.health) ? 1 : 0;
  return n;
}

QModelIndex SupervisionTreeModel::indexOf(ActorId id, int column) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? QModelIndex() : indexFor(it->second.get(), column);
}

ActorId SupervisionTreeModel::actorAt(const QModelIndex& index) const {
  if (!index.isValid() || index.model() != this) return {};
  return static_cast<const Node*>(index.internalPointer())->id;
}

QModelIndex SupervisionTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  const Node* p = parent.isValid() ? static_cast<const Node*>(parent.internalPointer()) : nullptr;
  if (parent.isValid() && parent.column() != 0) return {};
  const auto& kids = childrenOf(p);
  if (row >= static_cast<int>(kids.size())) return {};
  return createIndex(row, column, kids[static_cast<std::size_t>(row)]);
}

QModelIndex SupervisionTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  const Node* n = static_cast<const Node*>(child.internalPointer());
  return indexFor(n->parent, 0);
}

int SupervisionTreeModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  const Node* p = parent.isValid() ? static_cast<const Node*>(parent.internalPointer()) : nullptr;
  return static_cast<int>(childrenOf(p).size());
}

int SupervisionTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

ActorCell SupervisionTreeModel::cellOf(int column) {
  switch (column) {
    case NameColumn: return ActorCell::name;
    case IdColumn: return ActorCell::id;
    case StatusColumn: return ActorCell::status;
    case MailboxColumn: return ActorCell::mailbox;
    case FailuresColumn: return ActorCell::failures;
    default: return ActorCell::other;
  }
}

QVariant SupervisionTreeModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const Node* n = static_cast<const Node*>(index.internalPointer());
  const Identity& id = n->identity;
  const Figures& r = n->figures;
  const bool dead = hasExited(r.health);
  // The tree's failures cell is red for recent failures only: it is about what is happening now.
  const QVariant shared = actorCellData(cellOf(index.column()), role,
                                        {.id = n->id,
                                         .health = r.health,
                                         .mailbox = r.mailbox,
                                         .failing = r.recentFailures > 0,
                                         .name = id.fullName,
                                         .type = id.type});
  if (shared.isValid()) return shared;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case NameColumn:
          return r.restarts == 0 ? QString::fromStdString(id.label)
                                 : QString::fromStdString(id.label + "  " + restartBadge(r.restarts));
        case IdColumn: return formatActorId(n->id);
        case StatusColumn: return healthText(r.health);
        case MailboxColumn: return dead ? QString() : QString::number(r.mailbox);
        case RateColumn: return dead ? QString() : formatRate(r.rate);
        case FailuresColumn: return r.failures == 0 ? QString() : QString::number(r.failures);
      }
      break;
    case SortRole:
      switch (index.column()) {
        case NameColumn: return QString::fromStdString(id.label);
        case IdColumn: return QVariant::fromValue<qulonglong>(n->id.pid);
        case StatusColumn: return static_cast<int>(r.health);
        case MailboxColumn: return QVariant::fromValue<qulonglong>(r.mailbox);
        case RateColumn: return r.rate;
        case FailuresColumn: return QVariant::fromValue<qulonglong>(r.failures);
      }
      break;
    case Qt::TextAlignmentRole:
      if (index.column() >= MailboxColumn) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      break;
    case Qt::ToolTipRole: {
      QString tip = QStringLiteral("<b>%1</b> &nbsp;%2<br>%3<br>%4")
                        .arg(QString::fromStdString(id.fullName).toHtmlEscaped(), formatActorId(n->id),
                             QString::fromStdString(id.type).toHtmlEscaped(), healthText(r.health));
      if (!id.exitReason.empty()) tip += QStringLiteral(": ") + QString::fromStdString(id.exitReason).toHtmlEscaped();
      if (r.recentFailures > 0) tip += QStringLiteral("<br>%1 child failures in the last 10 s").arg(r.recentFailures);
      if (r.restarts > 0) tip += QStringLiteral("<br>restarted %1\u00d7 by its supervisor").arg(r.restarts);
      return tip;
    }
  }
  return {};
}

QVariant SupervisionTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case NameColumn: return QStringLiteral("Actor");
      case IdColumn: return QStringLiteral("Id");
      case StatusColumn: return QStringLiteral("Status");
      case MailboxColumn: return QStringLiteral("MsgQ");
      case RateColumn: return QStringLiteral("Msg/s");
      case FailuresColumn: return QStringLiteral("Fails");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case NameColumn: return QStringLiteral("The registered name, or the actor's type when it has none");
      case IdColumn: return QStringLiteral("node.pid: unique within the System");
      case StatusColumn: return QStringLiteral("Where the actor is in its life, or how it ended");
      case MailboxColumn: return QStringLiteral("Messages waiting in the mailbox now (the Erlang observer calls it MsgQ)");
      case RateColumn: return QStringLiteral("Messages handled per second over the last second");
      case FailuresColumn: return QStringLiteral("How many of this actor's children failed (its own failure shows in Status)");
    }
  }
  if (role == Qt::TextAlignmentRole && section >= MailboxColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

}  // namespace actorscope::views
