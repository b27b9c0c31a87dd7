// EventLogView: the lifecycle and supervision event log, searchable and filtered by category
// (lifecycle, failures, supervision, groups, names, timers). It follows the newest event while
// scrolled to the bottom, and stays put when scrolled up to read.
#pragma once

#include "common/actor_selection.hpp"
#include "common/state_view.hpp"

#include <QWidget>

#include <optional>

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
  /// A replay's cursor: the log is scrolled so that the last event at or before it is in the middle
  /// (the events after it follow below).
  void setFocusTime(std::optional<TimePoint> t) override { focusTime_ = t; }
  /// The row (of the filtered log) the cursor is at: the last event at or before it; -1 if none.
  int focusRow() const;
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
  std::optional<TimePoint> focusTime_;
};

}  // namespace actorscope::views
