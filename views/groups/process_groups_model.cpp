// Process groups tree: merge-based reconciliation at each level.
#include "groups/process_groups_model.hpp"

#include "common/actor_metrics.hpp"
#include "common/actor_selection.hpp"
#include "common/format.hpp"
#include "common/roles.hpp"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <set>

namespace actorscope::views {
namespace {

using Groups = std::map<std::string, std::map<std::string, std::set<ActorId>>>;

std::size_t distinctMembers(const std::map<std::string, std::set<ActorId>>& groups) {
  std::set<ActorId> all;
  for (const auto& [name, members] : groups) all.insert(members.begin(), members.end());
  return all.size();
}

/// A group whose last member stopped can stay in the state, empty; like pg, the view shows only
/// groups that have members.
bool hasMembers(const std::map<std::string, std::set<ActorId>>& groups) {
  for (const auto& [name, members] : groups)
    if (!members.empty()) return true;
  return false;
}

}  // namespace

ProcessGroupsModel::ProcessGroupsModel(QObject* parent) : QAbstractItemModel(parent) {}
ProcessGroupsModel::~ProcessGroupsModel() = default;

void ProcessGroupsModel::clear() {
  beginResetModel();
  scopes_.clear();
  endResetModel();
}

QModelIndex ProcessGroupsModel::indexFor(const Node* node, int column) const {
  return node ? createIndex(node->row, column, const_cast<Node*>(node)) : QModelIndex();
}

std::vector<ProcessGroupsModel::Node*> ProcessGroupsModel::reconcile(Node* parent,
                                                                     std::vector<std::unique_ptr<Node>>& kids,
                                                                     const std::vector<Key>& keys, NodeKind kind) {
  const QModelIndex parentIndex = indexFor(parent, 0);
  auto wanted = [&](const Node& n) { return std::binary_search(keys.begin(), keys.end(), keyOf(n)); };
  auto renumber = [&](std::size_t from) {
    for (std::size_t i = from; i < kids.size(); ++i) kids[i]->row = static_cast<int>(i);
  };

  // Removals, bottom-up in runs.
  int end = static_cast<int>(kids.size()) - 1;
  while (end >= 0) {
    if (wanted(*kids[static_cast<std::size_t>(end)])) {
      --end;
      continue;
    }
    int start = end;
    while (start > 0 && !wanted(*kids[static_cast<std::size_t>(start - 1)])) --start;
    beginRemoveRows(parentIndex, start, end);
    kids.erase(kids.begin() + start, kids.begin() + end + 1);
    renumber(static_cast<std::size_t>(start));
    endRemoveRows();
    end = start - 1;
  }

  // Insertions by merge: both sides are sorted and what is left is a subset of `keys`.
  std::vector<Node*> kept;
  std::size_t k = 0;
  std::size_t i = 0;
  while (i < keys.size()) {
    if (k < kids.size() && keyOf(*kids[k]) == keys[i]) {
      kept.push_back(kids[k].get());
      ++k;
      ++i;
      continue;
    }
    std::size_t stop = i;
    while (stop < keys.size() && !(k < kids.size() && keyOf(*kids[k]) == keys[stop])) ++stop;
    const int first = static_cast<int>(k);
    beginInsertRows(parentIndex, first, first + static_cast<int>(stop - i) - 1);
    std::vector<std::unique_ptr<Node>> run;
    for (std::size_t t = i; t < stop; ++t) {
      auto n = std::make_unique<Node>();
      n->kind = kind;
      n->key = keys[t].text;
      n->member = keys[t].id;
      n->parent = parent;
      run.push_back(std::move(n));
    }
    for (auto& n : run) pending_.push_back(n.get());
    kids.insert(kids.begin() + first, std::make_move_iterator(run.begin()), std::make_move_iterator(run.end()));
    renumber(static_cast<std::size_t>(first));
    populatePending();
    endInsertRows();
    k += stop - i;
    i = stop;
  }
  return kept;
}

void ProcessGroupsModel::populatePending() {
  // New rows are filled in (with their whole subtree) before endInsertRows, so views see them complete.
  while (!pending_.empty()) {
    Node* n = pending_.back();
    pending_.pop_back();
    fill(*n);
    if (n->kind == NodeKind::scope) {
      const auto& groups = state_->groups().at(n->key);
      for (const auto& [name, members] : groups) {
        if (members.empty()) continue;
        auto g = std::make_unique<Node>();
        g->kind = NodeKind::group;
        g->key = name;
        g->parent = n;
        g->row = static_cast<int>(n->children.size());
        pending_.push_back(g.get());
        n->children.push_back(std::move(g));
      }
    } else if (n->kind == NodeKind::group) {
      const auto& members = state_->groups().at(n->parent->key).at(n->key);
      for (ActorId id : members) {
        auto m = std::make_unique<Node>();
        m->kind = NodeKind::member;
        m->member = id;
        m->parent = n;
        m->row = static_cast<int>(n->children.size());
        pending_.push_back(m.get());
        n->children.push_back(std::move(m));
      }
    }
  }
}

bool ProcessGroupsModel::fill(Node& n) const {
  std::string label;
  std::size_t members = 0;
  Health health = Health::running;
  std::uint64_t mailbox = 0;
  switch (n.kind) {
    case NodeKind::scope:
      label = n.key;
      members = distinctMembers(state_->groups().at(n.key));
      break;
    case NodeKind::group:
      label = n.key;
      members = state_->groups().at(n.parent->key).at(n.key).size();
      break;
    case NodeKind::member:
      if (const observe::ActorRecord* a = state_->actor(n.member)) {
        label = displayName(*a);
        health = healthOf(*a);
        mailbox = a->alive() ? a->mailbox_depth : 0;
      } else {
        label = "actor " + n.member.to_string();
        health = Health::stopped;
      }
      break;
  }
  const bool changed = label != n.label || members != n.members || health != n.health || mailbox != n.mailbox;
  n.label = std::move(label);
  n.members = members;
  n.health = health;
  n.mailbox = mailbox;
  return changed;
}

void ProcessGroupsModel::update(const observe::SystemState& state) {
  state_ = &state;
  const Groups& groups = state.groups();
  std::vector<Key> scopeKeys;
  for (const auto& [scope, g] : groups)
    if (hasMembers(g)) scopeKeys.push_back({scope, {}});
  for (Node* scope : reconcile(nullptr, scopes_, scopeKeys, NodeKind::scope)) {
    if (fill(*scope)) emit dataChanged(indexFor(scope, 0), indexFor(scope, ColumnCount - 1));
    std::vector<Key> groupKeys;
    for (const auto& [name, members] : groups.at(scope->key))
      if (!members.empty()) groupKeys.push_back({name, {}});
    for (Node* group : reconcile(scope, scope->children, groupKeys, NodeKind::group)) {
      if (fill(*group)) emit dataChanged(indexFor(group, 0), indexFor(group, ColumnCount - 1));
      std::vector<Key> memberKeys;
      for (ActorId id : groups.at(scope->key).at(group->key)) memberKeys.push_back({{}, id});
      for (Node* member : reconcile(group, group->children, memberKeys, NodeKind::member))
        if (fill(*member)) emit dataChanged(indexFor(member, 0), indexFor(member, ColumnCount - 1));
    }
  }
  state_ = nullptr;
}

ProcessGroupsModel::NodeKind ProcessGroupsModel::kindOf(const QModelIndex& index) const {
  return index.isValid() ? static_cast<const Node*>(index.internalPointer())->kind : NodeKind::scope;
}

ActorId ProcessGroupsModel::actorAt(const QModelIndex& index) const {
  if (!index.isValid() || index.model() != this) return {};
  const Node* n = static_cast<const Node*>(index.internalPointer());
  return n->kind == NodeKind::member ? n->member : ActorId{};
}

QModelIndex ProcessGroupsModel::indexOf(ActorId id) const {
  for (const auto& scope : scopes_)
    for (const auto& group : scope->children)
      for (const auto& member : group->children)
        if (member->member == id) return indexFor(member.get(), 0);
  return {};
}

QModelIndex ProcessGroupsModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  if (parent.isValid() && parent.column() != 0) return {};
  const Node* p = parent.isValid() ? static_cast<const Node*>(parent.internalPointer()) : nullptr;
  const auto& kids = childrenOf(p);
  if (row >= static_cast<int>(kids.size())) return {};
  return createIndex(row, column, kids[static_cast<std::size_t>(row)].get());
}

QModelIndex ProcessGroupsModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  return indexFor(static_cast<const Node*>(child.internalPointer())->parent, 0);
}

int ProcessGroupsModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  const Node* p = parent.isValid() ? static_cast<const Node*>(parent.internalPointer()) : nullptr;
  return static_cast<int>(childrenOf(p).size());
}

int ProcessGroupsModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant ProcessGroupsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const Node* n = static_cast<const Node*>(index.internalPointer());
  const bool member = n->kind == NodeKind::member;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case NameColumn:
          return member ? QStringLiteral("%1  %2").arg(QString::fromStdString(n->label), formatActorId(n->member))
                        : QString::fromStdString(n->label);
        case MembersColumn: return member ? QString() : QString::number(n->members);
        case StatusColumn: return member ? healthText(n->health) : QString();
        case MailboxColumn: return member ? QString::number(n->mailbox) : QString();
      }
      break;
    case Qt::DecorationRole:
      if (index.column() == NameColumn) {
        if (member) return healthIcon(n->health, QGuiApplication::palette());
      }
      break;
    case Qt::ForegroundRole:
      if (member && index.column() == StatusColumn) return healthColor(n->health, QGuiApplication::palette());
      if (member && index.column() == MailboxColumn) return mailboxColor(n->mailbox, QGuiApplication::palette());
      break;
    case Qt::FontRole:
      if (n->kind == NodeKind::scope) {
        QFont f;
        f.setBold(true);
        return f;
      }
      break;
    case Qt::TextAlignmentRole:
      if (index.column() == MembersColumn || index.column() == MailboxColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      break;
    case Qt::ToolTipRole:
      if (n->kind == NodeKind::scope) return QStringLiteral("Scope \"%1\"").arg(QString::fromStdString(n->key));
      if (n->kind == NodeKind::group) return QStringLiteral("Group \"%1\"").arg(QString::fromStdString(n->key));
      break;
    case ActorIdRole: return QVariant::fromValue(member ? n->member : ActorId{});
    case KindRole: return static_cast<int>(n->kind);
    case SearchRole:
      return member ? QStringLiteral("%1 %2").arg(QString::fromStdString(n->label), formatActorId(n->member))
                    : QString::fromStdString(n->label);
  }
  return {};
}

QVariant ProcessGroupsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case NameColumn: return QStringLiteral("Scope / group / member");
      case MembersColumn: return QStringLiteral("Members");
      case StatusColumn: return QStringLiteral("Status");
      case MailboxColumn: return QStringLiteral("Mailbox");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case NameColumn: return QStringLiteral("Process-group scopes, their groups, and the actors in each");
      case MembersColumn: return QStringLiteral("Distinct actors in the scope, or in the group");
      case StatusColumn: return QStringLiteral("The member's status");
      case MailboxColumn: return QStringLiteral("The member's mailbox depth now");
    }
  }
  return {};
}

}  // namespace actorscope::views
