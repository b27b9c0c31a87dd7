// ProcessGroupsView: scopes, groups and members as a tree that follows joins and leaves live;
// picking a member selects that actor everywhere.
#pragma once

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"

#include <QWidget>

class QLabel;
class QMenu;
class QSortFilterProxyModel;
class QStackedWidget;
class QTreeView;

namespace actorscope::views {

class ProcessGroupsModel;
class SearchField;

class ProcessGroupsView : public QWidget, public StateView {
  Q_OBJECT
 public:
  ProcessGroupsView(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state) override;
  void resetSession() override;
  ProcessGroupsModel* model() const noexcept { return model_; }
  QTreeView* treeView() const noexcept { return tree_; }

 private:
  ActorSelection* selection_;
  ActorControl* control_;
  ProcessGroupsModel* model_;
  QSortFilterProxyModel* proxy_;
  QTreeView* tree_;
  SearchField* search_;
  QStackedWidget* stack_;
  QLabel* empty_;
  QLabel* summary_;
};

}  // namespace actorscope::views
