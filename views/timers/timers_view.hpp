// TimersView: the active timers in a sortable table; picking a row selects its target actor.
#pragma once

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace actorscope::views {

class SearchField;
class TimersModel;

class TimersView : public QWidget, public StateView {
  Q_OBJECT
 public:
  TimersView(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state) override;
  void resetSession() override;
  TimersModel* model() const noexcept { return model_; }

 private:
  ActorSelection* selection_;
  ActorControl* control_;
  TimersModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  SearchField* search_;
  QStackedWidget* stack_;
  QLabel* summary_;
};

}  // namespace actorscope::views
