// SupervisionTreeView: the supervision tree as an expandable list with a search box (name, id or
// type; matches keep their ancestors) and a "show stopped" switch. Follows and drives the shared
// actor selection; right-click gives the actor menu (inspect, stop, kill, send).
#pragma once

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"

#include <QElapsedTimer>
#include <QSet>
#include <QTimer>
#include <QWidget>

#include <vector>

class QToolButton;
class QTreeView;
class QMenu;
class QLabel;

namespace actorscope::views {

class SearchField;
class SupervisionTreeModel;

class SupervisionTreeView : public QWidget, public StateView {
  Q_OBJECT
 public:
  SupervisionTreeView(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state) override;
  void resetSession() override;

  SupervisionTreeModel* model() const noexcept { return model_; }
  QTreeView* treeView() const noexcept { return tree_; }
  /// The context menu for a row of the tree view (owned by the caller; deletes itself on close).
  QMenu* contextMenuFor(const QModelIndex& viewIndex);
  /// Puts the keyboard focus into the search box.
  void focusSearch();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// Sizes the columns: the names take the room they need, the figures shrink to make it.
  void fitColumns();
  /// The width each column's widest cell needs (the name's with its indentation and dot).
  std::vector<int> widthsNeeded() const;
  void followSelection(ActorId id);
  void expandNew(const QModelIndex& parent, int first, int last);

  ActorSelection* selection_;
  ActorControl* control_;
  SupervisionTreeModel* model_;
  QTreeView* tree_;
  SearchField* search_;
  QToolButton* showStopped_;
  QLabel* summary_;
  const observe::SystemState* state_ = nullptr;
  bool syncing_ = false;
  QSet<std::uint64_t> autoExpanded_;  ///< pids opened automatically once
  std::size_t aliveShown_ = 0;  ///< actors alive in the state it shows (its summary line)
  QTimer fitTimer_;           ///< coalesces the column fitting after rows come, go, open or close
  QElapsedTimer sinceFit_;
  bool fitting_ = false;
  bool userSized_ = false;    ///< the user dragged a column: its widths hold
};

}  // namespace actorscope::views
