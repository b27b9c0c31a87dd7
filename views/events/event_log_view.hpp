// EventLogView: the lifecycle and supervision event log, searchable and filtered by category
// (lifecycle, failures, supervision, groups, names, timers). It follows the newest event while
// scrolled to the bottom, and stays put when scrolled up to read.
#pragma once

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"

#include <QWidget>

class QToolButton;
class QLabel;
class QTableView;

namespace actorscope::views {

class EventLogFilter;
class EventLogModel;
class SearchField;

class EventLogView : public QWidget, public StateView {
  Q_OBJECT
 public:
  EventLogView(ActorSelection* selection, ActorControl* control, QWidget* parent = nullptr);

  void setState(const observe::SystemState& state) override;
  void resetSession() override;
  EventLogModel* model() const noexcept { return model_; }
  /// Rows that pass the search and category filter.
  int visibleRows() const;
  void setCategoryMask(int mask);
  void setSearch(const QString& text);

 private:
  /// Widens the actor and peer columns to the names in the log.
  void fitNameColumns();

  ActorSelection* selection_;
  ActorControl* control_;
  EventLogModel* model_;
  EventLogFilter* filter_;
  QTableView* table_;
  SearchField* search_;
  QToolButton* category_;
  QLabel* summary_;
};

}  // namespace actorscope::views
