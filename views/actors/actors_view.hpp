// ActorsView: the actors table with a filter box and a "show stopped" switch. Sorting by any
// column (mailbox depth, messages per second, p99 handling time, failures...) keeps the selected
// actor selected as rows move; the selection is shared with every other view.
#pragma once

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"

#include <QWidget>

class QLabel;
class QMenu;
class QTableView;
class QToolButton;

namespace actorscope::views {

class ActorsTableModel;
class SearchField;

class ActorsView : public QWidget, public StateView {
  Q_OBJECT
 public:
  ActorsView(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state) override;
  void resetSession() override;

  ActorsTableModel* model() const noexcept { return model_; }
  QTableView* tableView() const noexcept { return table_; }
  QMenu* contextMenuFor(const QModelIndex& index);

 private:
  void followSelection(ActorId id);

  ActorSelection* selection_;
  ActorControl* control_;
  ActorsTableModel* model_;
  QTableView* table_;
  SearchField* search_;
  QToolButton* showStopped_;
  QLabel* summary_;
  bool syncing_ = false;
};

}  // namespace actorscope::views
