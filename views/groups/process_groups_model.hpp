// ProcessGroupsModel: scopes → groups → members, as a tree that follows joins and leaves live
// (rows inserted and removed in place; member rows refreshed when their actor's status changes).
#pragma once

#include "common/health.hpp"

#include <actorscope/observe/system_state.hpp>

#include <QAbstractItemModel>

#include <memory>
#include <string>
#include <vector>

namespace actorscope::views {

class ProcessGroupsModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Column { NameColumn, MembersColumn, StatusColumn, MailboxColumn, ColumnCount };
  enum class NodeKind { scope, group, member };

  explicit ProcessGroupsModel(QObject* parent = nullptr);
  ~ProcessGroupsModel() override;

  void update(const observe::SystemState& state);
  void clear();

  NodeKind kindOf(const QModelIndex& index) const;
  /// The member row's actor (invalid for scope and group rows).
  ActorId actorAt(const QModelIndex& index) const;
  /// The first member row of `id`, if it is in any group.
  QModelIndex indexOf(ActorId id) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  struct Node {
    NodeKind kind = NodeKind::scope;
    std::string key;   ///< scope or group name
    ActorId member{};  ///< member rows
    Node* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Node>> children;
    // What the row shows.
    std::string label;
    std::size_t members = 0;
    Health health = Health::running;
    std::uint64_t mailbox = 0;
  };
  struct Key {
    std::string text;
    ActorId id{};
    auto operator<=>(const Key&) const = default;
  };

  /// Brings `parent`'s children to `keys` (sorted), by merge: removals and insertions in runs.
  /// Returns the children that were already there (to refresh and descend into).
  std::vector<Node*> reconcile(Node* parent, std::vector<std::unique_ptr<Node>>& kids, const std::vector<Key>& keys,
                               NodeKind kind);
  static Key keyOf(const Node& n) { return {n.key, n.member}; }
  QModelIndex indexFor(const Node* node, int column) const;
  const std::vector<std::unique_ptr<Node>>& childrenOf(const Node* parent) const {
    return parent ? parent->children : scopes_;
  }
  /// Fills a row's figures from state_; true if they changed.
  bool fill(Node& node) const;
  /// Builds the subtrees of rows just created by reconcile() (inside its insert signals).
  void populatePending();

  std::vector<std::unique_ptr<Node>> scopes_;
  const observe::SystemState* state_ = nullptr;  ///< only during update()
  std::vector<Node*> pending_;
};

}  // namespace actorscope::views
