// WarningsView: the warnings that hold now, tokio-console style. Each row links to its actor:
// picking it selects the actor everywhere; hovering explains the rule.
#pragma once

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTableView;

namespace actorscope::views {

class WarningsModel;

class WarningsView : public QWidget, public StateView {
  Q_OBJECT
 public:
  WarningsView(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state) override;
  void resetSession() override;
  WarningsModel* model() const noexcept { return model_; }
  QTableView* tableView() const noexcept { return table_; }

 signals:
  void countChanged(int count);

 private:
  ActorSelection* selection_;
  ActorControl* control_;
  WarningsModel* model_;
  QTableView* table_;
  QStackedWidget* stack_;
};

}  // namespace actorscope::views
